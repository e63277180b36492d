// The push step: the tested version exists in Coder, inactive, under the wanted name.
// Safe to run twice: a re-run finds the version by name and continues with it.
import type { CoderTemplate, CoderTemplateVersion } from './client.js'
import { runTemplatesPush, type TemplatesPushResult } from './cli.js'
import { reuse } from './push-reuse.js'
import type { PushLog, PushTemplateVersionInput } from './push-input.js'

export type { PushLog, PushTemplateVersionInput } from './push-input.js'

export interface PushOutcome {
  versionId: string
  /** The name Coder holds; differs from the input only on old CLIs creating a template. */
  versionName: string
  /** Coder's created_at of the version: the promotion guard compares it (absent when Coder did not say). */
  createdAt?: string
  templateId: string
  /** The template's name as Coder holds it (lookup by name is case-insensitive). */
  templateName: string
  templateExisted: boolean
  reusedExistingVersion: boolean
  /** null when the template did not exist before the push. */
  activeVersionIdBeforePush: string | null
}

export { CLI_DEFAULT_MESSAGE } from './push-reuse.js'

export async function pushTemplateVersion(input: PushTemplateVersionInput): Promise<PushOutcome> {
  const { organization, template, version } = input
  const push: PushContext = {
    input,
    log: input.log,
    where: `version "${version}" of template "${template}" in organization "${organization}"`,
    // 1. The state before the push.
    before: await input.client.template(organization, template)
  }

  // 2. Pre-flight: a re-run, or a name taken by a failed import.
  const rerun = await findRerun(push)
  if (rerun) return outcome(push, rerun, true)

  // 3. The push.
  const raced = await pushWithCli(push)
  if (raced) return outcome(push, raced, true)

  // 4. Resolve what was pushed over REST: the CLI never prints the version ID.
  const pushed = await resolvePushed(push)

  // 5. Coder activates the only version of a new template; --activate=false cannot stop it.
  if (!push.before) {
    push.log.warning(
      `Template "${template}" did not exist, so Coder created it with ${push.where} as its active version: ` +
        '--activate=false has no effect on a new template. Users can use this version before its test has passed.'
    )
  }
  return outcome(push, pushed, false)
}

/** What the push steps share: the input, where to log, the version's description, the state before. */
interface PushContext {
  input: PushTemplateVersionInput
  log: PushLog
  where: string
  before: CoderTemplate | null
}

async function outcome(
  { input, where, before }: PushContext,
  found: CoderTemplateVersion,
  reused: boolean
): Promise<PushOutcome> {
  if (!found.template_id) {
    throw new Error(`Coder answered ${where} without a template ID; the push did not finish.`)
  }
  const { client, organization, template } = input
  return {
    versionId: found.id,
    versionName: found.name,
    createdAt: found.created_at,
    templateId: found.template_id,
    templateName: (before ?? (await client.template(organization, template)))?.name ?? template,
    templateExisted: before !== null,
    reusedExistingVersion: reused,
    activeVersionIdBeforePush: before?.active_version_id ?? null
  }
}

/** A version with our name pushed by a previous run of this commit, once usable; null if none. */
async function findRerun({
  input,
  log,
  where,
  before
}: PushContext): Promise<CoderTemplateVersion | null> {
  if (!before) return null
  const existing = await input.client.versionByName(
    input.organization,
    input.template,
    input.version
  )
  if (!existing) return null
  const settled = await reuse(input, existing, where, log)
  log.info(
    `A re-run: a previous run of this commit already pushed ${where} (ID ${settled.id}); continuing with it instead of pushing again.`
  )
  if (before.active_version_id === settled.id) {
    log.info(`That version is already the active version of "${input.template}".`)
  }
  return settled
}

/**
 * Runs the CLI; throws unless it succeeded. Returns the version another run pushed under our name
 * (a re-run racing this one), or null when this push created it.
 */
async function pushWithCli({
  input,
  log,
  where
}: PushContext): Promise<CoderTemplateVersion | null> {
  const { client, organization, template, version } = input
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
    tempDir: input.tempDir,
    timeoutMs: input.timeoutMs,
    killGraceMs: input.killGraceMs,
    signal: input.signal,
    output: input.output,
    log: input.log
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
  if (result.exitCode === 0) return null
  const output = `${result.stdout}\n${result.stderr}`
  // Coder's 409: a concurrent or earlier run created the name between our check and push.
  if (output.includes('already exists for this template')) {
    const existing = await client.versionByName(organization, template, version)
    if (existing) {
      const settled = await reuse(input, existing, where, log)
      log.info(
        `Coder already holds ${where} (ID ${settled.id}), pushed by another run of this commit (a re-run racing this one); continuing with it.`
      )
      return settled
    }
  }
  throw new Error(`coder templates push failed for ${where}: ${cliErrorText(result)}`)
}

/** The version the CLI pushed, read back by name; throws unless its import succeeded. */
async function resolvePushed({
  input,
  log,
  where,
  before
}: PushContext): Promise<CoderTemplateVersion> {
  const { client, organization, template, version } = input
  let pushed = await client.versionByName(organization, template, version)
  if (!pushed && !before) {
    // Older CLIs ignored --name when creating a template (coder/coder#17031).
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
  return pushed
}

/** Coder's message: the `error:` line and what follows it. */
function cliErrorText(result: TemplatesPushResult): string {
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
