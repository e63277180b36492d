// The Kubernetes API subset of the sandbox, over real HTTP on 127.0.0.1:<ephemeral port>:
// bearer-token auth, RBAC on every request (rbac.ts), discovery, SelfSubjectAccessReview,
// codertemplatetests (get, list, watch, create, update, patch, delete, /status) with CRD
// validation, and the aggregated aggregation.coder.com API.
// Facts: the coder-k8s CRD and docs/reference/aggregated-api-behavior.md (coder/coder-k8s).
// Routes: discovery.ts, access-review.ts, test-routes.ts (+ watch.ts), aggregated-routes.ts, on
// the table and listener of routes.ts. State: state.ts (store.ts, controller.ts, rbac.ts,
// aggregated.ts).
import { createServer } from 'node:http'
import type { IncomingMessage, RequestListener, Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { addAccessReviewRoute } from './access-review.js'
import { addAggregatedRoutes, promotePath } from './aggregated-routes.js'
import { addCoreDiscovery } from './discovery.js'
import { addEngineRoutes } from './engine-objects.js'
import { sandboxKubeconfig } from './kubeconfig.js'
import { RouteTable, createListener } from './routes.js'
import type { KubeSandbox, KubeSandboxOptions } from './sandbox-types.js'
import { createKubeState } from './state.js'
import type { KubeState } from './state.js'
import { addTestRoutes } from './test-routes.js'
import { selfSignedCertificate } from './tls.js'

export type { AccessReviewRecord, KubeSandbox, KubeSandboxOptions } from './sandbox-types.js'

function routeTable(options: KubeSandboxOptions, state: KubeState): RouteTable {
  const served = {
    tests: options.serveTestGroup ?? true,
    aggregation: options.serveAggregationGroup ?? true
  }
  const table = new RouteTable()
  addCoreDiscovery(table, served)
  addAccessReviewRoute(table, state.rbac, state.accessReviews)
  if (served.tests)
    addTestRoutes(table, {
      store: state.store,
      openStreams: state.openStreams,
      record: state.record,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      maxWatchSeconds: options.maxWatchSeconds,
      watchSecondMs: options.watchSecondMs
    })
  if (served.aggregation) addAggregatedRoutes(table, state.aggregated, state.receivedAt)
  addEngineRoutes(table, state.engines)
  return table
}

/** Notes when each promote arrived, and the first promote of the sandbox's life. */
function promoteArrivals(state: KubeState, sandbox: KubeSandbox) {
  return (req: IncomingMessage, path: string): void => {
    if (req.method !== 'POST' || !promotePath.test(path)) return
    const at = Date.now()
    state.receivedAt.set(req, at)
    if (sandbox.firstPromoteAt === null) {
      sandbox.firstPromoteAt = at
      state.events.emit('first-promote', { at })
    }
  }
}

async function listen(listener: RequestListener, tls: boolean) {
  const certificate = tls ? selfSignedCertificate() : null
  const server: Server = certificate
    ? (createHttpsServer(
        { key: certificate.key, cert: certificate.cert },
        listener
      ) as unknown as Server)
    : createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const url = `${certificate ? 'https' : 'http'}://127.0.0.1:${port}`
  return { server, url, caCertificate: certificate?.cert ?? null }
}

export async function startKubeSandbox(options: KubeSandboxOptions): Promise<KubeSandbox> {
  const state = createKubeState(options)
  const sandbox = {} as KubeSandbox
  const listener = createListener({
    token: state.token,
    rbac: state.rbac,
    table: routeTable(options, state),
    onArrival: promoteArrivals(state, sandbox),
    record: state.record
  })
  const { server, url, caCertificate } = await listen(listener, options.tls ?? true)
  const { token, schema, store, controller, aggregated, faults, rbac } = state
  const { accessReviews, requests, events, openStreams, engines } = state
  Object.assign(sandbox, {
    url,
    caCertificate,
    token,
    schema,
    store,
    controller,
    aggregated,
    faults,
    rbac,
    accessReviews,
    requests,
    events,
    engines,
    firstPromoteAt: null,
    kubeconfig: (kubeconfigOptions) =>
      sandboxKubeconfig(url, caCertificate, token, kubeconfigOptions),
    dropWatches() {
      const streams = [...openStreams]
      for (const stream of streams) stream.socket?.destroy()
      return streams.length
    },
    async close() {
      controller?.stop()
      for (const stream of openStreams) stream.end()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  } satisfies Omit<KubeSandbox, 'promoteResourceNames'>)
  Object.defineProperty(sandbox, 'promoteResourceNames', {
    enumerable: true,
    get: () => rbac.promoteResourceNames,
    set: (names: string[] | null) => {
      rbac.promoteResourceNames = names
    }
  })
  return sandbox
}
