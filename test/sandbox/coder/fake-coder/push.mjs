// `coder templates push` of the fake CLI, speaking the real REST API in the real order
// (coder/coder cli/templatepush.go).
import { basename, isAbsolute } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Canceled, CliError, out, run } from './common.mjs'
import { PUSH_FLAGS, parseFlags } from './flags.mjs'
import { makeClient } from './client.mjs'
import { listFiles, tarDirectory } from './archive.mjs'
import { discoverVarsFiles, parseUserVariableValues } from './variables.mjs'

const POLL_MS = 100
const TEMPLATE_NAME_RE = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/
const VERSION_NAME_RE = /^[a-zA-Z0-9]+(?:[_.-][a-zA-Z0-9]+)*$/

// cliui.Prompt reads one line from stdin with no TTY check.
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

export async function templatesPush(args) {
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

  // Without an explicit --directory and with a non-TTY stdin the real CLI reads a tar from
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

// Organization selection
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

// Name validation (newest CLIs)
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

  // tfvars files are found before the upload, their values parsed after it.
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
  run.invocation.variables = variables

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

// Poll the version; on SIGINT cancel the job and wait for the end.
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
