// Reusing a version that already holds our name: only this commit's, and only once it imported.
import { systemClock } from '../timing/clock.js'
import { type CoderTemplateVersion, isJobActive } from './client.js'
import type { PushLog, PushTemplateVersionInput } from './push-input.js'

// With an empty --message the CLI sends this one (coder/coder cli/templatepush.go).
export const CLI_DEFAULT_MESSAGE = 'Uploaded from the CLI'
const SHOWN_MESSAGE_LIMIT = 200

/**
 * An existing version with our name is usable only if this commit pushed it and it imported.
 * Ownership is checked before waiting: a stranger's running import is not worth the wait.
 */
export async function reuse(
  input: PushTemplateVersionInput,
  existing: CoderTemplateVersion,
  where: string,
  log: PushLog
): Promise<CoderTemplateVersion> {
  // A failed or canceled import gets requireUsable's message: the name is lost either way.
  if (existing.job.status !== 'failed' && existing.job.status !== 'canceled') {
    requireOwn(input, existing, where)
  }
  const settled = await settle(input, existing, log)
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
  found: CoderTemplateVersion,
  log: PushLog
): Promise<CoderTemplateVersion> {
  const clock = input.clock ?? systemClock
  const deadline = clock.now() + input.timeoutMs
  let current = found
  if (isJobActive(current.job.status)) {
    log.info(
      `The import of version "${current.name}" is still ${current.job.status} (started by another run); waiting for it.`
    )
  }
  while (isJobActive(current.job.status)) {
    if (clock.now() >= deadline) {
      throw new Error(
        `The import of version "${current.name}" of template "${input.template}" was still ${current.job.status} after ${Math.round(input.timeoutMs / 1000)} s.`
      )
    }
    await clock.sleep(input.pollIntervalMs ?? 2_000, input.signal)
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
