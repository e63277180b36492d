// One watch of the test through client-node's Watch, fed to the reducer (watch-state.ts) event by
// event until it asks for something other than to keep watching. Facts: client-node's Watch
// (2.0.1: `done` on close or error, a 30 s inactivity timeout: kubernetes-client/javascript#3022).
import { Watch } from '@kubernetes/client-node'
import { KubeAbortError } from './request.js'
import { advance, deadlineOf, eventOfWatch, eventOfWatchEnd } from './watch-state.js'
import type { StreamEnd, Step, WatchEvent, WatchState } from './watch-state.js'
import type { Waiter, WaitStats } from './watch-types.js'

/** Runs the reducer on one event and reports what it observed. */
export function feed(w: Waiter, state: WatchState, event: WatchEvent): Step {
  const step = advance(state, event, w.now(), w.rules)
  if (step.observed !== undefined) w.options.onObserved?.(step.observed)
  return step
}

export function forbiddenMessage(status: number, action: string, detail: string): string {
  return status === 401
    ? `the Kubernetes API server rejected the credentials (401) trying to ${action}: check the kubeconfig's user`
    : `the kubeconfig's user may not ${action} (403 Forbidden: ${detail}); grant get, list and watch on codertemplatetests.coder.com (config/rbac/gate-role.yaml)`
}

/** One watch, until the reducer's next step is not to keep watching; rejects on abort or a 401/403. */
export function watchUntilNext(
  w: Waiter,
  from: WatchState,
  resourceVersion?: string
): Promise<Step> {
  w.stats.watches++
  const { signal } = w.options
  return new Promise<Step>((resolve, reject) => {
    let state = from
    let settled = false
    let controller: AbortController | undefined
    let timer: NodeJS.Timeout | undefined
    let armedFor: number | undefined
    const settle = (outcome: Step | Error): void => {
      settled = true
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      controller?.abort()
      if (outcome instanceof Error) reject(outcome)
      else resolve(outcome)
    }
    const onAbort = (): void => settle(new KubeAbortError())
    // The deadline fires even while the stream is quiet; the first sight of the object moves it.
    const armDeadline = (): void => {
      const deadline = deadlineOf(state, w.rules)
      if (deadline === armedFor) return
      armedFor = deadline
      clearTimeout(timer)
      const tick = (): void => {
        armedFor = undefined // a timer may fire a little early: re-armed unless the time is up
        onEvent({ type: 'tick' })
      }
      timer = setTimeout(tick, Math.max(0, deadline - w.now()))
    }
    const onEvent = (event: StreamEnd | undefined): void => {
      if (settled || event === undefined) return
      if (event.type === 'refused')
        return settle(new Error(forbiddenMessage(event.status, `watch ${w.what}`, event.detail)))
      count(w.stats, event)
      const step = feed(w, state, event)
      state = step.state
      if (step.next.do === 'keep-watching') armDeadline()
      else settle(step)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) return onAbort()
    armDeadline()
    void openWatch(
      w,
      resourceVersion,
      (type, object) => settled || onEvent(eventOfWatch(w.options.name, type, object)),
      (err) => settled || onEvent(eventOfWatchEnd(err))
    ).then((c) => {
      controller = c
      if (settled) c?.abort()
    })
  })
}

export const DEFAULT_WATCH_TIMEOUT_SECONDS = 300

/**
 * client-node's client-side inactivity limit for a watch of `timeoutSeconds`: above it, so a quiet
 * stream lives until the server ends it (client-go's reflector keeps a watch open for its
 * server-side timeout too). client-node 2.0.1 would cut it after 30 s of quiet,
 * which made a quiet wait re-watch twice a minute. The wait's own deadline timer still bounds it.
 */
export function inactivityLimitMs(timeoutSeconds: number): number {
  return timeoutSeconds * 1000 + 30_000
}

function openWatch(
  w: Waiter,
  resourceVersion: string | undefined,
  onEvent: (type: string, object: unknown) => void,
  onDone: (err: unknown) => void
): Promise<AbortController | undefined> {
  const watch = new Watch(w.options.kc)
  const timeoutSeconds = w.options.watchTimeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_SECONDS
  if ('requestTimeoutMs' in watch) {
    Object.assign(watch, {
      requestTimeoutMs: w.options.watchInactivityMs ?? inactivityLimitMs(timeoutSeconds)
    })
  }
  const query = {
    fieldSelector: `metadata.name=${w.options.name}`,
    resourceVersion,
    allowWatchBookmarks: true,
    timeoutSeconds
  }
  return watch.watch(w.collectionPath, query, onEvent, onDone).catch((err: unknown) => {
    onDone(err) // e.g. the credentials could not be applied: a stream error, retried
    return undefined
  })
}

function count(stats: WaitStats, event: WatchEvent): void {
  if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED')
    stats.events++
  else if (event.type === 'BOOKMARK') stats.bookmarks++
  else if (event.type === 'ERROR' && event.code === 410) stats.gone++
  else if (event.type === 'ERROR' || event.type === 'stream-error') stats.errors++
  else if (event.type === 'stream-ended') stats.cleanEnds++
  else if (event.type === 'inactive') stats.inactivityTimeouts++
}
