// Wait until one CoderTemplateTest is final: decide from observed state (controller-runtime style).
// The decisions are the reducer in watch-state.ts; this file does the I/O it asks for: a GET of the
// object, a LIST by name (fieldSelector=metadata.name=<name>) for a current resourceVersion, one
// watch of that object from the resourceVersion the reducer holds, backoff sleeps and a deadline
// timer. Facts: the CRD's REST path and a watch by fieldSelector, as coder-k8s's E2E does; client-node
// 2.0.1's Watch ends a quiet stream after 30 s (kubernetes-client/javascript#3022).
import { TEST_API_VERSION, TEST_PLURAL } from '../objects/coder-k8s.js'
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import { withJitter } from '../timing/backoff.js'
import { sleep } from '../timing/sleep.js'
import { systemClock } from '../timing/clock.js'
import { KubeAbortError, kubeRequest, statusMessage } from './request.js'
import { deadlineOf, startWaiting } from './watch-state.js'
import type { WatchEvent, WatchState } from './watch-state.js'
import { feed, forbiddenMessage, watchUntilNext } from './watch-stream.js'
import type { Waiter, WaitOptions, WaitStats } from './watch-types.js'

export { isAbortError } from './request.js'
export type { WaitBackoff, WaitOptions, WaitStats } from './watch-types.js'

export function newWaitStats(): WaitStats {
  return {
    gets: 0,
    lists: 0,
    watches: 0,
    events: 0,
    bookmarks: 0,
    inactivityTimeouts: 0,
    gone: 0,
    cleanEnds: 0,
    errors: 0
  }
}

export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError'
  constructor(
    /** 'sync': the object never appeared before the sync deadline; 'wait': it did not become final. */
    readonly kind: 'sync' | 'wait',
    /** The last object observed (null: never seen). */
    readonly last: CoderTemplateTest | null,
    message: string
  ) {
    super(message)
  }
}

/** The test was seen, then deleted before it was final. */
export class TestDeletedError extends Error {
  override name = 'TestDeletedError'
  constructor(
    /** The last object observed before the deletion. */
    readonly last: CoderTemplateTest | null,
    message: string
  ) {
    super(message)
  }
}

export async function waitForTest(options: WaitOptions): Promise<CoderTemplateTest> {
  const w = waiterFor(options)
  let step = startWaiting()
  for (let first = true; ; first = false) {
    const { state, next } = step
    if (options.signal.aborted) throw new KubeAbortError()
    switch (next.do) {
      case 'done':
        return next.object
      case 'deleted':
        // guess: Argo CD prunes only with prune on
        // (https://argo-cd.readthedocs.io/en/stable/user-guide/auto_sync/), Flux with spec.prune
        // (https://fluxcd.io/flux/components/kustomize/kustomizations/#prune).
        throw new TestDeletedError(
          next.last,
          `${w.what} was deleted (or is being deleted) before it was final. Most likely its manifest was removed from Git and the GitOps engine pruned the object (Argo CD with prune, Flux's prune); someone may also have deleted it by hand`
        )
      case 'timeout': {
        if (next.kind === 'sync') throw timeoutError(w, 'sync', state.last)
        const final = await finalRead(w)
        if (final && options.isFinal(final)) return final
        throw timeoutError(w, 'wait', final ?? state.last)
      }
      case 'get':
        step = feed(w, state, await readObject(w, state, first))
        break
      case 'list':
        step = feed(w, state, await listObject(w, state))
        break
      case 'back-off':
        // ±25 % so many gates never retry in step.
        await sleepUntilDeadline(w, state, withJitter(next.ms, 0.25))
        step = feed(w, state, { type: 'tick' })
        break
      case 'watch':
        step = await watchUntilNext(w, state, next.resourceVersion)
        break
      case 'keep-watching':
        throw new Error('internal: keep-watching outside a watch')
    }
  }
}

function waiterFor(options: WaitOptions): Waiter {
  const collectionPath = `/apis/${TEST_API_VERSION}/namespaces/${encodeURIComponent(options.namespace)}/${TEST_PLURAL}`
  return {
    options,
    rules: {
      isFinal: options.isFinal,
      syncDeadline: options.syncDeadline,
      waitTimeoutMs: options.waitTimeoutMs,
      backoff: { initialMs: 500, maxMs: 10000, ...options.backoff },
      minHealthyWatchMs: options.minHealthyWatchMs ?? 1000
    },
    stats: options.stats ?? newWaitStats(),
    now: options.now ?? Date.now,
    what: `CoderTemplateTest ${options.namespace}/${options.name}`,
    collectionPath,
    objectPath: `${collectionPath}/${encodeURIComponent(options.name)}`
  }
}

function timeoutError(
  w: Waiter,
  kind: 'sync' | 'wait',
  last: CoderTemplateTest | null
): WaitTimeoutError {
  if (kind === 'sync')
    return new WaitTimeoutError(
      'sync',
      null,
      `${w.what} did not appear before the sync deadline: check that the GitOps tool applied the commit to this cluster and namespace`
    )
  const seconds = Math.round(w.options.waitTimeoutMs / 1000)
  return new WaitTimeoutError(
    'wait',
    last,
    `${w.what} did not reach a final state within ${seconds} s of first being seen`
  )
}

function readObject(w: Waiter, state: WatchState, first: boolean): Promise<WatchEvent> {
  w.stats.gets++
  // The first read is not cut at a deadline: a test that is already final is returned.
  return read(w, state, { path: w.objectPath, bounded: !first }, (answer) => {
    if (answer.status === 200) return { type: 'got', object: answer.body as CoderTemplateTest }
    if (answer.status === 404) return { type: 'got', object: null }
    return refusedRead(w, answer, 'read')
  })
}

/**
 * One GET at the wait deadline: without bookmarks a silently dropped watch can hide the final state
 * until the inactivity limit, so the object is read once more before the timeout. Short-limited;
 * a failed read is null (the timeout stands), a 401/403 is refused as on any read.
 */
async function finalRead(w: Waiter): Promise<CoderTemplateTest | null> {
  w.stats.gets++
  let answer: ReadAnswer
  try {
    const response = await kubeRequest(w.options.kc, {
      method: 'GET',
      path: w.objectPath,
      signal: w.options.signal,
      timeoutMs: w.options.finalReadTimeoutMs ?? 5000
    })
    answer = { ...response, message: statusMessage(response) }
  } catch {
    if (w.options.signal.aborted) throw new KubeAbortError()
    w.stats.errors++
    return null
  }
  if (answer.status === 404) w.options.onObserved?.(null)
  if (answer.status !== 200) {
    if (answer.status !== 404) refusedRead(w, answer, 'read')
    return null
  }
  const object = answer.body as CoderTemplateTest
  w.options.onObserved?.(object)
  return object
}

function listObject(w: Waiter, state: WatchState): Promise<WatchEvent> {
  w.stats.lists++
  const query = { fieldSelector: `metadata.name=${w.options.name}` }
  return read(w, state, { path: w.collectionPath, query, bounded: true }, (answer) => {
    if (answer.status !== 200) return refusedRead(w, answer, 'list')
    const list = answer.body as {
      metadata?: { resourceVersion?: string }
      items?: CoderTemplateTest[]
    }
    const found = list.items?.find((item) => item.metadata?.name === w.options.name) ?? null
    return { type: 'listed', object: found, resourceVersion: list.metadata?.resourceVersion }
  })
}

interface ReadAnswer {
  status: number
  body: unknown
  message: string
}

/** A GET cut at the caller's abort and, when bounded, at the current deadline (a tick). */
async function read(
  w: Waiter,
  state: WatchState,
  request: { path: string; query?: Record<string, string>; bounded: boolean },
  eventOf: (answer: ReadAnswer) => WatchEvent
): Promise<WatchEvent> {
  const untilDeadline = Math.max(0, deadlineOf(state, w.rules) - w.now())
  const timer = w.options.timeout ?? systemClock.timeout
  const deadline = request.bounded ? timer(untilDeadline) : undefined
  let answer: ReadAnswer
  try {
    const response = await kubeRequest(w.options.kc, {
      method: 'GET',
      path: request.path,
      query: request.query,
      signal: deadline ? AbortSignal.any([w.options.signal, deadline]) : w.options.signal,
      timeoutMs: w.options.requestTimeoutMs ?? 30000
    })
    answer = { ...response, message: statusMessage(response) }
  } catch {
    if (w.options.signal.aborted) throw new KubeAbortError()
    if (deadline?.aborted) return { type: 'tick' }
    w.stats.errors++
    return { type: 'read-failed' }
  }
  return eventOf(answer)
}

function refusedRead(w: Waiter, answer: ReadAnswer, verb: 'read' | 'list'): WatchEvent {
  if (answer.status === 401 || answer.status === 403)
    throw new Error(forbiddenMessage(answer.status, `${verb} ${w.what}`, answer.message))
  w.stats.errors++ // a 5xx or another answer: re-read after a backoff
  return { type: 'read-failed' }
}

/** The toolkit's abortable pause (or the injected one), cut at the deadline. */
function sleepUntilDeadline(w: Waiter, state: WatchState, ms: number): Promise<void> {
  const untilDeadline = deadlineOf(state, w.rules) - w.now()
  const pause = w.options.sleep ?? sleep
  return pause(Math.max(0, Math.min(ms, untilDeadline)), w.options.signal).catch(() => {
    throw new KubeAbortError()
  })
}
