// The push step: the tested version exists in Coder, inactive, under the wanted name.
// Safe to run twice: a re-run finds the version by name and continues with it.
import * as core from '@actions/core'
import { type CoderClient, type CoderTemplateVersion, isJobActive, sleep } from './client.js'
import { runTemplatesPush, type TemplatesPushResult } from './cli.js'

export interface PushLog {
  info(message: string): void
  warning(message: string): void
}

export interface PushTemplateVersionInput {
  client: Pick<CoderClient, 'template' | 'versionByName' | 'versionById'>
  cli: string
  coderUrl: string
  token: string
  /** Canonical organization name (or ID) for REST paths. */
  organization: string
  /** Pass `--org <organization>` to the CLI; only when the user set it: CLIs before ~v2.13 reject
   * the flag (coder-cli.md §1.1), and without it a one-organization user gets that organization. */
  passOrganization?: boolean
  template: string
  directory: string
  version: string
  message?: string
  /**
   * Whether an existing version with our name is this commit's push (a re-run) rather than someone
   * else's (a moved tag, a manual push). Default: its message equals the message we push.
   */
  isOwnVersion?: (existing: CoderTemplateVersion) => boolean
  variables?: { name: string; value: string }[]
  /** Limit of the CLI run, and of the wait for an import another run started. */
  timeoutMs: number
  killGraceMs?: number
  /** Poll interval while waiting for an import already running. Default 2 s. */
  pollIntervalMs?: number
  signal?: AbortSignal
  log?: PushLog
  /** Where the CLI output is shown. Default process.stdout. */
  output?: NodeJS.WritableStream
}

export interface PushOutcome {
  versionId: string
  /** The name Coder holds; differs from the input only on old CLIs creating a template (§1.5). */
  versionName: string
  templateId: string
  /** The template's name as Coder holds it (lookup by name is case-insensitive, §2). */
  templateName: string
  templateExisted: boolean
  reusedExistingVersion: boolean
  /** null when the template did not exist before the push. */
  activeVersionIdBeforePush: string | null
}

const coreLog: PushLog = { info: core.info, warning: (m) => core.warning(m) }

// coder-cli.md §1.1: with an empty --message the CLI sends this one.
export const CLI_DEFAULT_MESSAGE = 'Uploaded from the CLI'
const SHOWN_MESSAGE_LIMIT = 200

export async function pushTemplateVersion(input: PushTemplateVersionInput): Promise<PushOutcome> {
  const log = input.log ?? coreLog
  const { client, organization, template, version } = input
  const where = `version "${version}" of template "${template}" in organization "${organization}"`

  // 1. The state before the push.
  const before = await client.template(organization, template)
  const activeVersionIdBeforePush = before?.active_version_id ?? null

  const outcome = async (found: CoderTemplateVersion, reused: boolean): Promise<PushOutcome> => {
    if (!found.template_id) {
      throw new Error(`Coder answered ${where} without a template ID; the push did not finish.`)
    }
    return {
      versionId: found.id,
      versionName: found.name,
      templateId: found.template_id,
      templateName: (before ?? (await client.template(organization, template)))?.name ?? template,
      templateExisted: before !== null,
      reusedExistingVersion: reused,
      activeVersionIdBeforePush
    }
  }

  // 2. Pre-flight: a re-run, or a name taken by a failed import.
  if (before) {
    const existing = await client.versionByName(organization, template, version)
    if (existing) {
      const settled = await reuse(input, existing, where)
      log.info(
        `A re-run: a previous run of this commit already pushed ${where} (ID ${settled.id}); continuing with it instead of pushing again.`
      )
      if (before.active_version_id === settled.id) {
        log.info(`That version is already the active version of "${template}".`)
      }
      return outcome(settled, true)
    }
  }

  // 3. The push.
  const result = await runTemplatesPush({
    cli: input.cli,
    coderUrl: input.coderUrl,
    token: input.token,
    template,
    directory: input.directory,
    version,
    organization: input.passOrganization ? organization : undefined,
    message: input.message,
    variables: input.variables,
    timeoutMs: input.timeoutMs,
    killGraceMs: input.killGraceMs,
    signal: input.signal,
    output: input.output
  })
  if (result.aborted) {
    throw new Error(`Cancelled while pushing ${where}; the CLI was interrupted.`)
  }
  // An exit 0 that raced the time limit is a finished push.
  if (result.timedOut && result.exitCode !== 0) {
    throw new Error(
      `coder templates push did not finish within ${input.timeoutMs / 1000} s while pushing ${where}; ` +
        'the CLI was interrupted (SIGINT cancels the import). Check that a provisioner is online for this organization and its tags, and that every required template variable is given.'
    )
  }
  if (result.exitCode !== 0) {
    const output = `${result.stdout}\n${result.stderr}`
    // coder-cli.md §1.6: a concurrent or earlier run created the name between our check and push.
    if (output.includes('already exists for this template')) {
      const existing = await client.versionByName(organization, template, version)
      if (existing) {
        const settled = await reuse(input, existing, where)
        log.info(
          `Coder already holds ${where} (ID ${settled.id}), pushed by another run of this commit (a re-run racing this one); continuing with it.`
        )
        return outcome(settled, true)
      }
    }
    throw new Error(`coder templates push failed for ${where}: ${cliErrorText(result)}`)
  }

  // 4. Resolve what was pushed over REST: the CLI never prints the version ID (§1.2 step 15).
  let pushed = await client.versionByName(organization, template, version)
  if (!pushed && !before) {
    // coder-cli.md §1.5: older CLIs ignored --name when creating a template.
    const created = await client.template(organization, template)
    const active = created ? await client.versionById(created.active_version_id) : null
    if (active) {
      log.warning(
        `Coder did not keep the version name "${version}" for the first version of the new template "${template}" ` +
          `(older Coder CLIs ignore --name on create); continuing with its active version "${active.name}" (ID ${active.id}).`
      )
      pushed = active
    }
  }
  if (!pushed) {
    throw new Error(
      `coder templates push reported success, but Coder has no ${where}. Check that the template name and organization are the ones the CLI used.`
    )
  }
  if (pushed.job.status !== 'succeeded') {
    throw new Error(
      `The import of ${where} ended as "${pushed.job.status}"${pushed.job.error ? `: ${pushed.job.error}` : ''}.`
    )
  }

  // 5. §1.5: Coder activates the only version of a new template; --activate=false cannot stop it.
  if (!before) {
    log.warning(
      `Template "${template}" did not exist, so Coder created it with ${where} as its active version: ` +
        '--activate=false has no effect on a new template. Users can use this version before its test has passed.'
    )
  }
  return outcome(pushed, false)
}

/**
 * An existing version with our name is usable only if this commit pushed it and it imported.
 * Ownership is checked before waiting: a stranger's running import is not worth the wait.
 */
async function reuse(
  input: PushTemplateVersionInput,
  existing: CoderTemplateVersion,
  where: string
): Promise<CoderTemplateVersion> {
  // A failed or canceled import gets requireUsable's message: the name is lost either way.
  if (existing.job.status !== 'failed' && existing.job.status !== 'canceled') {
    requireOwn(input, existing, where)
  }
  const settled = await settle(input, existing)
  requireUsable(settled, where)
  return settled
}

function requireOwn(
  input: PushTemplateVersionInput,
  existing: CoderTemplateVersion,
  where: string
): void {
  const ownMessage = input.message || CLI_DEFAULT_MESSAGE
  const isOwn = input.isOwnVersion ?? ((v: CoderTemplateVersion) => v.message === ownMessage)
  if (isOwn(existing)) return
  const message = existing.message ?? ''
  const shown =
    message.length > SHOWN_MESSAGE_LIMIT ? `${message.slice(0, SHOWN_MESSAGE_LIMIT)}…` : message
  const author = existing.created_by?.username ? `, created by ${existing.created_by.username}` : ''
  throw new Error(
    `The name is taken: Coder already holds ${where} (ID ${existing.id}${author}, message ${JSON.stringify(shown)}), ` +
      'but this commit did not push it (a moved tag or a manual push?). Coder version names cannot be reused: ' +
      'push under a new version name.'
  )
}

/** Waits while the version's import is active, bounded by the push time limit. */
async function settle(
  input: PushTemplateVersionInput,
  found: CoderTemplateVersion
): Promise<CoderTemplateVersion> {
  const deadline = Date.now() + input.timeoutMs
  let current = found
  const log = input.log ?? coreLog
  if (isJobActive(current.job.status)) {
    log.info(
      `The import of version "${current.name}" is still ${current.job.status} (started by another run); waiting for it.`
    )
  }
  while (isJobActive(current.job.status)) {
    if (Date.now() >= deadline) {
      throw new Error(
        `The import of version "${current.name}" of template "${input.template}" was still ${current.job.status} after ${Math.round(input.timeoutMs / 1000)} s.`
      )
    }
    await sleep(input.pollIntervalMs ?? 2_000, input.signal)
    const next = await input.client.versionByName(input.organization, input.template, current.name)
    if (!next) {
      throw new Error(
        `Version "${current.name}" of template "${input.template}" disappeared while its import was running.`
      )
    }
    current = next
  }
  return current
}

function requireUsable(version: CoderTemplateVersion, where: string): void {
  const status = version.job.status
  if (status !== 'succeeded') {
    const error = version.job.error ? `: ${version.job.error}` : ''
    throw new Error(
      `The name is taken: ${where} already exists and its import ${status === 'failed' ? 'failed' : `is ${status}`}${error}. ` +
        'Coder keeps the names of failed versions; choose a new version name (or rename the old version).'
    )
  }
  if (version.archived) {
    throw new Error(
      `The name is taken: ${where} already exists and is archived, so it cannot be promoted. Unarchive it or choose a new version name.`
    )
  }
}

/** Coder's message: the `error:` line and what follows it (coder-cli.md §1.3). */
export function cliErrorText(result: TemplatesPushResult): string {
  const lines = result.stderr.split(/\r?\n/)
  const start = lines.findIndex((line) => line.startsWith('error: '))
  if (start >= 0) {
    return lines
      .slice(start)
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .join(' ')
      .replace(/^error: /, '')
  }
  const tail = lines
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(-5)
    .join(' ')
  return `the CLI exited with code ${result.exitCode}${result.signal ? ` (${result.signal})` : ''} without an error message${tail ? `; last output: ${tail}` : ' (an import canceled in Coder ends silently)'}.`
}
