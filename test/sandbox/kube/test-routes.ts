// Routes of codertemplatetests (coder.com/v1alpha1): list, watch, create, get, update, patch,
// delete and /status. The objects live in the TestStore.
import type { IncomingMessage } from 'node:http'
import { TEST_API_VERSION, TEST_KIND } from '../../../src/objects/coder-k8s.js'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import type { Answer } from './aggregated.js'
import { addTestGroupDiscovery } from './discovery.js'
import { applyPatch } from './patch.js'
import { parseJson, readBody, readTestBody } from './request-body.js'
import type { RouteTable } from './routes.js'
import { isDryRun, isWatch, nameOf, nsOf } from './routes.js'
import { table, wantsTable } from './table.js'
import { selectTests, watchTests } from './watch.js'
import type { WatchContext } from './watch.js'

const collection = /^\/apis\/coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplatetests$/
const item = /^\/apis\/coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplatetests\/([^/]+)$/
const statusPath =
  /^\/apis\/coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplatetests\/([^/]+)\/status$/

function listTests(
  context: WatchContext,
  req: IncomingMessage,
  namespace: string | undefined,
  query: URLSearchParams
): Answer {
  const selected = selectTests(namespace, query)
  const items = context.store.list(namespace).filter(selected)
  const resourceVersion = context.store.currentResourceVersion
  if (wantsTable(req)) return { status: 200, body: table(items, resourceVersion) }
  return {
    status: 200,
    body: {
      apiVersion: TEST_API_VERSION,
      kind: `${TEST_KIND}List`,
      metadata: { resourceVersion },
      items
    }
  }
}

export function addTestRoutes(routes: RouteTable, context: WatchContext): void {
  addTestGroupDiscovery(routes)
  addReadRoutes(routes, context)
  addWriteRoutes(routes, context)
  addStatusRoutes(routes, context)
}

function addReadRoutes(routes: RouteTable, context: WatchContext): void {
  const { store } = context
  routes.route(
    'GET',
    /^\/apis\/coder\.com\/v1alpha1\/codertemplatetests$/,
    async (req, res, _m, query) => {
      if (isWatch(query)) {
        watchTests(context, req, res, undefined, query)
        return null
      }
      return listTests(context, req, undefined, query)
    }
  )
  routes.route('GET', collection, async (req, res, m, query) => {
    if (isWatch(query)) {
      watchTests(context, req, res, nsOf(m), query)
      return null
    }
    return listTests(context, req, nsOf(m), query)
  })
  routes.route('GET', item, async (req, _res, m) => {
    const object = store.mustGet(nsOf(m), nameOf(m))
    if (wantsTable(req))
      return { status: 200, body: table([object], object.metadata.resourceVersion!) }
    return { status: 200, body: object }
  })
}

function addWriteRoutes(routes: RouteTable, { store }: WatchContext): void {
  routes.route('POST', collection, async (req, _res, m, query) => {
    const body = await readTestBody(req)
    const created = store.create(nsOf(m), body, isDryRun(query))
    return { status: 201, body: created }
  })
  routes.route('PUT', item, async (req, _res, m, query) => {
    const body = (await readTestBody(req)) as CoderTemplateTest
    return { status: 200, body: store.update(nsOf(m), nameOf(m), body, isDryRun(query)) }
  })
  routes.route('PATCH', item, async (req, _res, m, query) => {
    const name = nameOf(m)
    const current = store.mustGet(nsOf(m), name)
    const patched = applyPatch(req, current, parseJson(await readBody(req))) as CoderTemplateTest
    // A patch carries no precondition unless it sets metadata.resourceVersion itself.
    return { status: 200, body: store.update(nsOf(m), name, patched, isDryRun(query)) }
  })
  routes.route('DELETE', item, async (_req, _res, m, query) => {
    const object = store.delete(nsOf(m), nameOf(m), isDryRun(query))
    return { status: 200, body: object }
  })
}

function addStatusRoutes(routes: RouteTable, { store }: WatchContext): void {
  routes.route('GET', statusPath, async (_req, _res, m) => ({
    status: 200,
    body: store.mustGet(nsOf(m), nameOf(m))
  }))
  routes.route('PUT', statusPath, async (req, _res, m) => {
    const body = (await readTestBody(req)) as CoderTemplateTest
    return {
      status: 200,
      body: store.updateStatus(nsOf(m), nameOf(m), body.status, body.metadata?.resourceVersion)
    }
  })
  routes.route('PATCH', statusPath, async (req, _res, m) => {
    const name = nameOf(m)
    const current = store.mustGet(nsOf(m), name)
    const patched = applyPatch(req, current, parseJson(await readBody(req))) as CoderTemplateTest
    return { status: 200, body: store.updateStatus(nsOf(m), name, patched.status) }
  })
}
