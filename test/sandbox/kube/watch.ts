// Watches of codertemplatetests: replay from a resourceVersion (410 Gone when too old), live
// events from the store, BOOKMARKs, and the watch's timeout (Kubernetes API concepts: watches).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { TEST_API_VERSION, TEST_KIND } from '../../../src/objects/coder-k8s.js'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import { matches, parseFieldSelector, parseLabelSelector } from './selectors.js'
import { statusBody } from './status.js'
import type { StoredEvent, TestStore } from './store.js'

export interface WatchContext {
  store: TestStore
  /** Open watch responses (dropWatches and close end them). */
  openStreams: Set<ServerResponse>
  record(req: IncomingMessage, status: number): void
  bookmarkIntervalMs: number
  maxWatchSeconds?: number
  watchSecondMs?: number
}

type Selected = (o: CoderTemplateTest) => boolean

/** The label and field selectors of a list or watch, and its namespace (undefined: all). */
export function selectTests(namespace: string | undefined, query: URLSearchParams): Selected {
  const labels = parseLabelSelector(query.get('labelSelector'))
  const fields = parseFieldSelector(query.get('fieldSelector'), [
    'metadata.name',
    'metadata.namespace'
  ])
  return (o) =>
    (namespace === undefined || o.metadata.namespace === namespace) &&
    matches(labels, o.metadata.labels ?? {}) &&
    matches(fields, {
      'metadata.name': o.metadata.name,
      'metadata.namespace': o.metadata.namespace
    })
}

interface WatchStream {
  send(type: string, object: unknown): void
  timers: NodeJS.Timeout[]
  unsubscribe: () => void
  end(): void
}

function openStream(context: WatchContext, req: IncomingMessage, res: ServerResponse) {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' })
  res.flushHeaders()
  context.record(req, 200)
  context.openStreams.add(res)
  const stream: WatchStream = {
    send(type, object) {
      if (!res.writableEnded) res.write(JSON.stringify({ type, object }) + '\n')
    },
    timers: [],
    unsubscribe: () => {},
    end() {
      for (const t of stream.timers) clearTimeout(t)
      stream.unsubscribe()
      context.openStreams.delete(res)
      if (!res.writableEnded) res.end()
    }
  }
  req.on('close', stream.end)
  res.on('close', stream.end)
  return stream
}

/** Sends what came before the live events; the last resourceVersion seen, or null on ERROR. */
function replay(
  store: TestStore,
  stream: WatchStream,
  namespace: string | undefined,
  selected: Selected,
  requested: string | null
): number | null {
  if (!requested || requested === '0') {
    // Start at most recent, with synthetic ADDED events for the current state.
    const lastSent = Number(store.currentResourceVersion)
    for (const o of store.list(namespace)) if (selected(o)) stream.send('ADDED', o)
    return lastSent
  }
  const from = Number(requested)
  if (!Number.isInteger(from) || from < 0) {
    stream.send('ERROR', statusBody(400, 'BadRequest', `invalid resource version: ${requested}`))
    return null
  }
  if (from < store.oldestWatchableRevision) {
    // k8s watch cache: "too old resource version: <requested> (<oldest - 1>)"
    const message = `too old resource version: ${from} (${store.oldestWatchableRevision})`
    stream.send('ERROR', statusBody(410, 'Expired', message))
    return null
  }
  let lastSent = from
  for (const e of store.eventsAfter(from)) {
    lastSent = e.resourceVersion
    if (selected(e.object)) stream.send(e.type, e.object)
  }
  return lastSent
}

function scheduleBookmarks(
  context: WatchContext,
  stream: WatchStream,
  lastSent: () => number
): void {
  const interval = context.bookmarkIntervalMs
  const bookmark = (): void => {
    stream.send('BOOKMARK', {
      kind: TEST_KIND,
      apiVersion: TEST_API_VERSION,
      metadata: {
        resourceVersion: String(Math.max(lastSent(), Number(context.store.currentResourceVersion)))
      }
    })
    stream.timers.push(setTimeout(bookmark, interval))
  }
  stream.timers.push(setTimeout(bookmark, interval))
}

function scheduleTimeout(context: WatchContext, stream: WatchStream, query: URLSearchParams) {
  const asked = Number(query.get('timeoutSeconds') ?? '')
  const cap = context.maxWatchSeconds ?? Infinity
  const timeoutSeconds = Math.min(asked > 0 ? asked : Infinity, cap)
  // guess: without timeoutSeconds the real server ends watches after 30-60 min; here on close only
  if (Number.isFinite(timeoutSeconds))
    stream.timers.push(setTimeout(stream.end, timeoutSeconds * (context.watchSecondMs ?? 1000)))
}

/** Answers a watch request itself (a stream of JSON lines). */
export function watchTests(
  context: WatchContext,
  req: IncomingMessage,
  res: ServerResponse,
  namespace: string | undefined,
  query: URLSearchParams
): void {
  const selected = selectTests(namespace, query)
  const stream = openStream(context, req, res)
  const replayed = replay(context.store, stream, namespace, selected, query.get('resourceVersion'))
  if (replayed === null) return stream.end()
  let lastSent = replayed
  stream.unsubscribe = context.store.subscribe((e: StoredEvent) => {
    if (e.resourceVersion <= lastSent) return
    lastSent = e.resourceVersion
    if (selected(e.object)) stream.send(e.type, e.object)
  })
  const allowBookmarks = ['true', '1'].includes(query.get('allowWatchBookmarks') ?? '')
  if (allowBookmarks && context.bookmarkIntervalMs > 0)
    scheduleBookmarks(context, stream, () => lastSent)
  scheduleTimeout(context, stream, query)
}
