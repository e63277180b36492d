// The rows of the steps table: one per step of the journal, with the wait split into "sync" (until
// the test exists in the cluster) and "test" (until it is final). Steps that never ran are "not run".
import type { Journal, JournalEntry } from '../steps/journal.js'
import type { RowName, StepRow } from './report.js'

export function stepRows(journal: Journal): StepRow[] {
  const pullRequestMode = journal.value('inputs')?.settings.gitops.mode === 'pull-request'
  const names: RowName[] = [
    'preflight',
    'push',
    'commit',
    ...(pullRequestMode ? (['pull-request', 'merge'] as const) : []),
    'sync',
    'test',
    'promote'
  ]
  return names.flatMap((name) => rowsOf(name, journal))
}

function rowsOf(name: RowName, journal: Journal): StepRow[] {
  if (name === 'test') return []
  if (name === 'sync') return waitRows(journal)
  const entry = journal.entry(name)
  return [entry ? rowOf(name, entry) : { name, result: 'not run', detail: '' }]
}

function rowOf(name: RowName, entry: JournalEntry): StepRow {
  const { result } = entry
  return {
    name,
    result: result.ok ? result.status : result.failure.status,
    startedAt: entry.startedAt,
    endedAt: entry.endedAt,
    detail: result.ok ? result.detail : ''
  }
}

/** sync: from the commit (or merge) until the test exists; test: from then until it is final. */
function waitRows(journal: Journal): StepRow[] {
  const entry = journal.entry('wait')
  if (!entry) {
    return [
      { name: 'sync', result: 'not run', detail: '' },
      { name: 'test', result: 'not run', detail: '' }
    ]
  }
  const { result } = entry
  const facts = result.ok ? result.value : result.facts
  const syncedAt = facts?.syncedAt ?? null
  const status = result.ok ? result.status : result.failure.status
  if (syncedAt === null) {
    return [
      {
        name: 'sync',
        result: status,
        startedAt: entry.startedAt,
        endedAt: entry.endedAt,
        detail: ''
      },
      { name: 'test', result: 'not run', detail: '' }
    ]
  }
  return [
    {
      name: 'sync',
      result: 'succeeded',
      startedAt: entry.startedAt,
      endedAt: syncedAt,
      detail: 'the test exists in the cluster'
    },
    {
      name: 'test',
      result: status,
      startedAt: syncedAt,
      endedAt: entry.endedAt,
      detail: result.ok ? result.detail : ''
    }
  ]
}
