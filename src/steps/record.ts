// deployment-environment: which GitHub deployments a run records, from its journal (action.yml,
// `deployment-environment`): a promotion of the gate or the promote job, a rollback, and a live
// verification. Pure; src/deployments.ts writes them.
import type { Journal } from './journal.js'

export type RecordState = 'success' | 'failure' | 'inactive'

export interface PlannedRecord {
  /** What the record is about, for its description. */
  kind: 'promotion' | 'rollback' | 'verification'
  versionId: string
  versionName: string
  previousVersionId: string
  testNames: string[]
  state: RecordState
  description: string
}

/** The records of this run, in the order they happened; none after a cancel or without an outcome. */
export function plannedRecords(journal: Journal): PlannedRecord[] {
  const settings = journal.value('inputs')?.settings
  const preflight = journal.value('preflight')
  if (!settings || !preflight) return []
  // The tests that ran: one per preset with test-presets, as committed (or located by the promote
  // job); the base name only when no commit is known.
  const committed = journal.value('locate') ?? journal.value('commit')
  const testNames = committed?.tests.length
    ? committed.tests.map((test) => test.name)
    : [settings.test.name]
  const previous = preflight.startingActive?.id ?? ''
  const ours = journal.value('locate') ?? journal.value('push')
  const promotion = journal.value('promote')
  // Only a promotion that happened: AlreadyActive (a re-run) and a preview record nothing.
  if (ours && promotion?.result === 'Promoted')
    return [
      {
        kind: 'promotion',
        versionId: ours.versionId,
        versionName: ours.versionName,
        previousVersionId: previous,
        testNames,
        state: 'success',
        description: `${ours.template} ${ours.versionName} passed its test and was promoted`
      }
    ]
  const verification = journal.factsOf('verify')
  if (!verification) return []
  const { ran, result, rollback } = verification
  const state: RecordState =
    result === 'Passed' ? 'success' : result === 'Inconclusive' ? 'inactive' : 'failure'
  const records: PlannedRecord[] = [
    {
      kind: 'verification',
      versionId: ran.id,
      versionName: ran.name,
      previousVersionId: previous,
      testNames,
      state,
      description: `live verification of ${preflight.template} ${ran.name}: ${result}`
    }
  ]
  if (rollback?.outcome === 'applied' && rollback.target)
    records.push({
      kind: 'rollback',
      versionId: rollback.target.id,
      versionName: rollback.target.name,
      previousVersionId: ran.id,
      testNames,
      state: 'success',
      description: `${preflight.template} rolled back from ${ran.name} to ${rollback.target.name}`
    })
  return records
}
