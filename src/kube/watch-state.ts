// The wait for one CoderTemplateTest as a pure reducer: an observed event in, the next state and the
// next action out. src/kube/wait.ts does the I/O (GET, LIST, watch, sleeps, timers).
// - The next watch starts from the newest resourceVersion seen, bookmarks included, so an idle wait
//   resumes where its stream ended instead of from the object's old resourceVersion (a 410 Gone and
//   a re-list once that is compacted). client-node's Watch leaves it to us: reconnect from the last
//   resourceVersion, re-list on 410 Gone.
// - A stream that ended cleanly or went quiet is resumed from the newest resourceVersion without a
//   read, news or not: the API server replays every change after that resourceVersion (or answers
//   410), and bookmarks may come at any interval or never (Kubernetes API concepts, "Watch
//   bookmarks": clients must not assume bookmarks are returned at any specific interval). Errors
//   are re-read after a backoff. After a 410 the read is a LIST: its resourceVersion is current.
// - Deadlines: the sync deadline while the object has never been seen, then the wait deadline from
//   its first sight. The first GET is always made; every later event checks the deadline.
import type { CoderTemplateTest, KubeStatus } from '../objects/coder-k8s.js'
import { backoff } from '../timing/backoff.js'

export interface WatchRules {
  isFinal: (test: CoderTemplateTest) => boolean
  /** Epoch ms: the deadline while the object has never been seen. */
  syncDeadline: number
  /** Counted from the first sight of the object. */
  waitTimeoutMs: number
  backoff: { initialMs: number; maxMs: number }
  /** A watch that ends sooner than this without news counts as a failure for the backoff. */
  minHealthyWatchMs: number
}

export type Doing = 'get' | 'list' | 'watch'

export interface WatchState {
  /** What is running; 'back-off' sleeps before `then`. */
  doing: Doing | 'back-off'
  then: Doing
  /** metadata.uid of the object last seen: another uid is a new object (deleted and re-created). */
  uid: string | undefined
  /** Whether the object exists, as last observed. */
  present: boolean
  /** The last object seen; kept after a deletion (the last state a wait timeout reports). */
  last: CoderTemplateTest | null
  firstSeenAt: number | undefined
  /** The newest resourceVersion seen (object, list or bookmark): the next watch starts there. */
  resourceVersion: string | undefined
  /** Consecutive failures: each doubles the backoff; a healthy watch resets them. */
  failures: number
  watchStartedAt: number
  /** The current watch delivered an event or a bookmark. */
  news: boolean
}

export type WatchEvent =
  /** The GET of the object: the object, or null for NotFound. */
  | { type: 'got'; object: CoderTemplateTest | null }
  /** The LIST by name: the object if listed, and the list's resourceVersion. */
  | { type: 'listed'; object: CoderTemplateTest | null; resourceVersion: string | undefined }
  /** A GET or LIST failed (transport, timeout, 5xx): retried after a backoff. */
  | { type: 'read-failed' }
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: CoderTemplateTest }
  | { type: 'BOOKMARK'; resourceVersion: string | undefined }
  /** An ERROR event, or an HTTP error answer to the watch; code 410 is Gone. */
  | { type: 'ERROR'; code: number | undefined }
  /** The stream broke or the watch was refused. */
  | { type: 'stream-error' }
  /** The server ended the stream cleanly (timeoutSeconds). */
  | { type: 'stream-ended' }
  /** The client ended a quiet stream (client-node's inactivity timeout). */
  | { type: 'inactive' }
  /** The clock: a deadline timer fired, or a backoff sleep ended. */
  | { type: 'tick' }

export type NextAction =
  | { do: 'get' }
  | { do: 'list' }
  | { do: 'watch'; resourceVersion: string | undefined }
  | { do: 'back-off'; ms: number }
  | { do: 'keep-watching' }
  | { do: 'done'; object: CoderTemplateTest }
  /** The object was seen, then deleted before it was final: the wait ends at once. */
  | { do: 'deleted'; last: CoderTemplateTest | null }
  | { do: 'timeout'; kind: 'sync' | 'wait' }

export interface Step {
  state: WatchState
  next: NextAction
  /** A new observation to report: the object, or null for NotFound or a deletion. */
  observed?: CoderTemplateTest | null
}

/** The start: a GET, made even past a deadline so that a final object is returned. */
export function startWaiting(): Step {
  const state: WatchState = {
    doing: 'get',
    then: 'get',
    uid: undefined,
    present: false,
    last: null,
    firstSeenAt: undefined,
    resourceVersion: undefined,
    failures: 0,
    watchStartedAt: 0,
    news: false
  }
  return { state, next: { do: 'get' } }
}

export function deadlineOf(state: WatchState, rules: WatchRules): number {
  return state.firstSeenAt === undefined
    ? rules.syncDeadline
    : state.firstSeenAt + rules.waitTimeoutMs
}

/** The reducer: `at` is the time of the event (epoch ms). A final object wins over a deadline. */
export function advance(state: WatchState, event: WatchEvent, at: number, rules: WatchRules): Step {
  const step = react(state, event, at, rules)
  if (step.next.do === 'done' || step.next.do === 'deleted') return step
  if (at < deadlineOf(step.state, rules)) return step
  const kind = step.state.firstSeenAt === undefined ? 'sync' : 'wait'
  return { ...step, next: { do: 'timeout', kind } }
}

function react(state: WatchState, event: WatchEvent, at: number, rules: WatchRules): Step {
  switch (event.type) {
    case 'got':
      return event.object ? afterGet(state, event.object, at, rules) : afterNotFound(state, at)
    case 'listed':
      return afterList(state, event.object, event.resourceVersion, at, rules)
    case 'read-failed':
      return backOff(state, state.doing === 'list' ? 'list' : 'get', rules)
    case 'ADDED':
    case 'MODIFIED': {
      const seen = { ...see(state, event.object, at), news: true }
      return withObject(keepWatching(resumeAt(seen, event.object)), event.object, rules)
    }
    case 'DELETED': {
      const deleted = resumeAt({ ...state, present: false, news: true }, event.object)
      return gone(deleted, event.object)
    }
    case 'BOOKMARK':
      return keepWatching({
        ...state,
        news: true,
        resourceVersion: event.resourceVersion ?? state.resourceVersion
      })
    case 'ERROR':
      return event.code === 410 ? afterEnd(state, at, rules, 'list') : backOff(state, 'get', rules)
    case 'stream-error':
      return backOff(state, 'get', rules)
    case 'stream-ended':
    case 'inactive':
      // Resume where the stream ended; only without any resourceVersion is a read needed.
      return afterEnd(state, at, rules, state.resourceVersion === undefined ? 'get' : 'watch')
    case 'tick':
      if (state.doing === 'back-off') return go(state, state.then, at)
      // A read cut at the deadline by its timer, which may fire a moment before the clock says so:
      // back off (the pause is cut at the deadline too), never a watch step outside a watch.
      if (state.doing === 'get' || state.doing === 'list') return backOff(state, state.doing, rules)
      return keepWatching(state)
  }
}

function afterGet(
  state: WatchState,
  object: CoderTemplateTest,
  at: number,
  rules: WatchRules
): Step {
  // The same object unchanged since we last saw it: keep the (newer) resourceVersion we hold.
  const unchanged = state.last !== null && sameVersion(state.last, object)
  const seen = see(state, object, at)
  const resumed = unchanged && state.resourceVersion !== undefined ? seen : resumeAt(seen, object)
  return withObject(go(resumed, 'watch', at), object, rules)
}

function afterNotFound(state: WatchState, at: number): Step {
  if (state.firstSeenAt !== undefined) return gone({ ...state, present: false }, state.last)
  // The collection's resourceVersion is current: the watch then sees a creation as ADDED.
  return { ...go({ ...state, present: false }, 'list', at), observed: null }
}

/**
 * A test that was seen and is gone before it was final ends the wait at once: nothing re-creates it
 * but a new commit (most likely its manifest was removed from Git and the GitOps engine pruned it),
 * so waiting out the timeout only delays the same failure.
 */
function gone(state: WatchState, last: CoderTemplateTest | null): Step {
  return { state, next: { do: 'deleted', last: state.last ?? last }, observed: null }
}

function afterList(
  state: WatchState,
  object: CoderTemplateTest | null,
  resourceVersion: string | undefined,
  at: number,
  rules: WatchRules
): Step {
  const listed = { ...state, resourceVersion }
  if (object) {
    const seen = see(listed, object, at)
    return withObject(go(seen, 'watch', at), object, rules)
  }
  if (state.firstSeenAt !== undefined) return gone({ ...listed, present: false }, state.last)
  const step = go({ ...listed, present: false }, 'watch', at)
  // Report an absence once: a GET's NotFound already did.
  return state.present ? { ...step, observed: null } : step
}

function afterEnd(state: WatchState, at: number, rules: WatchRules, then: Doing): Step {
  const healthy = state.news || at - state.watchStartedAt >= rules.minHealthyWatchMs
  return healthy ? go({ ...state, failures: 0 }, then, at) : backOff(state, then, rules)
}

function backOff(state: WatchState, then: Doing, rules: WatchRules): Step {
  const failures = state.failures + 1
  const ms = backoff({ attempt: failures, ...rules.backoff })
  return { state: { ...state, failures, doing: 'back-off', then }, next: { do: 'back-off', ms } }
}

function go(state: WatchState, what: Doing, at: number): Step {
  if (what !== 'watch') return { state: { ...state, doing: what }, next: { do: what } }
  return {
    state: { ...state, doing: 'watch', watchStartedAt: at, news: false },
    next: { do: 'watch', resourceVersion: state.resourceVersion }
  }
}

function keepWatching(state: WatchState): Step {
  return { state, next: { do: 'keep-watching' } }
}

function see(state: WatchState, object: CoderTemplateTest, at: number): WatchState {
  return {
    ...state,
    uid: object.metadata?.uid,
    present: true,
    last: object,
    // guess: a re-created object keeps the first sight; the wait stays bounded from it.
    firstSeenAt: state.firstSeenAt ?? at
  }
}

function resumeAt(state: WatchState, object: CoderTemplateTest): WatchState {
  return { ...state, resourceVersion: object.metadata?.resourceVersion ?? state.resourceVersion }
}

function withObject(step: Step, object: CoderTemplateTest, rules: WatchRules): Step {
  // Being deleted (a finalizer holds it): it never passes, and the deletion is the news.
  if (!rules.isFinal(object) && object.metadata?.deletionTimestamp)
    return { state: step.state, next: { do: 'deleted', last: object }, observed: object }
  if (!rules.isFinal(object)) return { ...step, observed: object }
  return { ...step, next: { do: 'done', object }, observed: object }
}

function sameVersion(a: CoderTemplateTest, b: CoderTemplateTest): boolean {
  return (
    a.metadata?.uid === b.metadata?.uid &&
    a.metadata?.resourceVersion === b.metadata?.resourceVersion
  )
}

/** What a watch can end in besides an event: a refusal (401, 403) that no retry fixes. */
export type StreamEnd = WatchEvent | { type: 'refused'; status: number; detail: string }

/** A client-node watch callback as an event; undefined for another object or an unknown type. */
export function eventOfWatch(name: string, type: string, object: unknown): WatchEvent | undefined {
  if (type === 'ERROR') return { type: 'ERROR', code: (object as KubeStatus | undefined)?.code }
  const test = object as CoderTemplateTest | undefined
  if (type === 'BOOKMARK') return { type, resourceVersion: test?.metadata?.resourceVersion }
  // The field selector already limits the stream to our object; ignore anything else.
  if (test?.metadata?.name !== name) return undefined
  if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return undefined
  return { type, object: test }
}

/** client-node's `done(err)` as an event: null is a clean end; its TimeoutError the inactivity. */
export function eventOfWatchEnd(err: unknown): StreamEnd {
  if (err === null || err === undefined) return { type: 'stream-ended' }
  const e = err as { name?: string; statusCode?: number; message?: string }
  if (e.name === 'TimeoutError') return { type: 'inactive' }
  if (e.statusCode === 410) return { type: 'ERROR', code: 410 }
  if (e.statusCode === 401 || e.statusCode === 403)
    return { type: 'refused', status: e.statusCode, detail: e.message ?? '' }
  return { type: 'stream-error' }
}
