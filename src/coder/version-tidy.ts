// keep-versions and archive-failed: which of a template's versions to archive. Pure; the tidy step
// lists the versions and sends the archive requests (action.yml, keep-versions).
import { carriesGateMarker } from './version-identity.js'

export interface ListedVersion {
  id: string
  name: string
  /** Coder's created_at (RFC 3339). */
  createdAt?: string
  message: string
  /** The import job is pending, running or canceling: another run may still be pushing it. */
  importing: boolean
}

export type KeptWhy = 'active' | 'starting-active' | 'this-run' | 'importing' | 'unknown-created-at'

export interface TidyChoiceInput {
  /** The template's versions that are not archived, in any order. */
  versions: ListedVersion[]
  /** keep-versions: 0 keeps every version. */
  keep: number
  /** The active version read right before the choice; absent when unknown. */
  activeId?: string
  /** The version active when the run started (the rollback target); absent when none. */
  startingActiveId?: string
  /** This run's version; absent when the push never named one. */
  oursId?: string
  /** archive-failed applies: this run's test ended Failed. */
  archiveOurs: boolean
}

export interface TidyChoice {
  /** Oldest first. */
  archive: ListedVersion[]
  /** Versions beyond the newest N that stay anyway, and why. */
  kept: { version: ListedVersion; why: KeptWhy }[]
}

/**
 * Newest first by created_at; equal times by ID, the larger first. The tie-break is arbitrary but
 * fixed, so two runs over the same list choose the same versions.
 */
export function newestFirst(a: ListedVersion, b: ListedVersion): number {
  const byTime = Date.parse(b.createdAt ?? '') - Date.parse(a.createdAt ?? '')
  if (byTime !== 0) return byTime
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

/** Why a version must stay whatever N says; null when it may go. */
function protection(version: ListedVersion, input: TidyChoiceInput): KeptWhy | null {
  if (version.id === input.activeId) return 'active'
  if (version.id === input.startingActiveId) return 'starting-active'
  if (version.id === input.oursId && !input.archiveOurs) return 'this-run'
  if (version.importing) return 'importing'
  if (Number.isNaN(Date.parse(version.createdAt ?? ''))) return 'unknown-created-at'
  return null
}

export function chooseVersionsToArchive(input: TidyChoiceInput): TidyChoice {
  // Versions another writer pushed carry no marker: they are never counted nor archived.
  const gatePushed = input.versions.filter((v) => carriesGateMarker(v.message))
  const ours = input.archiveOurs ? gatePushed.find((v) => v.id === input.oursId) : undefined
  // A failed version that goes anyway does not take one of the N places.
  const ranked = gatePushed
    .filter((v) => v !== ours && !Number.isNaN(Date.parse(v.createdAt ?? '')))
    .sort(newestFirst)
  const undated = gatePushed.filter(
    (v) => v !== ours && Number.isNaN(Date.parse(v.createdAt ?? ''))
  )
  const beyond = input.keep > 0 ? [...ranked.slice(input.keep), ...undated] : []
  const candidates = ours ? [ours, ...beyond] : beyond
  const choice: TidyChoice = { archive: [], kept: [] }
  for (const version of candidates) {
    const why = protection(version, input)
    if (why === null) choice.archive.push(version)
    else choice.kept.push({ version, why })
  }
  choice.archive.sort((a, b) => newestFirst(b, a))
  return choice
}

export const KEPT_TEXT: Record<KeptWhy, string> = {
  active: 'the active version',
  'starting-active': 'active when the run started (the rollback target)',
  'this-run': "this run's version",
  importing: 'its import is still running',
  'unknown-created-at': 'Coder gave no creation time'
}

const MAX_WARNING_REASON = 300

/**
 * A refused archive as one warning line. Coder's message is data: the StepLog's warning is an
 * annotation whose text core escapes (`%`, CR, LF), and the reason is flattened to one short line.
 */
export function refusedArchiveWarning(name: string, note: string): string {
  const flat = note.replace(/\s+/g, ' ').trim()
  const reason =
    flat.length > MAX_WARNING_REASON ? `${flat.slice(0, MAX_WARNING_REASON - 1)}…` : flat
  return `Version ${name} was not archived (keep-versions / archive-failed): ${reason}. It stays in Coder.`
}
