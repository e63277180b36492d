// Template variables of the fake `coder` CLI (cli/templatevariables.go: ParseUserVariableValues).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join } from 'node:path'
import { CliError, run } from './common.mjs'

// DiscoverVarsFiles: terraform.tfvars, terraform.tfvars.json, then *.auto.tfvars(.json) in
// directory order (Go's os.ReadDir sorts by name).
export function discoverVarsFiles(dir) {
  const found = []
  for (const name of ['terraform.tfvars', 'terraform.tfvars.json']) {
    if (readdirSync(dir).includes(name)) found.push(join(dir, name))
  }
  for (const name of readdirSync(dir).sort()) {
    if (name.endsWith('.auto.tfvars') || name.endsWith('.auto.tfvars.json'))
      found.push(join(dir, name))
  }
  return found
}

// Precedence tfvars < --variables-file < --variable; sorted by name.
export async function parseUserVariableValues(varsFiles, variablesFile, commandLine) {
  const combined = new Map()
  for (const file of varsFiles) {
    for (const [name, value] of parseVarsFile(file)) combined.set(name, value)
  }
  if (variablesFile) {
    for (const [name, value] of await parseVariablesFile(variablesFile)) combined.set(name, value)
  }
  for (const keyValue of commandLine) {
    const at = keyValue.indexOf('=')
    if (at < 0) throw new CliError(`format key=value expected, but got ${keyValue}`)
    combined.set(keyValue.slice(0, at), keyValue.slice(at + 1))
  }
  return [...combined.keys()].sort().map((name) => ({ name, value: combined.get(name) }))
}

// Go's error text for os.ReadFile failures.
function readFileLikeGo(path) {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    const texts = {
      ENOENT: 'no such file or directory',
      EACCES: 'permission denied',
      ENOTDIR: 'not a directory'
    }
    if (error.code === 'EISDIR') throw new CliError(`read ${path}: is a directory`)
    throw new CliError(`open ${path}: ${texts[error.code] ?? error.message}`)
  }
}

function parseVarsFile(file) {
  const content = readFileLikeGo(file)
  const ext = extname(file)
  if (ext === '.json') {
    let data
    try {
      data = JSON.parse(content)
    } catch (error) {
      throw new CliError(`unable to parse JSON content: ${error.message}`) // guess: Go's json text differs
    }
    // string and bool as text, anything else (numbers, lists, maps) as JSON, like the real CLI.
    return Object.entries(data ?? {}).map(([name, value]) => [
      name,
      typeof value === 'string' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value)
    ])
  }
  if (ext !== '.tfvars') throw new CliError(`unexpected tfvars format: ${ext}`)
  // The fake reads the simple HCL of tfvars files: name = "string" | number | ["a", "b"].
  const entries = []
  for (const raw of content.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#') || line.startsWith('//')) continue
    const m = /^([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(.+)$/.exec(line)
    let value
    try {
      value = m ? JSON.parse(m[2]) : undefined
    } catch {
      value = undefined
    }
    if (typeof value === 'string' || typeof value === 'number') entries.push([m[1], String(value)])
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
      entries.push([m[1], JSON.stringify(value)])
    else if (typeof value === 'boolean')
      throw new CliError(`unsupported value type (name: ${m[1]}): cty.Bool`)
    else throw new CliError(`fake coder: unsupported tfvars syntax in ${file}: ${line}`)
  }
  return entries
}

const YAML_NULLS = ['', '~', 'null', 'Null', 'NULL']
const isYamlNull = (YAML, node) =>
  node === null || (YAML.isScalar(node) && node.type === 'PLAIN' && YAML_NULLS.includes(node.value))

// The YAML 1.2 core tag yaml.v3 resolves a node to (its unmarshal errors name it).
function yamlTag(YAML, node) {
  if (YAML.isMap(node)) return '!!map'
  if (YAML.isSeq(node)) return '!!seq'
  if (node.type !== 'PLAIN') return '!!str'
  const text = String(node.value)
  if (/^(true|false|True|False|TRUE|FALSE)$/.test(text)) return '!!bool'
  if (/^[-+]?(0|[1-9][0-9_]*|0x[0-9a-fA-F_]+|0o?[0-7_]+)$/.test(text)) return '!!int'
  if (
    /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$/.test(
      text
    )
  )
    return '!!float'
  return '!!str'
}

const unmarshalErrors = (lines) => new CliError(`yaml: unmarshal errors:\n  ${lines.join('\n  ')}`)

// gopkg.in/yaml.v3 into map[string]string: every scalar keeps its text, null is "", and a
// non-map document or a nested value is an unmarshal error.
async function parseVariablesFile(path) {
  const content = readFileLikeGo(path)
  let mode = null
  try {
    mode = (statSync(path).mode & 0o777).toString(8)
  } catch {
    // read but not stat-able: leave the mode out
  }
  run.invocation.variablesFile = { path, mode, entries: null }
  const imported = await import('yaml') // resolved from this folder, inside the repository
  const YAML = imported.default ?? imported
  const lineCounter = new YAML.LineCounter()
  const doc = YAML.parseDocument(content, { schema: 'failsafe', uniqueKeys: false, lineCounter })
  const lineOf = (node) => lineCounter.linePos(node?.range?.[0] ?? 0).line
  if (doc.errors.length > 0) {
    // guess: yaml.v3 words its syntax errors differently; the line and the `yaml: ` prefix match
    const first = doc.errors[0]
    throw new CliError(
      `yaml: line ${first.linePos?.[0]?.line ?? 1}: ${first.message.split('\n')[0]}`
    )
  }
  const root = doc.contents
  const isNull = (node) => isYamlNull(YAML, node)
  const tagOf = (node) => yamlTag(YAML, node)
  if (isNull(root)) {
    run.invocation.variablesFile.entries = {}
    return []
  }
  if (!YAML.isMap(root)) {
    const shown = YAML.isScalar(root) ? ` \`${root.value}\`` : ''
    throw unmarshalErrors([
      `line ${lineOf(root)}: cannot unmarshal ${tagOf(root)}${shown} into map[string]string`
    ])
  }
  const entries = new Map()
  const firstLine = new Map()
  const errors = []
  for (const pair of root.items) {
    const key = isNull(pair.key) ? '' : String(pair.key?.value ?? '')
    if (firstLine.has(key)) {
      errors.push(
        `line ${lineOf(pair.key)}: mapping key ${JSON.stringify(key)} already defined at line ${firstLine.get(key)}`
      )
      continue
    }
    firstLine.set(key, lineOf(pair.key))
    if (isNull(pair.value)) entries.set(key, '')
    else if (YAML.isScalar(pair.value)) entries.set(key, String(pair.value.value))
    else
      errors.push(`line ${lineOf(pair.value)}: cannot unmarshal ${tagOf(pair.value)} into string`)
  }
  if (errors.length > 0) throw unmarshalErrors(errors)
  run.invocation.variablesFile.entries = Object.fromEntries(entries)
  return [...entries]
}
