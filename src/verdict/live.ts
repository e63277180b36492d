// mode: verify, the decisions (docs/how-to/live.md): the result from the test
// and the active version at the start and at the end, and the rollback target from rollback-to.
// RolledBack is never decided here: only this run's own rollback, applied, makes it (steps/verify.ts).
// Pure: every row has a table test (test/unit/verdict/live.test.ts).
import { isUuid } from '../coder/version-identity.js'

export type VerificationResult = 'Passed' | 'Failed' | 'Inconclusive' | 'RolledBack'

export interface LiveVersion {
  id: string
  name: string
}

export interface LiveFacts {
  /** The live test's final phase, as the wait judged it. */
  passed: boolean
  /** status.templateVersionID (and name) of the test: the version that ran. */
  ran: LiveVersion
  /** The active version when the run started; absent when unknown. */
  starting?: LiveVersion
  /** The active version read at the end; absent when that read failed. */
  ending?: LiveVersion
}

export type LiveDecision =
  | { result: 'Passed' }
  /** `rollback`: the failed version is still active, so a rollback may apply (behind its guard). */
  | { result: 'Failed'; rollback: boolean; note?: string }
  | { result: 'Inconclusive'; why: string }

/** A version as messages name it: `<name> (<id>)`. */
export const shownVersion = (v: LiveVersion | null | undefined): string =>
  v ? `${v.name || '(unnamed)'} (${v.id})` : 'unknown'

export function decideLive(facts: LiveFacts): LiveDecision {
  const { ran, starting, ending } = facts
  // First: did the test run the version that was live at the start? If not, its result says
  // nothing about that version, whatever is active now (the target itself may be what failed).
  if (starting && ran.id !== starting.id)
    return {
      result: 'Inconclusive',
      why: `the test ran ${shownVersion(ran)}, but ${shownVersion(starting)} was active when the run started: another writer promoted a version before the test resolved it`
    }
  if (ending && ending.id !== ran.id)
    return {
      result: 'Inconclusive',
      why: `the test ran ${shownVersion(ran)}, and ${shownVersion(ending)} is active now: another writer promoted meanwhile`
    }
  if (ending === undefined) {
    // Without the final read nothing proves the version still live; a failure is still a failure.
    return facts.passed
      ? {
          result: 'Inconclusive',
          why: `the test of ${shownVersion(ran)} passed, but the active version could not be read at the end`
        }
      : {
          result: 'Failed',
          rollback: false,
          note: 'the active version could not be read at the end, so no rollback was tried'
        }
  }
  return facts.passed ? { result: 'Passed' } : { result: 'Failed', rollback: true }
}

/** A candidate for the rollback, as Coder describes it (Coder API TemplateVersion, https://coder.com/docs/reference/api/schemas#codersdktemplateversion). */
export interface RollbackCandidate {
  id: string
  name: string
  templateId: string | null
  archived: boolean
  /** job.status of the version's import. */
  jobStatus: string
  createdAt?: string
}

export type RollbackChoice = { ok: true; target: RollbackCandidate } | { ok: false; reason: string }

export interface RollbackInput {
  /** rollback-to as written: a name, an ID, or `previous`. */
  wanted: string
  /** What Coder answered for the name or ID (for `previous`: the recorded version ID); null: none. */
  found: RollbackCandidate | null
  /** `previous` only: the recorded version's ID, '' when no deployment names another version. */
  recordedId?: string
  templateId: string
  /** The version that failed (still active). */
  failed: LiveVersion
}

/** Which version to roll back to, or why none: never the failed one, archived, or a failed import. */
export function chooseRollbackTarget(input: RollbackInput): RollbackChoice {
  const { wanted, found, failed } = input
  const named =
    wanted === 'previous'
      ? `the version of the newest successful deployment (${input.recordedId || 'none'})`
      : `"${wanted}"`
  if (wanted === 'previous' && !input.recordedId)
    return {
      ok: false,
      reason: `no successful deployment of the environment names a version other than the failed ${shownVersion(failed)}`
    }
  if (!found) return { ok: false, reason: `${named} is not a version of this template in Coder` }
  const version = `${found.name} (${found.id})`
  if (found.templateId !== null && found.templateId !== input.templateId)
    return { ok: false, reason: `${version} belongs to another template` }
  if (found.id === failed.id)
    return { ok: false, reason: `${version} is the version that failed its live test` }
  if (found.archived) return { ok: false, reason: `${version} is archived` }
  if (found.jobStatus !== 'succeeded')
    return {
      ok: false,
      reason: `the import of ${version} did not succeed (${found.jobStatus || 'no status'})`
    }
  return { ok: true, target: found }
}

/** A deployment of the environment as GitHub lists it (https://docs.github.com/rest/deployments/deployments#list-deployments). */
export interface ListedDeployment {
  id: number
  created_at: string
  /** An object or a JSON string (the REST answer allows both). */
  payload: unknown
}

/** Whose releases `rollback-to: previous` may read: this run's template, and the version that failed. */
export interface RecordedWanted {
  template: string
  organization: string
  /** The version that failed: never the answer. */
  except: string
}

/**
 * The version ID of a payload the gate itself records (src/deployments.ts: template,
 * organization, versionId, versionName, previousVersionId, testNames), for this template of this
 * organization; '' for any other payload. The payload has no marker of its own, so every field the
 * gate writes must be there with its type, and the version ID must be a UUID.
 */
export function recordedVersionOf(payload: unknown, wanted: RecordedWanted): string {
  let value = payload
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch {
      return ''
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ''
  const p = value as Record<string, unknown>
  const previous = p.previousVersionId
  const names = p.testNames
  const ours =
    p.template === wanted.template &&
    p.organization === wanted.organization &&
    isUuid(p.versionId) &&
    typeof p.versionName === 'string' &&
    typeof previous === 'string' &&
    (previous === '' || isUuid(previous)) &&
    Array.isArray(names) &&
    names.length > 0 &&
    names.every((name) => typeof name === 'string')
  return ours && p.versionId !== wanted.except ? (p.versionId as string) : ''
}

/**
 * `previous`: the gate's records of this template that name another version than the one that
 * failed, newest first by created_at (ties: the higher ID, the later one), whatever order the list
 * came in.
 */
export function recordedCandidates(
  deployments: ListedDeployment[],
  wanted: RecordedWanted
): { id: number; versionId: string }[] {
  const time = (d: ListedDeployment): number => Date.parse(d.created_at) || 0
  return [...deployments]
    .sort((a, b) => time(b) - time(a) || b.id - a.id)
    .map((d) => ({ id: d.id, versionId: recordedVersionOf(d.payload, wanted) }))
    .filter((d) => d.versionId !== '')
}
