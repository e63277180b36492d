// The rows of the steps table: one per step of the journal, with the wait split into "sync" (until
// the test exists in the cluster) and "test" (until it is final). Steps that never ran are "not run".
import type { Journal, JournalEntry } from '../steps/journal.js'
import type { Failure } from '../steps/step.js'
import type { WaitFacts } from '../steps/wait.js'
import type { RowName, StepRow } from './report.js'

const MAX_DETAIL = 300

/** A failure in a row: its message without the closing "Nothing was …", and its first problem. */
export function failureDetail(failure: Failure): string {
  const text =
    failure.message.replace(/\s*Nothing (?:was|is) [^.]*\.\s*$/, '').trim() || failure.message
  const [first, ...more] = failure.problems
  const problems = first
    ? ` — ${first}${more.length > 0 ? ` (and ${more.length} more, listed above)` : ''}`
    : ''
  const detail = `${text.replace(/\.$/, '')}${problems}`
  return detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail
}

/** A wait that the cancel cut: how far it got. */
function cutWaitDetail(facts: WaitFacts | undefined, synced: boolean): string {
  if (!synced) return 'cancelled while waiting for Argo CD or Flux to create the test'
  const last = facts?.last
  const where = last?.phase
    ? `${last.phase}${last.reason ? ` / ${last.reason}` : ''}`
    : 'no status yet'
  return `cancelled while the test ran (last: ${where}); the test goes on in the cluster`
}

/** The promote job of a release: no push and no commit, the locate step in their place. */
const PROMOTE_JOB_ROWS: RowName[] = ['preflight', 'locate', 'sync', 'test', 'promote']

/** mode: verify: no push and no promote; the decision (and rollback) in their place. */
const VERIFY_ROWS: RowName[] = ['preflight', 'commit', 'sync', 'test', 'verify']

export function stepRows(journal: Journal): StepRow[] {
  const mode = journal.value('inputs')?.settings.mode
  if (mode === 'promote')
    return PROMOTE_JOB_ROWS.flatMap((name) =>
      name === 'locate' && journal.entry('presets')
        ? [...rowsOf('locate', journal), ...rowsOf('presets', journal)]
        : rowsOf(name, journal)
    )
  if (mode === 'verify')
    return VERIFY_ROWS.flatMap((name) =>
      // gitops-refresh: its row after the commit, shown only when the input names objects.
      name === 'commit' && journal.entry('refresh')
        ? [...rowsOf('commit', journal), ...rowsOf('refresh', journal)]
        : rowsOf(name, journal)
    )
  const pullRequestMode = journal.value('inputs')?.settings.gitops.delivery === 'pull-request'
  const names: RowName[] = [
    'preflight',
    'push',
    ...(journal.entry('presets') ? (['presets'] as const) : []),
    'commit',
    ...(pullRequestMode ? (['pull-request', 'merge'] as const) : []),
    // gitops-refresh: shown only when the input names objects.
    ...(journal.entry('refresh') ? (['refresh'] as const) : []),
    'sync',
    'test',
    'promote',
    ...(journal.entry('tidy') ? (['tidy'] as const) : [])
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
    detail: result.ok
      ? result.detail
      : result.failure.status === 'cancelled'
        ? cutDetail(entry)
        : failureDetail(result.failure)
  }
}

/** A step that the cancel cut: what that means for its work. */
function cutDetail(entry: JournalEntry): string {
  switch (entry.name) {
    case 'preflight':
      return 'cancelled during the read-only checks'
    case 'push':
      return 'cancelled during the push: the CLI was told to cancel its import'
    case 'commit':
      return 'cancelled during the commit: the branch moved all or nothing'
    case 'pull-request':
      return 'cancelled while opening the pull request'
    case 'merge':
      return 'cancelled while waiting for the merge: the pull request stays open'
    case 'promote': {
      const sent = !entry.result.ok && entry.result.facts?.requestSent
      return sent
        ? 'cancelled after the promote request was sent: check the active version'
        : 'cancelled before any promote request'
    }
    default:
      return 'cancelled'
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
  const failedDetail = (synced: boolean): string =>
    result.ok
      ? result.detail
      : result.failure.status === 'cancelled'
        ? cutWaitDetail(facts, synced)
        : failureDetail(result.failure)
  if (syncedAt === null) {
    return [
      {
        name: 'sync',
        result: status,
        startedAt: entry.startedAt,
        endedAt: entry.endedAt,
        detail: failedDetail(false)
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
      detail:
        typeof facts?.syncSeconds === 'number'
          ? `the test exists in the cluster, ${facts.syncSeconds.toFixed(1)} s after the change landed (sync-seconds)`
          : 'the test exists in the cluster'
    },
    {
      name: 'test',
      result: status,
      startedAt: syncedAt,
      endedAt: entry.endedAt,
      detail: failedDetail(true)
    }
  ]
}
