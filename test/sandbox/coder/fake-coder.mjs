#!/usr/bin/env node
// Fake `coder` CLI for the sandbox: `coder templates push` and `coder version`, speaking the real
// REST API in the real order (coder-cli.md §1.2). Plain ESM so the sandbox can serve it at /bin/.
// Fake-only switches: FAKE_CODER_ARGV_LOG (append argv as one JSON line per run; never the env).
// Fake-only reporting: every run reports its argv, the template variables it sent and its exit
// code to the sandbox (POST <sandbox>/__sandbox/cli-invocations, outside Coder's API), so tests can
// assert on them; the environment (the token) is never reported.
/* global fetch, AbortSignal */
import { randomUUID } from 'node:crypto'
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, extname, isAbsolute, join, relative } from 'node:path'
import { Buffer } from 'node:buffer'
import { URL } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'

// The sandbox rewrites these lines when it serves the file: the CLI gets the server's version, the
// sandbox's URL for reports, and an absolute location of the `yaml` package (the served copy runs
// outside this repository).
const BUILT_IN_VERSION = 'v0.0.0-devel'
const SANDBOX_URL = ''
const YAML_MODULE = 'yaml'
const ARCHIVE_LIMIT = 1 << 20 // coder-cli.md §5
const POLL_MS = 100
const TEMPLATE_NAME_RE = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/
const VERSION_NAME_RE = /^[a-zA-Z0-9]+(?:[_.-][a-zA-Z0-9]+)*$/

class CliError extends Error {
  constructor(message, lines = []) {
    super(message)
    this.lines = lines
  }
}
// ErrCanceled: exit 1 without a message (coder-cli.md §1.3).
class Canceled extends Error {}

const argv = process.argv.slice(2)
if (process.env.FAKE_CODER_ARGV_LOG) {
  appendFileSync(process.env.FAKE_CODER_ARGV_LOG, JSON.stringify(argv) + '\n')
}

// --- reports to the sandbox (fake-only) ------------------------------------------------------

const invocation = {
  id: randomUUID(),
  argv,
  variables: null,
  variablesFile: null,
  exitCode: null,
  error: null
}

/** The sandbox to report to: the baked URL, else --url / CODER_URL (no report without one). */
function reportUrl() {
  if (SANDBOX_URL) return SANDBOX_URL
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--url' && argv[i + 1]) return argv[i + 1]
    if (argv[i].startsWith('--url=')) return argv[i].slice('--url='.length)
  }
  return process.env.CODER_URL || ''
}

async function report() {
  const base = reportUrl()
  if (!base) return
  try {
    await fetch(new URL('/__sandbox/cli-invocations', base), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(invocation),
      signal: AbortSignal.timeout(2000)
    })
  } catch {
    // not a sandbox, or gone: reports are best effort
  }
}

const out = (text) => process.stdout.write(text + '\n')
const err = (text) => process.stderr.write(text + '\n')

// --- flag parsing (serpent/pflag subset) -----------------------------------------------------

const PUSH_FLAGS = {
  directory: { short: 'd', type: 'string' },
  name: { type: 'string' },
  activate: { type: 'bool', default: true },
  yes: { short: 'y', type: 'bool' },
  message: { short: 'm', type: 'string' },
  variable: { type: 'array', alias: 'var' },
  'variables-file': { type: 'string' },
  'provisioner-tag': { type: 'array' },
  'ignore-lockfile': { type: 'bool' },
  'always-prompt': { type: 'bool' },
  org: { short: 'O', type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  'no-version-warning': { type: 'bool' },
  'force-tty': { type: 'bool' }
}

function parseFlags(args, spec) {
  const flags = {}
  const explicit = new Set()
  const positional = []
  const byName = (name) => {
    for (const [key, def] of Object.entries(spec)) {
      if (key === name || def.alias === name) return [key, def]
    }
    return undefined
  }
  const byShort = (short) => Object.entries(spec).find(([, def]) => def.short === short)
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    let entry
    let inline
    if (arg.startsWith('--') && arg.length > 2) {
      const [name, ...rest] = arg.slice(2).split('=')
      inline = rest.length ? rest.join('=') : undefined
      entry = byName(name)
      if (!entry) throw new CliError(`unknown flag: --${name}`)
    } else if (arg.startsWith('-') && arg.length > 1 && arg !== '-') {
      const short = arg.slice(1, 2)
      inline = arg.length > 2 ? arg.slice(2).replace(/^=/, '') : undefined
      entry = byShort(short)
      if (!entry) throw new CliError(`unknown shorthand flag: '${short}' in ${arg}`)
    } else {
      positional.push(arg)
      continue
    }
    const [key, def] = entry
    explicit.add(key)
    if (def.type === 'bool') {
      // `--activate false` leaves `false` as a positional argument (coder-cli.md §1.1).
      if (inline === undefined) flags[key] = true
      else if (inline === 'true' || inline === 'false') flags[key] = inline === 'true'
      else throw new CliError(`invalid argument "${inline}" for "--${key}" flag`)
      continue
    }
    const value = inline ?? args[++i]
    if (value === undefined) throw new CliError(`flag needs an argument: --${key}`)
    if (def.type === 'array') (flags[key] ??= []).push(value)
    else flags[key] = value
  }
  for (const [key, def] of Object.entries(spec)) {
    if (!(key in flags))
      flags[key] = def.default ?? (def.type === 'array' ? [] : def.type === 'bool' ? false : '')
  }
  return { flags, explicit, positional }
}

// --- REST client ----------------------------------------------------------------------------

function makeClient(url, token) {
  let versionChecked = false
  return async function api(method, path, body, contentType = 'application/json') {
    const headers = { 'Coder-Session-Token': token }
    let payload
    if (body !== undefined) {
      headers['Content-Type'] = contentType
      payload = contentType === 'application/json' ? JSON.stringify(body) : body
    }
    const response = await fetch(new URL(path, url), { method, headers, body: payload })
    if (!versionChecked) {
      versionChecked = true
      warnOnVersionMismatch(response.headers.get('x-coder-build-version') ?? '')
    }
    const text = await response.text()
    let data
    try {
      data = text ? JSON.parse(text) : undefined
    } catch {
      data = undefined
    }
    if (!response.ok) {
      const lines = []
      if (data?.detail) lines.push(data.detail)
      if (Array.isArray(data?.validations) && data.validations.length) {
        lines.push(`${data.validations.length} validation error(s) found`)
        for (const v of data.validations) lines.push(`\t${v.field}: ${v.detail}`)
      }
      const error = new CliError(data?.message ?? `unexpected status ${response.status}`, lines)
      error.status = response.status
      throw error
    }
    return data
  }
}

// coder-cli.md §4: major.minor mismatch warns once on stderr; dev builds always match.
function warnOnVersionMismatch(serverVersion) {
  if (process.env.CODER_NO_VERSION_WARNING === 'true') return
  const majorMinor = (v) => v.replace(/^v/, '').split('.').slice(0, 2).join('.')
  if (!serverVersion || BUILT_IN_VERSION.includes('devel') || serverVersion.includes('devel'))
    return
  if (majorMinor(serverVersion) === majorMinor(BUILT_IN_VERSION)) return
  err(`version mismatch: client ${BUILT_IN_VERSION}, server ${serverVersion}`)
  err(
    `download the server version with: 'curl -L https://coder.com/install.sh | sh -s -- --version ${serverVersion}'`
  )
}

// --- template archive -------------------------------------------------------------------------

// coder-cli.md §1.9: skip dot components (except .terraform.lock.hcl), state and tfvars files.
function skipped(relPath) {
  const parts = relPath.split(/[\\/]/)
  const base = parts[parts.length - 1]
  if (parts.some((p) => p.startsWith('.') && p !== '.terraform.lock.hcl')) return true
  if (relPath.includes('.tfstate')) return true
  return (
    base === 'terraform.tfvars' ||
    base === 'terraform.tfvars.json' ||
    /\.auto\.tfvars(\.json)?$/.test(base)
  )
}

function listFiles(root, dir = root) {
  const found = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    const rel = relative(root, full).split('\\').join('/')
    if (skipped(rel)) continue
    if (entry.isDirectory()) found.push(...listFiles(root, full))
    else if (entry.isFile()) found.push(rel) // symlinks are left out by the fake
  }
  return found.sort()
}

// A minimal ustar archive: one 512-byte header per regular file, two zero blocks at the end.
function tarHeader(name, size, mtime) {
  const header = Buffer.alloc(512)
  const put = (text, offset, length) => header.write(text, offset, length, 'utf8')
  const octal = (value, length) => value.toString(8).padStart(length - 1, '0') + '\0'
  put(name, 0, 100)
  put(octal(0o644, 8), 100, 8)
  put(octal(0, 8), 108, 8)
  put(octal(0, 8), 116, 8)
  put(octal(size, 12), 124, 12)
  put(octal(mtime, 12), 136, 12)
  put('        ', 148, 8)
  put('0', 156, 1)
  put('ustar\0', 257, 6)
  put('00', 263, 2)
  let sum = 0
  for (const byte of header) sum += byte
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8)
  return header
}

function tarDirectory(dir) {
  const files = listFiles(dir)
  if (!files.some((f) => f.endsWith('.tf') || f.endsWith('.tf.json'))) {
    throw new CliError(`${dir} is not a valid template since it has no [.tf .tf.json] files`)
  }
  const blocks = []
  for (const rel of files) {
    if (Buffer.byteLength(rel) > 100)
      throw new CliError(`fake coder: path too long for ustar: ${rel}`)
    const content = readFileSync(join(dir, rel))
    const mtime = Math.floor(statSync(join(dir, rel)).mtimeMs / 1000)
    blocks.push(tarHeader(rel, content.length, mtime), content)
    const pad = (512 - (content.length % 512)) % 512
    if (pad) blocks.push(Buffer.alloc(pad))
  }
  blocks.push(Buffer.alloc(1024))
  const archive = Buffer.concat(blocks)
  if (archive.length > ARCHIVE_LIMIT) {
    throw new CliError(`Archive too big. Must be <= ${ARCHIVE_LIMIT} bytes`)
  }
  return { archive, files }
}

// --- template variables (cli/templatevariables.go: ParseUserVariableValues) -------------------

// DiscoverVarsFiles: terraform.tfvars, terraform.tfvars.json, then *.auto.tfvars(.json) in
// directory order (Go's os.ReadDir sorts by name).
function discoverVarsFiles(dir) {
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

// Precedence tfvars < --variables-file < --variable (coder-cli.md §1.2 step 7); sorted by name.
async function parseUserVariableValues(varsFiles, variablesFile, commandLine) {
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
  invocation.variablesFile = { path, mode, entries: null }
  const imported = await import(YAML_MODULE)
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
    invocation.variablesFile.entries = {}
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
  invocation.variablesFile.entries = Object.fromEntries(entries)
  return [...entries]
}

// --- prompts ------------------------------------------------------------------------------------

// cliui.Prompt reads one line from stdin with no TTY check (coder-cli.md §1.4).
async function confirm(question) {
  process.stdout.write(`> ${question} (yes/no) `)
  const answer = await new Promise((resolve, reject) => {
    let buffer = ''
    const onData = (chunk) => {
      buffer += chunk.toString('utf8')
      const newline = buffer.indexOf('\n')
      if (newline >= 0) {
        process.stdin.pause()
        process.stdin.off('data', onData)
        resolve(buffer.slice(0, newline).trim())
      }
    }
    process.stdin.on('data', onData)
    process.stdin.once('end', () =>
      buffer.trim() ? resolve(buffer.trim()) : reject(new CliError('EOF'))
    )
    process.stdin.once('error', () => reject(new CliError('EOF')))
  })
  out('')
  if (answer !== 'yes' && answer !== 'y') throw new Canceled()
}

// --- templates push -----------------------------------------------------------------------------

function stamp(startedAt) {
  return `[${Date.now() - startedAt}ms]`
}

async function templatesPush(args) {
  const { flags, api, directory, templateName } = pushTarget(args)
  const org = await selectOrganization(api, flags)
  checkNames(templateName, flags)
  const template = await findTemplate(api, org, templateName)
  const varsFiles = warnBeforeUpload(flags, directory)
  const version = await uploadVersion(api, org, template, flags, directory, varsFiles)

  const job = await waitForImport(api, version.id)
  if (job.status === 'canceled') throw new Canceled()
  if (job.status === 'failed') throw new CliError(job.error || 'import failed')

  if (!template) {
    await api('POST', `/api/v2/organizations/${org.id}/templates`, {
      name: templateName,
      template_version_id: version.id
    })
    out(
      `The ${templateName} template has been created at ${new Date().toISOString()}! Developers can provision a workspace with this template using:`
    )
    out('')
    out(`   coder create --template="${templateName}" [workspace name]`)
  } else if (flags.activate) {
    await api('PATCH', `/api/v2/templates/${template.id}/versions`, { id: version.id })
  }
  out(`Updated version ${version.name} at ${new Date().toISOString()}!`)
}

/** The flags, the login, the template directory and the template name of a push. */
function pushTarget(args) {
  const { flags, explicit, positional } = parseFlags(args, PUSH_FLAGS)
  if (positional.length > 1) {
    throw new CliError(`wanted no more than 1 args but got ${positional.length}`)
  }
  const url = flags.url || process.env.CODER_URL || ''
  const token = flags.token || process.env.CODER_SESSION_TOKEN || ''
  if (!url || !token) {
    throw new CliError(
      `You are not logged in. Try logging in using '${basename(process.argv[1])} login <url>'.`
    )
  }
  const api = makeClient(url, token)

  // §1.4: without an explicit --directory and with a non-TTY stdin the real CLI reads a tar from
  // stdin. The fake refuses loudly instead of uploading an empty archive.
  const directory = flags.directory
  if (directory === '-' || (!explicit.has('directory') && !process.stdin.isTTY)) {
    throw new CliError(
      'fake coder: no explicit --directory and stdin is not a TTY: the real CLI would read a template tar from stdin (coder-cli.md §1.4); pass an absolute --directory'
    )
  }
  if (!isAbsolute(directory)) {
    throw new CliError(`fake coder: --directory must be absolute, got ${JSON.stringify(directory)}`)
  }
  return { flags, api, directory, templateName: positional[0] ?? basename(directory) }
}

// §1.8 organization selection
async function selectOrganization(api, flags) {
  const orgs = await api('GET', '/api/v2/users/me/organizations')
  const orgFlag = flags.org || process.env.CODER_ORGANIZATION || ''
  if (orgFlag) {
    const org = orgs.find((o) => o.name === orgFlag || o.id === orgFlag)
    if (!org) {
      throw new CliError(
        `organization "${orgFlag}" not found, are you sure you are a member of this organization? Valid options for '--org=' are [${orgs.map((o) => o.name).join(', ')}].`
      )
    }
    return org
  }
  if (orgs.length === 1) return orgs[0]
  throw new CliError(
    `Must select an organization with --org=<org_name>. Choose from: ${orgs.map((o) => o.name).join(', ')}`
  )
}

// §1.2 step 3 (newest CLIs)
function checkNames(templateName, flags) {
  if (!TEMPLATE_NAME_RE.test(templateName) || templateName.length > 32) {
    throw new CliError(
      `template name "${templateName}" is invalid: must be alphanumeric with hyphens`
    )
  }
  if (flags.name && (!VERSION_NAME_RE.test(flags.name) || flags.name.length > 64)) {
    throw new CliError(
      `template version name "${flags.name}" is invalid: must be alphanumeric with underscores and dots`
    )
  }
}

/** The template, or null when the organization has none of that name. */
async function findTemplate(api, org, templateName) {
  try {
    return await api(
      'GET',
      `/api/v2/organizations/${org.id}/templates/${encodeURIComponent(templateName)}`
    )
  } catch (error) {
    if (error.status !== 404) throw error
    return null
  }
}

/** The lockfile and tfvars notices; returns the tfvars files found. */
function warnBeforeUpload(flags, directory) {
  if (!flags['ignore-lockfile'] && !listFiles(directory).includes('.terraform.lock.hcl')) {
    out('No .terraform.lock.hcl file found')
    out(
      '  When provisioning, Coder will be unable to cache providers without a lockfile and must download them from the internet each time.'
    )
    out('  Create one by running  terraform init  in your template directory.')
  }

  // §1.2 step 7: tfvars files are found before the upload, their values parsed after it.
  const varsFiles = discoverVarsFiles(directory)
  if (varsFiles.length > 0) {
    out(
      'Auto-discovered Terraform tfvars files. Make sure to review and clean up any unused files.'
    )
  }
  return varsFiles
}

/** Confirm, upload the archive, then create the template version with its variables. */
async function uploadVersion(api, org, template, flags, directory, varsFiles) {
  if (!flags.yes) await confirm(`Upload "${directory}"?`)
  const { archive } = tarDirectory(directory)
  const file = await api('POST', '/api/v2/files', archive, 'application/x-tar')

  const variables = await parseUserVariableValues(
    varsFiles,
    flags['variables-file'],
    flags.variable
  )
  invocation.variables = variables

  return api('POST', `/api/v2/organizations/${org.id}/templateversions`, {
    ...(template ? { template_id: template.id } : {}),
    name: flags.name,
    message: flags.message || 'Uploaded from the CLI',
    storage_method: 'file',
    file_id: file.id,
    provisioner: 'terraform',
    tags: {},
    user_variable_values: variables
  })
}

// §1.2 step 11: poll the version; on SIGINT cancel the job (§1.3) and wait for the end.
async function waitForImport(api, versionId) {
  let cancelRequested = false
  const onInterrupt = () => {
    if (cancelRequested) return
    cancelRequested = true
    out('Gracefully canceling...')
    api('PATCH', `/api/v2/templateversions/${versionId}/cancel`).catch(() => {})
  }
  process.on('SIGINT', onInterrupt)
  const startedAt = Date.now()
  let shown = ''
  try {
    for (;;) {
      const current = await api('GET', `/api/v2/templateversions/${versionId}`)
      const status = current.job.status
      if (status !== shown) {
        if (shown === 'pending') out(`=== ✔ Queued ${stamp(startedAt)}`)
        if (status === 'pending') out('==> ⧗ Queued')
        if (status === 'running') out('==> ⧗ Setting up')
        shown = status
      }
      if (status === 'succeeded') {
        out(`=== ✔ Setting up ${stamp(startedAt)}`)
        return current.job
      }
      if (status === 'failed' || status === 'canceled') {
        out(`=== ✘ Setting up ${stamp(startedAt)}`)
        return current.job
      }
      await sleep(POLL_MS)
    }
  } finally {
    process.off('SIGINT', onInterrupt)
  }
}

async function main() {
  await report()
  if (argv[0] === '--version' || argv[0] === 'version') {
    out(`Coder ${BUILT_IN_VERSION} (fake)`)
    return
  }
  if (argv[0] === 'templates' && argv[1] === 'push') {
    await templatesPush(argv.slice(2))
    return
  }
  throw new CliError(`fake coder: unsupported command ${JSON.stringify(argv.join(' '))}`)
}

async function finish(exitCode, error) {
  invocation.exitCode = exitCode
  invocation.error = error
  await report()
  process.exit(exitCode)
}

main().then(
  () => finish(0, null),
  (error) => {
    let message = null
    if (!(error instanceof Canceled)) {
      const command = argv[0] === 'templates' ? `coder templates ${argv[1] ?? ''}`.trim() : 'coder'
      message = error instanceof CliError ? error.message : String(error?.stack ?? error)
      err(`Encountered an error running "${command}", see "${command} --help" for more information`)
      err(`error: ${message}`)
      for (const line of error?.lines ?? []) err(line)
    }
    return finish(1, message)
  }
)
