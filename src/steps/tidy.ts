// keep-versions and archive-failed: after the outcome is known, archive this template's older
// gate-pushed versions and, when its test ended Failed, this run's version. Never fails the run: a
// problem here is a warning, and the summary lists what stayed (action.yml, keep-versions).
import type { CoderClient, CoderTemplateVersion } from '../coder/client.js'
import { isJobActive } from '../coder/client.js'
import { archiveVersion, listTemplateVersions } from '../coder/versions.js'
import type { TidySettings } from '../settings/settings.js'
import {
  chooseVersionsToArchive,
  KEPT_TEXT,
  type ListedVersion,
  refusedArchiveWarning
} from '../coder/version-tidy.js'
import { messageOf, type StepContext, type StepResult, succeeded } from './step.js'

export interface TidyInput {
  settings: TidySettings
  /** promote: dry-run: list what would be archived, archive nothing. */
  dryRun: boolean
  client: CoderClient
  organization: string
  template: string
  /** The version active when the run started; absent when none. */
  startingActiveId?: string
  /** This run's version; null when the push never named one. */
  ours: { id: string; name: string } | null
  /** This run's test ended Failed: archive-failed applies. */
  testFailed: boolean
}

export interface Tidied {
  /** Names, oldest first. */
  archived: string[]
  /** dry-run: what would have been archived. */
  wouldArchive: string[]
  /** `<name>: <why>` for each version chosen that Coder did not archive, or that stays anyway. */
  notes: string[]
  /** This run's version was archived (archive-failed). */
  oursArchived: boolean
  /** What went wrong, absent when nothing did; the run does not fail for it. */
  warning?: string
}

export function tidyWanted(settings: TidySettings, testFailed: boolean): boolean {
  return settings.keepVersions > 0 || (settings.archiveFailed && testFailed)
}

function listed(version: CoderTemplateVersion): ListedVersion {
  return {
    id: version.id,
    name: version.name,
    createdAt: version.created_at,
    message: version.message ?? '',
    importing: isJobActive(version.job?.status ?? '')
  }
}

export async function tidyVersions(
  input: TidyInput,
  context: StepContext
): Promise<StepResult<Tidied>> {
  const tidied: Tidied = {
    archived: [],
    wouldArchive: [],
    notes: [],
    oursArchived: false
  }
  let chosen: ListedVersion[] = []
  try {
    const template = await input.client.template(input.organization, input.template)
    if (!template) throw new Error(`template ${input.template} was not found`)
    const versions = await listTemplateVersions(input.client, template.id)
    const choice = chooseVersionsToArchive({
      versions: versions.map(listed),
      keep: input.settings.keepVersions,
      activeId: template.active_version_id,
      startingActiveId: input.startingActiveId,
      oursId: input.ours?.id,
      archiveOurs: input.settings.archiveFailed && input.testFailed
    })
    for (const kept of choice.kept)
      tidied.notes.push(`${kept.version.name}: kept, ${KEPT_TEXT[kept.why]}`)
    chosen = choice.archive
    if (input.dryRun) {
      tidied.wouldArchive = chosen.map((v) => v.name)
      return succeeded(tidied, `would archive ${countOf(chosen.length)} (dry-run)`)
    }
    for (const version of chosen) await archiveOne(version, input, tidied, context)
  } catch (error) {
    // A cancel after the outcome is known does not change the outcome: what stayed is a warning.
    const why = context.signal.aborted ? 'the run was cancelled' : messageOf(error)
    const stayed = chosen.filter((v) => !tidied.archived.includes(v.name)).map((v) => v.name)
    tidied.warning = `Archiving old versions stopped: ${why}.${stayed.length > 0 ? ` These stay: ${stayed.join(', ')}.` : ''}`
    context.log.warning(tidied.warning)
  }
  return succeeded(tidied, `archived ${countOf(tidied.archived.length)}`)
}

async function archiveOne(
  version: ListedVersion,
  input: TidyInput,
  tidied: Tidied,
  context: StepContext
): Promise<void> {
  const answer = await archiveVersion(input.client, version.id)
  if (answer.archived) {
    tidied.archived.push(version.name)
    if (version.id === input.ours?.id) tidied.oursArchived = true
    context.log.info(`Archived version ${version.name}`)
    return
  }
  tidied.notes.push(`${version.name}: not archived, ${answer.note}`)
  if (answer.why === 'refused')
    context.log.warning(refusedArchiveWarning(version.name, answer.note))
  else context.log.info(`Version ${version.name} was not archived: ${answer.note}`)
}

function countOf(n: number): string {
  return n === 1 ? '1 version' : `${n} versions`
}

/** How to bring back a version: `coder templates versions unarchive [flags] <template> [versions...]` (Coder's CLI reference). */
export function unarchiveCommand(organization: string, template: string, version: string): string {
  return `coder templates versions unarchive ${template} ${version}${organization ? ` -O ${organization}` : ''}`
}
