#!/usr/bin/env node
// Fake `coder` CLI for the sandbox: `coder templates push` and `coder version`, speaking the real
// REST API in the real order (coder-cli.md §1.2). Plain ESM so the sandbox can serve it at /bin/.
// Fake-only switches: FAKE_CODER_ARGV_LOG (append argv as one JSON line per run; never the env).
/* global fetch */
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, isAbsolute, join, relative } from 'node:path'
import { Buffer } from 'node:buffer'
import { URL } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'

// The sandbox rewrites this line when it serves the file, so the CLI has the server's version.
const BUILT_IN_VERSION = 'v0.0.0-devel'
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
  const templateName = positional[0] ?? basename(directory)

  // §1.8 organization selection
  const orgs = await api('GET', '/api/v2/users/me/organizations')
  const orgFlag = flags.org || process.env.CODER_ORGANIZATION || ''
  let org
  if (orgFlag) {
    org = orgs.find((o) => o.name === orgFlag || o.id === orgFlag)
    if (!org) {
      throw new CliError(
        `organization "${orgFlag}" not found, are you sure you are a member of this organization? Valid options for '--org=' are [${orgs.map((o) => o.name).join(', ')}].`
      )
    }
  } else if (orgs.length === 1) {
    org = orgs[0]
  } else {
    throw new CliError(
      `Must select an organization with --org=<org_name>. Choose from: ${orgs.map((o) => o.name).join(', ')}`
    )
  }

  // §1.2 step 3 (newest CLIs)
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
  for (const variable of flags.variable) {
    if (!variable.includes('='))
      throw new CliError(`format key=value expected, but got ${variable}`)
  }

  let template = null
  try {
    template = await api(
      'GET',
      `/api/v2/organizations/${org.id}/templates/${encodeURIComponent(templateName)}`
    )
  } catch (error) {
    if (error.status !== 404) throw error
  }

  if (!flags['ignore-lockfile'] && !listFiles(directory).includes('.terraform.lock.hcl')) {
    out('No .terraform.lock.hcl file found')
    out(
      '  When provisioning, Coder will be unable to cache providers without a lockfile and must download them from the internet each time.'
    )
    out('  Create one by running  terraform init  in your template directory.')
  }

  if (!flags.yes) await confirm(`Upload "${directory}"?`)
  const { archive } = tarDirectory(directory)
  const file = await api('POST', '/api/v2/files', archive, 'application/x-tar')

  const version = await api('POST', `/api/v2/organizations/${org.id}/templateversions`, {
    ...(template ? { template_id: template.id } : {}),
    name: flags.name,
    message: flags.message || 'Uploaded from the CLI',
    storage_method: 'file',
    file_id: file.id,
    provisioner: 'terraform',
    tags: {},
    user_variable_values: flags.variable.map((v) => {
      const at = v.indexOf('=')
      return { name: v.slice(0, at), value: v.slice(at + 1) }
    })
  })

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

main().then(
  () => process.exit(0),
  (error) => {
    if (!(error instanceof Canceled)) {
      const command = argv[0] === 'templates' ? `coder templates ${argv[1] ?? ''}`.trim() : 'coder'
      err(`Encountered an error running "${command}", see "${command} --help" for more information`)
      err(`error: ${error instanceof CliError ? error.message : String(error?.stack ?? error)}`)
      for (const line of error?.lines ?? []) err(line)
    }
    process.exit(1)
  }
)
