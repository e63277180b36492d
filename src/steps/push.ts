// Step 3, push: the template version exists in Coder, inactive, under our name. Safe to run twice: a
// re-run finds its own version by the commit marker of its message and continues with it.
import type { CoderClient } from '../coder/client.js'
import { resolveCoderCli } from '../coder/cli.js'
import { type PushOutcome, pushTemplateVersion } from '../coder/push.js'
import { listTemplateVersions, VERSION_PAGE_SIZE } from '../coder/versions.js'
import type { CoderSettings } from '../settings/settings.js'
import { hasVersionMarker } from '../coder/version-identity.js'
import type { Preflight } from './preflight.js'
import { clockOf, failed, messageOf, type StepContext, type StepResult, succeeded } from './step.js'

/** `coder templates push` has no timeout of its own: ours. */
export const PUSH_TIMEOUT_MS = 20 * 60 * 1000
/** On a cancel, the CLI gets this long to cancel its import job (it traps SIGINT). */
export const PUSH_CANCEL_GRACE_MS = 3000

export interface Pushed {
  versionId: string
  /** The name Coder holds: old CLIs ignored --name creating a template (coder/coder#17031). */
  versionName: string
  createdAt?: string
  /** The template as Coder spells it (its lookup by name ignores case). */
  template: string
  /** The push created the template: its first version went live untested. */
  createdTemplate: boolean
  reused: boolean
  /**
   * Version name -> Coder's created_at, for every version of the template, archived ones included
   * (the list leaves them out unless include_archived=true). Read only when
   * asked (keep-tests): the commit step orders the manifests it prunes by these times.
   */
  versionCreatedAt?: Readonly<Record<string, string>>
}

export interface PushInput {
  coder: CoderSettings
  preflight: Pick<Preflight, 'organization' | 'template'>
  client: CoderClient
  tempDir?: string
  /** Read the creation times of the template's versions after the push (keep-tests is on). */
  readVersionTimes?: boolean
}

export async function pushVersion(
  input: PushInput,
  context: StepContext
): Promise<StepResult<Pushed>> {
  const { coder: settings, preflight } = input
  try {
    const cli = await resolveCoderCli({
      configuredPath: settings.cli,
      coderUrl: settings.url,
      client: input.client,
      signal: context.signal,
      log: context.log
    })
    const outcome = await pushTemplateVersion({
      client: input.client,
      cli: cli.path,
      coderUrl: settings.url,
      token: settings.token,
      organization: preflight.organization,
      passOrganization: settings.organization !== '',
      template: preflight.template,
      directory: settings.directory,
      version: settings.version,
      message: settings.message,
      variables: settings.variables,
      tempDir: input.tempDir,
      // Ours only when it carries our commit marker: a moved tag or a manual push must not be tested
      // in our place (the marker is anchored at the end, src/coder/version-identity.ts).
      isOwnVersion: (existing) =>
        existing.message === settings.message ||
        hasVersionMarker(existing.message, settings.commitSha),
      timeoutMs: PUSH_TIMEOUT_MS,
      clock: clockOf(context),
      signal: context.signal,
      log: context.log
    })
    const pushed = await pushedOf(input, outcome)
    const detail = outcome.reusedExistingVersion
      ? `version ${pushed.versionName} already existed (this commit pushed it); continued with it`
      : pushed.createdTemplate
        ? `created template ${pushed.template} with version ${pushed.versionName}: it is active, untested`
        : `pushed version ${pushed.versionName} (inactive)`
    return succeeded(pushed, detail)
  } catch (error) {
    if (context.signal.aborted) throw error
    return failed('push', messageOf(error), {
      advice: [
        'Read the CLI output in the log group of the push. A version name that is taken needs a new `version`.'
      ]
    })
  }
}

async function pushedOf(input: PushInput, outcome: PushOutcome): Promise<Pushed> {
  return {
    versionId: outcome.versionId,
    versionName: outcome.versionName,
    createdAt: outcome.createdAt,
    template: outcome.templateName,
    createdTemplate: !outcome.templateExisted,
    reused: outcome.reusedExistingVersion,
    ...(input.readVersionTimes
      ? { versionCreatedAt: await versionTimes(input.client, outcome.templateId) }
      : {})
  }
}

async function versionTimes(
  client: CoderClient,
  templateId: string
): Promise<Record<string, string>> {
  const versions = await listTemplateVersions(client, templateId, VERSION_PAGE_SIZE, true)
  const known = versions.filter((version) => version.created_at)
  return Object.fromEntries(known.map((version) => [version.name, version.created_at!]))
}
