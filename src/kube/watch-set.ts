// The wait for a set of CoderTemplateTests (one per preset) as a pure reducer, with ONE list and
// ONE watch of the namespace's collection for the whole set, never one per test: an event of any
// test of the set moves it; others are ignored. src/kube/wait-tests.ts does the I/O. The rules of
// watch-state.ts hold here too: resume from the newest resourceVersion (bookmarks included), a
// clean or quiet end resumes without a read, 410 Gone re-lists, errors back off (Kubernetes API
// concepts, "Efficient detection of changes": https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes).
// Deadlines are per test: the sync deadline until a test is first seen, then its own wait timeout.
// A test's wait ends when it is final, or when it is deleted (a DELETED event, absent from a list
// after it was seen, or marked for deletion) before it was final: like watch-state.ts, nothing but a
// new commit re-creates it, so it is judged at once as deleted. The other tests go on being watched,
// as after a Failed one; later events of an ended test are ignored.
import { backoff } from '../timing/backoff.js'
import type { CoderTemplateTest } from '../objects/coder-k8s.js'

export interface SetRules {
  names: readonly string[]
  isFinal: (test: CoderTemplateTest) => boolean
  syncDeadline: number
  waitTimeoutMs: number
  backoff: { initialMs: number; maxMs: number }
  minHealthyWatchMs: number
}

export interface Sight {
  /** The last object seen; kept after a deletion. */
  last: CoderTemplateTest | null
  present: boolean
  firstSeenAt?: number
  /** Deleted (or being deleted) before it was final: its wait is over. */
  deleted?: boolean
}

export interface SetState {
  doing: 'list' | 'watch' | 'back-off'
  then: 'list' | 'watch'
  sights: Readonly<Record<string, Sight>>
  resourceVersion: string | undefined
  failures: number
  watchStartedAt: number
  news: boolean
}

export type SetEvent =
  | { type: 'listed'; objects: CoderTemplateTest[]; resourceVersion: string | undefined }
  | { type: 'read-failed' }
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: CoderTemplateTest }
  | { type: 'BOOKMARK'; resourceVersion: string | undefined }
  | { type: 'ERROR'; code: number | undefined }
  | { type: 'stream-error' }
  | { type: 'stream-ended' }
  | { type: 'inactive' }
  | { type: 'tick' }

export type SetAction =
  | { do: 'list' }
  | { do: 'watch'; resourceVersion: string | undefined }
  | { do: 'back-off'; ms: number }
  | { do: 'keep-watching' }
  /** Every test is final, deleted or past its own deadline. */
  | { do: 'done' }

export interface SetStep {
  state: SetState
  next: SetAction
  /** Tests whose object changed (or went) with this event, for the caller's log. */
  observed: { name: string; object: CoderTemplateTest | null }[]
}

/** The start: one LIST of the collection gives every test there and a current resourceVersion. */
export function startSet(names: readonly string[]): SetStep {
  const sights = Object.fromEntries(names.map((n) => [n, { last: null, present: false }]))
  const state: SetState = {
    doing: 'list',
    then: 'list',
    sights,
    resourceVersion: undefined,
    failures: 0,
    watchStartedAt: 0,
    news: false
  }
  return { state, next: { do: 'list' }, observed: [] }
}

export function testDeadline(sight: Sight, rules: SetRules): number {
  return sight.firstSeenAt === undefined
    ? rules.syncDeadline
    : sight.firstSeenAt + rules.waitTimeoutMs
}

/** A test whose wait is over: final on its last read, or deleted before that. */
export function hasEnded(sight: Sight, rules: SetRules): boolean {
  if (sight.deleted) return true
  return sight.present && sight.last !== null && rules.isFinal(sight.last)
}

/** The tests still worth waiting for at `at`: not ended, and not past their own deadline. */
export function pendingNames(state: SetState, rules: SetRules, at: number): string[] {
  return rules.names.filter((name) => {
    const sight = state.sights[name] as Sight
    return !hasEnded(sight, rules) && at < testDeadline(sight, rules)
  })
}

/** The earliest deadline among the pending tests: when the wait must look again. */
export function setDeadline(state: SetState, rules: SetRules, at: number): number {
  const pending = pendingNames(state, rules, at)
  return Math.min(...pending.map((name) => testDeadline(state.sights[name] as Sight, rules)))
}

export function advanceSet(state: SetState, event: SetEvent, at: number, rules: SetRules): SetStep {
  const step = react(state, event, at, rules)
  if (pendingNames(step.state, rules, at).length === 0) return { ...step, next: { do: 'done' } }
  return step
}

function react(state: SetState, event: SetEvent, at: number, rules: SetRules): SetStep {
  switch (event.type) {
    case 'listed':
      return onList(state, event.objects, event.resourceVersion, at, rules)
    case 'read-failed':
      return backOff(state, 'list', rules)
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return onObject(state, event.type, event.object, at, rules)
    case 'BOOKMARK':
      return keep({
        ...state,
        news: true,
        resourceVersion: event.resourceVersion ?? state.resourceVersion
      })
    case 'ERROR':
      return event.code === 410 ? afterEnd(state, at, rules, 'list') : backOff(state, 'list', rules)
    case 'stream-error':
      return backOff(state, 'list', rules)
    case 'stream-ended':
    case 'inactive':
      return afterEnd(state, at, rules, state.resourceVersion === undefined ? 'list' : 'watch')
    case 'tick':
      if (state.doing === 'back-off') return go(state, state.then, at)
      if (state.doing === 'list') return backOff(state, 'list', rules)
      return keep(state)
  }
}

function onList(
  state: SetState,
  objects: CoderTemplateTest[],
  resourceVersion: string | undefined,
  at: number,
  rules: SetRules
): SetStep {
  let sights = state.sights
  const observed: SetStep['observed'] = []
  for (const name of rules.names) {
    const object = objects.find((o) => o.metadata?.name === name) ?? null
    const before = sights[name] as Sight
    if (hasEnded(before, rules)) continue
    // Absent after it was seen: deleted, as a NotFound read is in watch-state.ts.
    const seenBefore = before.firstSeenAt !== undefined
    const absent = seenBefore
      ? { ...before, present: false, deleted: true }
      : { ...before, present: false }
    sights = { ...sights, [name]: object ? read(before, object, at, rules) : absent }
    if (object || before.present || before.last === null) observed.push({ name, object })
  }
  return go({ ...state, sights, resourceVersion }, 'watch', at, observed)
}

function onObject(
  state: SetState,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  object: CoderTemplateTest,
  at: number,
  rules: SetRules
): SetStep {
  const resourceVersion = object.metadata?.resourceVersion ?? state.resourceVersion
  const name = object.metadata?.name ?? ''
  const before = state.sights[name]
  // Another object of the namespace, or a test whose wait is over: only its resourceVersion counts.
  if (!before || !rules.names.includes(name) || hasEnded(before, rules))
    return keep({ ...state, news: true, resourceVersion })
  const sight =
    type === 'DELETED'
      ? { ...before, last: before.last ?? object, present: false, deleted: true }
      : read(before, object, at, rules)
  const sights = { ...state.sights, [name]: sight }
  const observed = [{ name, object: type === 'DELETED' ? null : object }]
  return { ...keep({ ...state, sights, news: true, resourceVersion }), observed }
}

/** A read of a test: being deleted (a finalizer holds it) and not final ends it as deleted. */
function read(sight: Sight, object: CoderTemplateTest, at: number, rules: SetRules): Sight {
  const seen = see(sight, object, at)
  if (!rules.isFinal(object) && object.metadata?.deletionTimestamp)
    return { ...seen, deleted: true }
  return seen
}

function see(sight: Sight, object: CoderTemplateTest, at: number): Sight {
  // The first sight bounds the wait; a deletion ends it, so no re-creation restarts it.
  return { last: object, present: true, firstSeenAt: sight.firstSeenAt ?? at }
}

function afterEnd(state: SetState, at: number, rules: SetRules, then: 'list' | 'watch'): SetStep {
  const healthy = state.news || at - state.watchStartedAt >= rules.minHealthyWatchMs
  return healthy ? go({ ...state, failures: 0 }, then, at) : backOff(state, then, rules)
}

function backOff(state: SetState, then: 'list' | 'watch', rules: SetRules): SetStep {
  const failures = state.failures + 1
  const ms = backoff({ attempt: failures, ...rules.backoff })
  return {
    state: { ...state, failures, doing: 'back-off', then },
    next: { do: 'back-off', ms },
    observed: []
  }
}

function go(
  state: SetState,
  what: 'list' | 'watch',
  at: number,
  observed: SetStep['observed'] = []
): SetStep {
  if (what === 'list') return { state: { ...state, doing: 'list' }, next: { do: 'list' }, observed }
  return {
    state: { ...state, doing: 'watch', watchStartedAt: at, news: false },
    next: { do: 'watch', resourceVersion: state.resourceVersion },
    observed
  }
}

function keep(state: SetState): SetStep {
  return { state, next: { do: 'keep-watching' }, observed: [] }
}
