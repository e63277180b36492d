// Wait until every CoderTemplateTest of a set (the preset tests of one version) is final, deleted
// before it was final, or past its own deadline, with ONE list and ONE watch of the namespace's collection at a time for the whole
// set (watch-set.ts decides). A request count that does not grow with the number of tests: the API
// server sends the events of all of them down the one stream. RBAC as for one test: list and watch
// on codertemplatetests (config/rbac/). The Watch is client-node's
// (https://github.com/kubernetes-client/javascript/blob/main/src/watch.ts).
import { Watch } from '@kubernetes/client-node'
import { withJitter } from '../timing/backoff.js'
import { sleep } from '../timing/sleep.js'
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import { TEST_API_VERSION, TEST_PLURAL } from '../objects/coder-k8s.js'
import { KubeAbortError, kubeRequest, statusMessage } from './request.js'
import { eventOfWatchEnd } from './watch-state.js'
import {
  advanceSet,
  hasEnded,
  type SetEvent,
  type SetRules,
  type SetState,
  type SetStep,
  type Sight,
  setDeadline,
  startSet
} from './watch-set.js'
import {
  DEFAULT_WATCH_TIMEOUT_SECONDS,
  forbiddenMessage,
  inactivityLimitMs
} from './watch-stream.js'
import { newWaitStats } from './wait.js'
import type { WaitOptions, WaitStats } from './watch-types.js'

export interface SetWaitOptions extends Omit<WaitOptions, 'name' | 'onObserved'> {
  names: readonly string[]
  onObserved?: (name: string, test: CoderTemplateTest | null) => void
}

/**
 * How each test of the set ended: final, deleted before it was final (`last` is the last read
 * before), or not before its deadline (never seen: sync).
 */
export interface SetOutcome {
  name: string
  last: CoderTemplateTest | null
  ending: 'final' | 'deleted' | 'sync-timeout' | 'wait-timeout'
}

interface SetWaiter {
  options: SetWaitOptions
  rules: SetRules
  stats: WaitStats
  now: () => number
  path: string
}

export async function waitForTests(options: SetWaitOptions): Promise<SetOutcome[]> {
  const w: SetWaiter = {
    options,
    rules: {
      names: options.names,
      isFinal: options.isFinal,
      syncDeadline: options.syncDeadline,
      waitTimeoutMs: options.waitTimeoutMs,
      backoff: { initialMs: 500, maxMs: 10000, ...options.backoff },
      minHealthyWatchMs: options.minHealthyWatchMs ?? 1000
    },
    stats: options.stats ?? newWaitStats(),
    now: options.now ?? Date.now,
    path: `/apis/${TEST_API_VERSION}/namespaces/${encodeURIComponent(options.namespace)}/${TEST_PLURAL}`
  }
  let step = startSet(options.names)
  for (;;) {
    if (options.signal.aborted) throw new KubeAbortError()
    const { state, next } = step
    if (next.do === 'done') return outcomes(w, await finalList(w, state))
    if (next.do === 'list') step = feed(w, state, await list(w))
    else if (next.do === 'back-off') {
      const pause = options.sleep ?? sleep
      const ms = Math.max(0, Math.min(withJitter(next.ms, 0.25), until(w, state)))
      await pause(ms, options.signal).catch(() => {
        throw new KubeAbortError()
      })
      step = feed(w, state, { type: 'tick' })
    } else if (next.do === 'watch') step = await watchOnce(w, state, next.resourceVersion)
    else throw new Error('internal: keep-watching outside a watch')
  }
}

function feed(w: SetWaiter, state: SetState, event: SetEvent): SetStep {
  const step = advanceSet(state, event, w.now(), w.rules)
  for (const { name, object } of step.observed) w.options.onObserved?.(name, object)
  return step
}

function until(w: SetWaiter, state: SetState): number {
  return setDeadline(state, w.rules, w.now()) - w.now()
}

async function list(w: SetWaiter): Promise<SetEvent> {
  w.stats.lists++
  let answer
  try {
    answer = await kubeRequest(w.options.kc, {
      method: 'GET',
      path: w.path,
      signal: w.options.signal,
      timeoutMs: w.options.requestTimeoutMs ?? 30000
    })
  } catch {
    if (w.options.signal.aborted) throw new KubeAbortError()
    w.stats.errors++
    return { type: 'read-failed' }
  }
  if (answer.status === 401 || answer.status === 403)
    throw new Error(
      forbiddenMessage(answer.status, 'list CoderTemplateTests', statusMessage(answer))
    )
  if (answer.status !== 200) {
    w.stats.errors++
    return { type: 'read-failed' }
  }
  const body = answer.body as {
    metadata?: { resourceVersion?: string }
    items?: CoderTemplateTest[]
  }
  return {
    type: 'listed',
    objects: body.items ?? [],
    resourceVersion: body.metadata?.resourceVersion
  }
}

/**
 * At the end, when a test has not ended: one more LIST, because a silently dropped watch can hide a
 * final state (or a deletion) until the inactivity limit. A failed read keeps what the watch saw.
 */
async function finalList(w: SetWaiter, state: SetState): Promise<SetState> {
  const allEnded = w.rules.names.every((name) => hasEnded(state.sights[name] as Sight, w.rules))
  if (allEnded) return state
  const event = await list(w)
  if (event.type !== 'listed') return state
  return feed(w, state, event).state
}

function outcomes(w: SetWaiter, state: SetState): SetOutcome[] {
  return w.rules.names.map((name) => {
    const sight = state.sights[name] as Sight
    const last = sight.last
    if (sight.deleted) return { name, last, ending: 'deleted' }
    if (hasEnded(sight, w.rules)) return { name, last, ending: 'final' }
    return { name, last, ending: sight.firstSeenAt === undefined ? 'sync-timeout' : 'wait-timeout' }
  })
}

/** One watch of the collection, until the reducer asks for something else. */
function watchOnce(
  w: SetWaiter,
  from: SetState,
  resourceVersion: string | undefined
): Promise<SetStep> {
  w.stats.watches++
  const { signal } = w.options
  return new Promise<SetStep>((resolve, reject) => {
    let state = from
    let settled = false
    let controller: AbortController | undefined
    let timer: NodeJS.Timeout | undefined
    const settle = (outcome: SetStep | Error): void => {
      settled = true
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      controller?.abort()
      if (outcome instanceof Error) reject(outcome)
      else resolve(outcome)
    }
    const onAbort = (): void => settle(new KubeAbortError())
    const arm = (): void => {
      clearTimeout(timer)
      timer = setTimeout(() => onEvent({ type: 'tick' }), Math.max(0, until(w, state)))
    }
    const onEvent = (
      event: SetEvent | { type: 'refused'; status: number; detail: string }
    ): void => {
      if (settled) return
      if (event.type === 'refused')
        return settle(
          new Error(forbiddenMessage(event.status, 'watch CoderTemplateTests', event.detail))
        )
      count(w.stats, event)
      const step = feed(w, state, event)
      state = step.state
      if (step.next.do === 'keep-watching') arm()
      else settle(step)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) return onAbort()
    arm()
    void openWatch(w, resourceVersion, onEvent).then((c) => {
      controller = c
      if (settled) c?.abort()
    })
  })
}

function openWatch(
  w: SetWaiter,
  resourceVersion: string | undefined,
  onEvent: (event: SetEvent | { type: 'refused'; status: number; detail: string }) => void
): Promise<AbortController | undefined> {
  const watch = new Watch(w.options.kc)
  const timeoutSeconds = w.options.watchTimeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_SECONDS
  if ('requestTimeoutMs' in watch)
    Object.assign(watch, {
      requestTimeoutMs: w.options.watchInactivityMs ?? inactivityLimitMs(timeoutSeconds)
    })
  const query = { resourceVersion, allowWatchBookmarks: true, timeoutSeconds }
  const onDone = (err: unknown): void => onEvent(eventOfWatchEnd(err) as SetEvent)
  return watch
    .watch(w.path, query, (type, object) => onEvent(eventOf(type, object)), onDone)
    .catch((err: unknown) => {
      onDone(err)
      return undefined
    })
}

function eventOf(type: string, object: unknown): SetEvent {
  const test = object as CoderTemplateTest | undefined
  if (type === 'ERROR')
    return { type: 'ERROR', code: (object as { code?: number } | undefined)?.code }
  if (type === 'BOOKMARK') return { type, resourceVersion: test?.metadata?.resourceVersion }
  if ((type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') && test)
    return { type, object: test }
  return { type: 'BOOKMARK', resourceVersion: undefined } // an unknown type: news, nothing else
}

function count(stats: WaitStats, event: SetEvent): void {
  if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED')
    stats.events++
  else if (event.type === 'BOOKMARK') stats.bookmarks++
  else if (event.type === 'ERROR' && event.code === 410) stats.gone++
  else if (event.type === 'ERROR' || event.type === 'stream-error') stats.errors++
  else if (event.type === 'stream-ended') stats.cleanEnds++
  else if (event.type === 'inactive') stats.inactivityTimeouts++
}
