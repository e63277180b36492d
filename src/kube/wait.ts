// Wait until one CoderTemplateTest is final: decide from observed state (controller-runtime style).
// GET, then one watch of that object (fieldSelector=metadata.name=<name>) from the GET's
// resourceVersion; on stream end, error, 410 Gone or inactivity: re-read and re-watch. NotFound is
// waiting, bounded by the sync deadline. Facts: coder-k8s-api.md §1.1 (REST path, watch with
// fieldSelector), action-ecosystem.md §6.4 (client-node 2.0.1 Watch, 30 s inactivity timeout).
import { setTimeout as delay } from 'node:timers/promises'
import { Watch } from '@kubernetes/client-node'
import type { KubeConfig } from '@kubernetes/client-node'
import { TEST_API_VERSION, TEST_PLURAL } from '../api.js'
import type { CoderTemplateTest, KubeStatus } from '../api.js'
import { KubeAbortError, isAbortError, kubeRequest, statusMessage } from './request.js'

export { isAbortError } from './request.js'

export interface WaitBackoff {
  /** First delay after an error; default 500. */
  initialMs: number
  /** Cap of the doubling delay; default 10000. */
  maxMs: number
}

/** Counters for a benchmark (requests per minute). The wait adds to the object the caller passes. */
export interface WaitStats {
  gets: number
  lists: number
  watches: number
  events: number
  bookmarks: number
  /** Watches client-node ended after its inactivity timeout (30 s in 2.0.1). */
  inactivityTimeouts: number
  /** 410 Gone, as an ERROR event or an HTTP answer. */
  gone: number
  /** Watches the server ended cleanly (e.g. after timeoutSeconds). */
  cleanEnds: number
  /** Failed reads and broken or refused watches. */
  errors: number
}

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

export interface WaitOptions {
  kc: KubeConfig
  namespace: string
  name: string
  signal: AbortSignal
  isFinal: (test: CoderTemplateTest) => boolean
  /** Every observation: the object, or null when it does not exist (not yet, or deleted). */
  onObserved?: (test: CoderTemplateTest | null) => void
  /** Epoch ms: while the object has never been seen, NotFound is waiting until then. */
  syncDeadline: number
  /** Counted from the first time the object was seen. */
  waitTimeoutMs: number
  now?: () => number
  /** Server-side timeoutSeconds of each watch; default 300. */
  watchTimeoutSeconds?: number
  backoff?: Partial<WaitBackoff>
  /** Client timeout of each GET/LIST; default 30000. */
  requestTimeoutMs?: number
  /**
   * A watch that ends sooner than this without any event counts as a failure for the backoff, so a
   * server that closes streams at once is never hammered; default 1000.
   */
  minHealthyWatchMs?: number
  /**
   * Overrides client-node's watch inactivity timeout (30 s in 2.0.1). guess: it is a private field
   * (`requestTimeoutMs`) of Watch; only tests shorten it.
   */
  watchInactivityMs?: number
  stats?: WaitStats
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

type WatchOutcome =
  | { kind: 'final'; test: CoderTemplateTest }
  | {
      kind: 'ended'
      why: 'clean' | 'gone' | 'inactivity' | 'error'
      sawEvent: boolean
      error?: string
    }
  | { kind: 'forbidden'; message: string }
  | { kind: 'deadline' }
  | { kind: 'aborted' }

interface ListBody {
  metadata?: { resourceVersion?: string }
  items?: CoderTemplateTest[]
}

/** Thrown inside the loop when the deadline passes during a read or a backoff sleep. */
class DeadlineReached extends Error {}

export async function waitForTest(options: WaitOptions): Promise<CoderTemplateTest> {
  const now = options.now ?? Date.now
  const stats = options.stats ?? newWaitStats()
  const backoff: WaitBackoff = { initialMs: 500, maxMs: 10000, ...options.backoff }
  const requestTimeoutMs = options.requestTimeoutMs ?? 30000
  const minHealthyWatchMs = options.minHealthyWatchMs ?? 1000
  const collectionPath = `/apis/${TEST_API_VERSION}/namespaces/${encodeURIComponent(options.namespace)}/${TEST_PLURAL}`
  const objectPath = `${collectionPath}/${encodeURIComponent(options.name)}`
  const fieldSelector = `metadata.name=${options.name}`
  const what = `CoderTemplateTest ${options.namespace}/${options.name}`

  let firstSeenAt: number | undefined
  let last: CoderTemplateTest | null = null
  let delayMs = 0
  // After 410 Gone the next read is a LIST (fresh collection resourceVersion), not a GET.
  let relist = false

  const deadline = (): number =>
    firstSeenAt === undefined ? options.syncDeadline : firstSeenAt + options.waitTimeoutMs
  const timeoutError = (): WaitTimeoutError =>
    firstSeenAt === undefined
      ? new WaitTimeoutError(
          'sync',
          null,
          `${what} did not appear before the sync deadline: check that the GitOps tool applied the commit to this cluster and namespace`
        )
      : new WaitTimeoutError(
          'wait',
          last,
          `${what} did not reach a final state within ${Math.round(options.waitTimeoutMs / 1000)} s of first being seen`
        )
  // The first read always happens, even past a deadline: a test that is already final is returned.
  let firstRead = true
  const checkStop = (): void => {
    if (options.signal.aborted) throw new KubeAbortError()
    if (!firstRead && now() >= deadline()) throw timeoutError()
  }
  const observe = (test: CoderTemplateTest | null): void => {
    if (test !== null) {
      if (firstSeenAt === undefined) firstSeenAt = now()
      last = test
    }
    options.onObserved?.(test)
  }
  const growBackoff = (): void => {
    delayMs = delayMs === 0 ? backoff.initialMs : Math.min(delayMs * 2, backoff.maxMs)
  }
  // The caller's abort, or the current deadline: reads never outlive either.
  const readSignal = (): AbortSignal =>
    firstRead
      ? options.signal
      : AbortSignal.any([options.signal, AbortSignal.timeout(Math.max(0, deadline() - now()))])
  const read = async (
    path: string,
    query?: Record<string, string>
  ): Promise<{ status: number; body: unknown; message: string }> => {
    try {
      const response = await kubeRequest(options.kc, {
        method: 'GET',
        path,
        query,
        signal: readSignal(),
        timeoutMs: requestTimeoutMs
      })
      return { ...response, message: statusMessage(response) }
    } catch (err) {
      if (options.signal.aborted) throw new KubeAbortError()
      if (!firstRead && now() >= deadline()) throw new DeadlineReached()
      throw err
    }
  }

  for (;;) {
    try {
      checkStop()
      if (delayMs > 0) await sleep(jitter(delayMs), options.signal, deadline() - now())
      checkStop()

      // Re-read: the decision is always made from the object's current state.
      let resourceVersion: string | undefined
      const listOnly = relist
      let needList = listOnly
      relist = false
      if (!needList) {
        stats.gets++
        const got = await read(objectPath)
        if (got.status === 200) {
          const test = got.body as CoderTemplateTest
          observe(test)
          if (options.isFinal(test)) return test
          resourceVersion = test.metadata?.resourceVersion
        } else if (got.status === 404) {
          observe(null)
          needList = true
        } else {
          throwIfForbidden(got.status, `read ${what}`, got.message)
          throw new Error(`reading ${what} answered HTTP ${got.status}: ${got.message}`)
        }
      }
      if (needList) {
        // The collection's resourceVersion is current: the watch then sees a creation as ADDED, and
        // after 410 Gone it does not restart from the object's (possibly compacted) resourceVersion.
        stats.lists++
        const listed = await read(collectionPath, { fieldSelector })
        if (listed.status !== 200) {
          throwIfForbidden(listed.status, `list ${what}`, listed.message)
          throw new Error(`listing ${what} answered HTTP ${listed.status}: ${listed.message}`)
        }
        const list = listed.body as ListBody
        const found = list.items?.find((item) => item.metadata?.name === options.name)
        if (found) {
          observe(found)
          if (options.isFinal(found)) return found
        } else if (listOnly) {
          observe(null) // no GET reported the absence
        }
        resourceVersion = list.metadata?.resourceVersion
      }
      firstRead = false
      checkStop()

      const startedAt = now()
      const outcome = await watchOnce(resourceVersion)
      switch (outcome.kind) {
        case 'final':
          return outcome.test
        case 'aborted':
          throw new KubeAbortError()
        case 'deadline':
          throw timeoutError()
        case 'forbidden':
          throw new PermanentError(outcome.message)
        case 'ended':
          if (outcome.why === 'gone') relist = true
          if (
            outcome.why === 'error' ||
            (!outcome.sawEvent && now() - startedAt < minHealthyWatchMs)
          ) {
            growBackoff()
          } else {
            delayMs = 0
          }
      }
    } catch (err) {
      firstRead = false
      if (err instanceof DeadlineReached) throw timeoutError()
      if (err instanceof WaitTimeoutError || isAbortError(err) || err instanceof PermanentError) {
        throw err
      }
      // A failed read (transport error, 5xx, timeout): re-read after a backoff.
      stats.errors++
      growBackoff()
    }
  }

  // One watch, until a final object, its end, the deadline or the caller's abort.
  function watchOnce(resourceVersion: string | undefined): Promise<WatchOutcome> {
    stats.watches++
    const watch = new Watch(options.kc)
    if (options.watchInactivityMs !== undefined && 'requestTimeoutMs' in watch) {
      Object.assign(watch, { requestTimeoutMs: options.watchInactivityMs })
    }
    return new Promise<WatchOutcome>((resolve) => {
      let settled = false
      let sawEvent = false
      let controller: AbortController | undefined
      let deadlineTimer: NodeJS.Timeout | undefined
      const armDeadline = (): void => {
        clearTimeout(deadlineTimer)
        deadlineTimer = setTimeout(
          () => finish({ kind: 'deadline' }),
          Math.max(0, deadline() - now())
        )
      }
      const onAbort = (): void => finish({ kind: 'aborted' })
      const finish = (outcome: WatchOutcome): void => {
        if (settled) return
        settled = true
        clearTimeout(deadlineTimer)
        options.signal.removeEventListener('abort', onAbort)
        controller?.abort()
        resolve(outcome)
      }
      options.signal.addEventListener('abort', onAbort, { once: true })
      if (options.signal.aborted) return onAbort()
      armDeadline()

      const onEvent = (type: string, object: unknown): void => {
        if (settled) return
        if (type === 'ERROR') {
          const status = object as KubeStatus | undefined
          if (status?.code === 410) {
            stats.gone++
            return finish({ kind: 'ended', why: 'gone', sawEvent })
          }
          stats.errors++
          return finish({ kind: 'ended', why: 'error', sawEvent, error: status?.message })
        }
        const test = object as CoderTemplateTest | undefined
        if (type === 'BOOKMARK') {
          stats.bookmarks++
          sawEvent = true
          return
        }
        // The field selector already limits the stream to our object; ignore anything else.
        if (test?.metadata?.name !== options.name) return
        stats.events++
        sawEvent = true
        if (type === 'ADDED' || type === 'MODIFIED') {
          const wasSeen = firstSeenAt !== undefined
          observe(test)
          if (options.isFinal(test)) return finish({ kind: 'final', test })
          if (!wasSeen) armDeadline() // the wait deadline replaces the sync deadline
        } else if (type === 'DELETED') {
          observe(null)
        }
      }
      const onDone = (err: unknown): void => {
        if (settled) return
        if (err === null || err === undefined) {
          stats.cleanEnds++
          return finish({ kind: 'ended', why: 'clean', sawEvent })
        }
        const e = err as Error & { statusCode?: number }
        if (e.name === 'TimeoutError') {
          stats.inactivityTimeouts++
          return finish({ kind: 'ended', why: 'inactivity', sawEvent })
        }
        if (e.statusCode === 410) {
          stats.gone++
          return finish({ kind: 'ended', why: 'gone', sawEvent })
        }
        if (e.statusCode === 401 || e.statusCode === 403) {
          return finish({
            kind: 'forbidden',
            message: forbiddenMessage(e.statusCode, `watch ${what}`, e.message)
          })
        }
        stats.errors++
        finish({ kind: 'ended', why: 'error', sawEvent, error: e.message })
      }

      watch
        .watch(
          collectionPath,
          {
            fieldSelector,
            resourceVersion,
            allowWatchBookmarks: true,
            timeoutSeconds: options.watchTimeoutSeconds ?? 300
          },
          onEvent,
          onDone
        )
        .then((c) => {
          controller = c
          if (settled) c.abort()
        })
        .catch(onDone)
    })
  }
}

class PermanentError extends Error {}

function forbiddenMessage(status: number, action: string, detail: string): string {
  return status === 401
    ? `the Kubernetes API server rejected the credentials (401) trying to ${action}: check the kubeconfig's user`
    : `the kubeconfig's user may not ${action} (403 Forbidden: ${detail}); grant get, list and watch on codertemplatetests.coder.com (coder-k8s-api.md §3)`
}

function throwIfForbidden(status: number, action: string, detail: string): void {
  if (status === 401 || status === 403)
    throw new PermanentError(forbiddenMessage(status, action, detail))
}

// ±25 % so many gates never retry in step.
function jitter(ms: number): number {
  return Math.round(ms * (0.75 + Math.random() * 0.5))
}

/** Node's abortable timer, cut at the deadline. */
function sleep(ms: number, signal: AbortSignal, untilDeadlineMs: number): Promise<void> {
  return delay(Math.max(0, Math.min(ms, untilDeadlineMs)), undefined, { signal }).catch(() => {
    throw new KubeAbortError()
  })
}
