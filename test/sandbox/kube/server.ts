// The Kubernetes API subset of the sandbox, over real HTTP on 127.0.0.1:<ephemeral port>:
// bearer-token auth, RBAC on every request (rbac.ts), discovery, SelfSubjectAccessReview,
// codertemplatetests (get, list, watch, create, update, patch, delete, /status) with CRD
// validation, and the aggregated aggregation.coder.com API.
// Facts: coder-k8s-api.md §1 (CRD), §2 (aggregated API), §3 (RBAC).
import { EventEmitter } from 'node:events'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { parse as parseYaml, stringify as toYaml } from 'yaml'
import {
  AGGREGATION_API_VERSION,
  AGGREGATION_GROUP,
  AGGREGATION_VERSION,
  PROMOTION_KIND,
  TEST_API_VERSION,
  TEST_GROUP,
  TEST_KIND,
  TEST_PLURAL,
  TEST_VERSION
} from '../../../src/api.js'
import type { CoderTemplateTest } from '../../../src/api.js'
import type { CoderBackend, RecordedRequest } from '../contracts.js'
import { AggregatedApi, REAL_PROMOTE_TIMING } from './aggregated.js'
import type { Answer, PromoteFault, PromoteTiming } from './aggregated.js'
import { TestController } from './controller.js'
import type { ControllerOptions, FinalStatusInfo } from './controller.js'
import { matches, parseFieldSelector, parseLabelSelector } from './selectors.js'
import { PROTOBUF_CONTENT_TYPE, decodeSelfSubjectAccessReview } from './protobuf.js'
import { SandboxRbac, requestAttributes } from './rbac.js'
import type { Decision, RequestAttributes, SandboxRbacOptions } from './rbac.js'
import { ApiError, apiError, badRequest, invalid, statusBody, unauthorized } from './status.js'
import { TestStore } from './store.js'
import type { StoredEvent } from './store.js'
import { loadTestSchema } from './validation.js'
import type { TestSchema } from './validation.js'

export interface KubeSandboxOptions {
  coder: CoderBackend
  /** Bearer token clients must send (default: random). */
  token?: string
  /** Leave a group out of discovery and routing (coder-k8s not installed). */
  serveTestGroup?: boolean
  serveAggregationGroup?: boolean
  /** Watch events kept for resuming watches; older resourceVersions get 410 Gone. */
  eventHistoryLimit?: number
  /**
   * Interval of BOOKMARK events on watches that allow them (real API server: about 1 min); 0 sends
   * none (Kubernetes API concepts: clients must not assume bookmarks at any interval).
   */
  bookmarkIntervalMs?: number
  /**
   * Milliseconds of one second of a watch's `timeoutSeconds` (default 1000): a bench scales time
   * with it. guess: the real server also caps watches near its --min-request-timeout (1800 s,
   * randomised); see maxWatchSeconds.
   */
  watchSecondMs?: number
  /** The server ends every watch after at most this many seconds (default: as the client asks). */
  maxWatchSeconds?: number
  /** Controller scripting; `false` runs no controller (objects never get a status). */
  controller?: ControllerOptions | false
  /**
   * RBAC of the token's user: the Role's rules (default: the Role of config/rbac/gate-role.yaml)
   * and the namespaces it is bound in (default: every namespace). See rbac.ts.
   */
  rbac?: Omit<SandboxRbacOptions, 'user'>
  /**
   * Rewrites the Role's promote grant: promote allowed only for these template names (null: any
   * name). Unset: as the Role says (gate-role.yaml: acme.docker).
   */
  promoteResourceNames?: string[] | null
  /** The token's user name (Forbidden messages, SSAR reasons; default sandbox-user). */
  user?: string
  /** Promote time budgets (default: the real 34 s / 10 s / 5 s). */
  promoteTiming?: Partial<PromoteTiming>
  /** CRD file path; null forces the hand-written schema (default: the real CRD in shared/). */
  crdPath?: string | null
  /** First resourceVersion (default 1000). */
  startResourceVersion?: number
  /**
   * Serve HTTPS with a self-signed certificate (made with the `openssl` CLI, cached per process);
   * the kubeconfig carries it as certificate-authority-data. Default true: kubectl sends bearer
   * tokens only over HTTPS, and @kubernetes/client-node 2.x refuses plain HTTP unless the
   * kubeconfig sets insecure-skip-tls-verify (which the plain-HTTP kubeconfig then does).
   */
  tls?: boolean
}

export interface KubeSandbox {
  url: string
  /** PEM of the self-signed server certificate (tls only). */
  caCertificate: string | null
  token: string
  schema: TestSchema
  store: TestStore
  /** null when started with `controller: false`. */
  controller: TestController | null
  aggregated: AggregatedApi
  faults: { promote: PromoteFault[] }
  /** The authorizer of every request: rules, namespaces, deny/allow/setRules/reset. */
  rbac: SandboxRbac
  /**
   * The resourceNames of the promote grant (null: any name). Reading derives it from
   * rbac.rules; assigning rewrites the grant there.
   */
  promoteResourceNames: string[] | null
  /** Every SelfSubjectAccessReview answered, in order. */
  accessReviews: AccessReviewRecord[]
  requests: RecordedRequest[]
  /** `request` (RecordedRequest), `final-status` (FinalStatusInfo), `first-promote` ({ at }). */
  events: EventEmitter
  firstPromoteAt: number | null
  kubeconfig(options?: { context?: string; namespace?: string }): string
  /** Fault: destroys the connection of every open watch mid-stream; returns how many. */
  dropWatches(): number
  close(): Promise<void>
}

export interface AccessReviewRecord {
  at: number
  attributes: RequestAttributes
  decision: Decision
}

type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  match: RegExpExecArray,
  query: URLSearchParams
) => Promise<Answer | null>

const AUTHORIZATION_GROUP = 'authorization.k8s.io'
const AUTHORIZATION_VERSION = 'v1'

// The part of authorization.k8s.io/v1 the sandbox serves (a real server also lists
// selfsubjectrulesreviews, subjectaccessreviews and localsubjectaccessreviews).
const authorizationResources = [
  {
    name: 'selfsubjectaccessreviews',
    singularName: 'selfsubjectaccessreview',
    namespaced: false,
    kind: 'SelfSubjectAccessReview',
    verbs: ['create']
  }
]

function groupEntry(group: string, version: string) {
  const gv = { groupVersion: `${group}/${version}`, version }
  return { name: group, versions: [gv], preferredVersion: gv }
}

function resourceList(groupVersion: string, resources: unknown[]) {
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources }
}

// coder-k8s-api.md §1.1: namespaced, status subresource only, no short names.
const testResources = [
  {
    name: TEST_PLURAL,
    singularName: 'codertemplatetest',
    namespaced: true,
    kind: TEST_KIND,
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']
  },
  {
    name: `${TEST_PLURAL}/status`,
    singularName: '',
    namespaced: true,
    kind: TEST_KIND,
    verbs: ['get', 'patch', 'update']
  }
]

// coder-k8s-api.md §2.1.
const aggregatedResources = [
  {
    name: 'codertemplates',
    singularName: 'codertemplate',
    namespaced: true,
    kind: 'CoderTemplate',
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']
  },
  {
    name: 'codertemplates/promote',
    singularName: '',
    namespaced: true,
    group: AGGREGATION_GROUP,
    version: AGGREGATION_VERSION,
    kind: PROMOTION_KIND,
    verbs: ['create']
  },
  {
    name: 'codertemplateversions',
    singularName: 'codertemplateversion',
    namespaced: true,
    kind: 'CoderTemplateVersion',
    verbs: ['get', 'list']
  }
]

/** Request bodies as read, for the request record. */
const requestBodies = new WeakMap<IncomingMessage, string>()

function readRawBody(req: IncomingMessage, limit = 3 * 1024 * 1024): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) reject(apiError(413, 'RequestEntityTooLarge', 'request entity too large'))
      else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

async function readBody(req: IncomingMessage): Promise<string> {
  const text = (await readRawBody(req)).toString('utf8')
  requestBodies.set(req, text)
  return text
}

/** JSON, or Kubernetes protobuf (kubectl's encoding of built-in types); recorded as JSON. */
async function readReviewBody(req: IncomingMessage): Promise<unknown> {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
  if (type !== PROTOBUF_CONTENT_TYPE) return parseJson(await readBody(req))
  const review = decodeSelfSubjectAccessReview(await readRawBody(req))
  requestBodies.set(req, JSON.stringify(review))
  return review
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw badRequest(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml'
    )
  }
}

/** RFC 7386 JSON merge patch (also used for strategic merge patches: no list strategy here). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch
  const out: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key]
    else out[key] = mergePatch(out[key], value)
  }
  return out
}

/** RFC 6902 JSON patch: add, replace, remove, test. */
function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json patch must be an array of operations')
  const doc = structuredClone(target) as Record<string, unknown>
  for (const op of ops as { op: string; path: string; value?: unknown }[]) {
    const parts = op.path
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    const last = parts.pop()!
    let parent: Record<string, unknown> | unknown[] = doc
    for (const p of parts) {
      const next: unknown = (parent as Record<string, unknown>)[p]
      if (next === undefined || next === null || typeof next !== 'object')
        throw apiError(
          422,
          'Invalid',
          `jsonpatch ${op.op} operation does not apply: doc is missing path: "${op.path}"`
        )
      parent = next as Record<string, unknown>
    }
    const container = parent as Record<string, unknown> & unknown[]
    if (op.op === 'test') {
      if (JSON.stringify(container[last as never]) !== JSON.stringify(op.value))
        throw apiError(
          422,
          'Invalid',
          `the server rejected our request due to an error in our request`
        )
    } else if (op.op === 'remove') {
      if (Array.isArray(container)) container.splice(Number(last), 1)
      else delete container[last]
    } else if (op.op === 'add' && Array.isArray(container)) {
      container.splice(last === '-' ? container.length : Number(last), 0, op.value)
    } else if (op.op === 'add' || op.op === 'replace') {
      container[last as never] = op.value as never
    } else throw badRequest(`unsupported json patch operation ${JSON.stringify(op.op)}`)
  }
  return doc
}

let cachedCertificate: { key: string; cert: string } | null = null

/** A self-signed certificate for 127.0.0.1 and localhost, made once per process. */
function selfSignedCertificate(): { key: string; cert: string } {
  if (cachedCertificate) return cachedCertificate
  const dir = mkdtempSync(join(tmpdir(), 'kube-sandbox-tls-'))
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '2',
        '-subj',
        '/CN=kube-sandbox',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost'
      ],
      { stdio: 'ignore' }
    )
    cachedCertificate = {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8')
    }
    return cachedCertificate
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function age(created: string | undefined): string {
  if (!created) return '<unknown>'
  const seconds = Math.max(0, Math.floor((Date.now() - Date.parse(created)) / 1000))
  if (seconds < 120) return `${seconds}s`
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`
  return `${Math.floor(seconds / 3600)}h`
}

/** Server-side printing (meta.k8s.io/v1 Table) with the CRD's printer columns (§1.1). */
function table(items: CoderTemplateTest[], resourceVersion: string) {
  const column = (name: string, type: string, format = '') => ({
    name,
    type,
    format,
    description: '',
    priority: 0
  })
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: [
      column('Name', 'string', 'name'),
      column('Phase', 'string'),
      column('Template', 'string'),
      column('Version', 'string'),
      column('Reason', 'string'),
      column('Age', 'date')
    ],
    rows: items.map((o) => ({
      cells: [
        o.metadata.name,
        o.status?.phase ?? null,
        o.spec.template,
        o.status?.templateVersionName ?? null,
        o.status?.reason ?? null,
        age(o.metadata.creationTimestamp)
      ],
      object: {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: o.metadata
      }
    }))
  }
}

function wantsTable(req: IncomingMessage): boolean {
  return /as=Table/.test(String(req.headers.accept ?? ''))
}

export async function startKubeSandbox(options: KubeSandboxOptions): Promise<KubeSandbox> {
  const token = options.token ?? randomBytes(24).toString('hex')
  const serveTests = options.serveTestGroup ?? true
  const serveAggregation = options.serveAggregationGroup ?? true
  const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000
  const schema = loadTestSchema(options.crdPath === undefined ? undefined : options.crdPath)
  const store = new TestStore(
    schema,
    options.eventHistoryLimit ?? 1000,
    options.startResourceVersion ?? 1000
  )
  const events = new EventEmitter()
  const controller =
    options.controller === false
      ? null
      : new TestController(store, options.coder, options.controller)
  controller?.onFinal((info: FinalStatusInfo) => events.emit('final-status', info))

  const sandbox = {} as KubeSandbox
  const faults = { promote: [] as PromoteFault[] }
  const user = options.user ?? 'sandbox-user'
  const rbac = new SandboxRbac({ user, ...options.rbac })
  if (options.promoteResourceNames !== undefined)
    rbac.promoteResourceNames = options.promoteResourceNames
  const accessReviews: AccessReviewRecord[] = []
  const aggregated = new AggregatedApi({
    coder: options.coder,
    faults: faults.promote,
    user,
    timing: { ...REAL_PROMOTE_TIMING, ...options.promoteTiming }
  })
  const requests: RecordedRequest[] = []
  const openStreams = new Set<ServerResponse>()

  /** One record per answer; `body` is the request body when the handler read one. */
  const record = (req: IncomingMessage, status: number, body?: string): void => {
    const entry: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '',
      status,
      at: Date.now(),
      ...(body !== undefined ? { body } : {})
    }
    requests.push(entry)
    events.emit('request', entry)
  }

  const nsOf = (match: RegExpExecArray): string => decodeURIComponent(match[1])

  // ---- codertemplatetests ----
  const listTests = (
    req: IncomingMessage,
    namespace: string | undefined,
    query: URLSearchParams
  ): Answer => {
    const labels = parseLabelSelector(query.get('labelSelector'))
    const fields = parseFieldSelector(query.get('fieldSelector'), [
      'metadata.name',
      'metadata.namespace'
    ])
    const items = store
      .list(namespace)
      .filter((o) => matches(labels, o.metadata.labels ?? {}))
      .filter((o) =>
        matches(fields, {
          'metadata.name': o.metadata.name,
          'metadata.namespace': o.metadata.namespace
        })
      )
    const resourceVersion = store.currentResourceVersion
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

  const watchTests = (
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string | undefined,
    query: URLSearchParams
  ): void => {
    const labels = parseLabelSelector(query.get('labelSelector'))
    const fields = parseFieldSelector(query.get('fieldSelector'), [
      'metadata.name',
      'metadata.namespace'
    ])
    const selected = (o: CoderTemplateTest): boolean =>
      (namespace === undefined || o.metadata.namespace === namespace) &&
      matches(labels, o.metadata.labels ?? {}) &&
      matches(fields, {
        'metadata.name': o.metadata.name,
        'metadata.namespace': o.metadata.namespace
      })
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' })
    res.flushHeaders()
    record(req, 200)
    openStreams.add(res)
    const send = (type: string, object: unknown): void => {
      if (!res.writableEnded) res.write(JSON.stringify({ type, object }) + '\n')
    }
    const timers: NodeJS.Timeout[] = []
    let unsubscribe = (): boolean => true
    const end = (): void => {
      for (const t of timers) clearTimeout(t)
      unsubscribe()
      openStreams.delete(res)
      if (!res.writableEnded) res.end()
    }
    req.on('close', end)
    res.on('close', end)

    const requested = query.get('resourceVersion')
    let lastSent: number
    if (!requested || requested === '0') {
      // Start at most recent, with synthetic ADDED events for the current state.
      lastSent = Number(store.currentResourceVersion)
      for (const o of store.list(namespace)) if (selected(o)) send('ADDED', o)
    } else {
      const from = Number(requested)
      if (!Number.isInteger(from) || from < 0) {
        send('ERROR', statusBody(400, 'BadRequest', `invalid resource version: ${requested}`))
        return end()
      }
      if (from < store.oldestWatchableRevision) {
        // k8s watch cache: "too old resource version: <requested> (<oldest - 1>)"
        send(
          'ERROR',
          statusBody(
            410,
            'Expired',
            `too old resource version: ${from} (${store.oldestWatchableRevision})`
          )
        )
        return end()
      }
      lastSent = from
      for (const e of store.eventsAfter(from)) {
        lastSent = e.resourceVersion
        if (selected(e.object)) send(e.type, e.object)
      }
    }
    unsubscribe = (() => {
      const off = store.subscribe((e: StoredEvent) => {
        if (e.resourceVersion <= lastSent) return
        lastSent = e.resourceVersion
        if (selected(e.object)) send(e.type, e.object)
      })
      return () => {
        off()
        return true
      }
    })()
    const allowBookmarks = ['true', '1'].includes(query.get('allowWatchBookmarks') ?? '')
    if (allowBookmarks && bookmarkIntervalMs > 0) {
      const bookmark = (): void => {
        send('BOOKMARK', {
          kind: TEST_KIND,
          apiVersion: TEST_API_VERSION,
          metadata: {
            resourceVersion: String(Math.max(lastSent, Number(store.currentResourceVersion)))
          }
        })
        timers.push(setTimeout(bookmark, bookmarkIntervalMs))
      }
      timers.push(setTimeout(bookmark, bookmarkIntervalMs))
    }
    const asked = Number(query.get('timeoutSeconds') ?? '')
    const cap = options.maxWatchSeconds ?? Infinity
    const timeoutSeconds = Math.min(asked > 0 ? asked : Infinity, cap)
    // guess: without timeoutSeconds the real server ends watches after 30-60 min; here on close only
    if (Number.isFinite(timeoutSeconds))
      timers.push(setTimeout(end, timeoutSeconds * (options.watchSecondMs ?? 1000)))
  }

  const readTestBody = async (req: IncomingMessage): Promise<unknown> => {
    const text = await readBody(req)
    if (/yaml/.test(String(req.headers['content-type'] ?? ''))) return parseYaml(text)
    return parseJson(text)
  }

  const routes: [string, RegExp, Handler][] = []
  const route = (method: string, pattern: RegExp, handler: Handler): void => {
    routes.push([method, pattern, handler])
  }

  route('GET', /^\/api$/, async (req) => ({
    status: 200,
    body: {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [
        { clientCIDR: '0.0.0.0/0', serverAddress: req.headers.host ?? '' }
      ]
    }
  }))
  route('GET', /^\/api\/v1$/, async () => ({
    status: 200,
    body: resourceList('v1', [
      {
        name: 'namespaces',
        singularName: 'namespace',
        namespaced: false,
        kind: 'Namespace',
        verbs: ['get', 'list']
      }
    ])
  }))
  // guess: every namespace exists (kubectl reads the namespace after a NotFound).
  route('GET', /^\/api\/v1\/namespaces\/([^/]+)$/, async (_req, _res, m) => ({
    status: 200,
    body: {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: nsOf(m) },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' }
    }
  }))
  route('GET', /^\/version$/, async () => ({
    status: 200,
    body: { major: '1', minor: '32', gitVersion: 'v1.32.0-sandbox', platform: 'linux/amd64' }
  }))
  route('GET', /^\/apis$/, async () => ({
    status: 200,
    body: {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [
        groupEntry(AUTHORIZATION_GROUP, AUTHORIZATION_VERSION),
        ...(serveTests ? [groupEntry(TEST_GROUP, TEST_VERSION)] : []),
        ...(serveAggregation ? [groupEntry(AGGREGATION_GROUP, AGGREGATION_VERSION)] : [])
      ]
    }
  }))
  route('GET', /^\/apis\/authorization\.k8s\.io$/, async () => ({
    status: 200,
    body: {
      kind: 'APIGroup',
      apiVersion: 'v1',
      ...groupEntry(AUTHORIZATION_GROUP, AUTHORIZATION_VERSION)
    }
  }))
  route('GET', /^\/apis\/authorization\.k8s\.io\/v1$/, async () => ({
    status: 200,
    body: resourceList(`${AUTHORIZATION_GROUP}/${AUTHORIZATION_VERSION}`, authorizationResources)
  }))
  route('POST', /^\/apis\/authorization\.k8s\.io\/v1\/selfsubjectaccessreviews$/, async (req) =>
    selfSubjectAccessReview(await readReviewBody(req))
  )
  if (serveTests) {
    route('GET', /^\/apis\/coder\.com$/, async () => ({
      status: 200,
      body: { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(TEST_GROUP, TEST_VERSION) }
    }))
    route('GET', /^\/apis\/coder\.com\/v1alpha1$/, async () => ({
      status: 200,
      body: resourceList(TEST_API_VERSION, testResources)
    }))
    route(
      'GET',
      /^\/apis\/coder\.com\/v1alpha1\/codertemplatetests$/,
      async (req, res, _m, query) => {
        if (['true', '1'].includes(query.get('watch') ?? '')) {
          watchTests(req, res, undefined, query)
          return null
        }
        return listTests(req, undefined, query)
      }
    )
    const collection = /^\/apis\/coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplatetests$/
    const item = /^\/apis\/coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplatetests\/([^/]+)$/
    const statusPath =
      /^\/apis\/coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplatetests\/([^/]+)\/status$/
    route('GET', collection, async (req, res, m, query) => {
      if (['true', '1'].includes(query.get('watch') ?? '')) {
        watchTests(req, res, nsOf(m), query)
        return null
      }
      return listTests(req, nsOf(m), query)
    })
    route('POST', collection, async (req, _res, m, query) => {
      const body = await readTestBody(req)
      const created = store.create(nsOf(m), body, query.get('dryRun') === 'All')
      return { status: 201, body: created }
    })
    route('GET', item, async (req, _res, m) => {
      const object = store.mustGet(nsOf(m), decodeURIComponent(m[2]))
      if (wantsTable(req))
        return { status: 200, body: table([object], object.metadata.resourceVersion!) }
      return { status: 200, body: object }
    })
    route('GET', statusPath, async (_req, _res, m) => ({
      status: 200,
      body: store.mustGet(nsOf(m), decodeURIComponent(m[2]))
    }))
    route('PUT', item, async (req, _res, m, query) => {
      const body = (await readTestBody(req)) as CoderTemplateTest
      return {
        status: 200,
        body: store.update(nsOf(m), decodeURIComponent(m[2]), body, query.get('dryRun') === 'All')
      }
    })
    route('PATCH', item, async (req, _res, m, query) => {
      const name = decodeURIComponent(m[2])
      const current = store.mustGet(nsOf(m), name)
      const patched = applyPatch(req, current, parseJson(await readBody(req))) as CoderTemplateTest
      // A patch carries no precondition unless it sets metadata.resourceVersion itself.
      return {
        status: 200,
        body: store.update(nsOf(m), name, patched, query.get('dryRun') === 'All')
      }
    })
    route('PUT', statusPath, async (req, _res, m) => {
      const body = (await readTestBody(req)) as CoderTemplateTest
      return {
        status: 200,
        body: store.updateStatus(
          nsOf(m),
          decodeURIComponent(m[2]),
          body.status,
          body.metadata?.resourceVersion
        )
      }
    })
    route('PATCH', statusPath, async (req, _res, m) => {
      const name = decodeURIComponent(m[2])
      const current = store.mustGet(nsOf(m), name)
      const patched = applyPatch(req, current, parseJson(await readBody(req))) as CoderTemplateTest
      return { status: 200, body: store.updateStatus(nsOf(m), name, patched.status) }
    })
    route('DELETE', item, async (_req, _res, m, query) => {
      const object = store.delete(nsOf(m), decodeURIComponent(m[2]), query.get('dryRun') === 'All')
      return { status: 200, body: object }
    })
  }
  if (serveAggregation) {
    route('GET', /^\/apis\/aggregation\.coder\.com$/, async () => ({
      status: 200,
      body: {
        kind: 'APIGroup',
        apiVersion: 'v1',
        ...groupEntry(AGGREGATION_GROUP, AGGREGATION_VERSION)
      }
    }))
    route('GET', /^\/apis\/aggregation\.coder\.com\/v1alpha1$/, async () => ({
      status: 200,
      body: resourceList(AGGREGATION_API_VERSION, aggregatedResources)
    }))
    route(
      'GET',
      /^\/apis\/aggregation\.coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplates\/([^/]+)$/,
      async (_req, _res, m) => aggregated.getTemplate(nsOf(m), decodeURIComponent(m[2]))
    )
    route(
      'GET',
      /^\/apis\/aggregation\.coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplateversions$/,
      async (_req, _res, m, query) => {
        if (['true', '1'].includes(query.get('watch') ?? ''))
          throw apiError(
            405,
            'MethodNotAllowed',
            'watch is not supported on resources of kind "codertemplateversions"'
          )
        return aggregated.listVersions(nsOf(m), query)
      }
    )
    route(
      'GET',
      /^\/apis\/aggregation\.coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplateversions\/([^/]+)$/,
      async (_req, _res, m) => aggregated.getVersion(nsOf(m), decodeURIComponent(m[2]))
    )
    route(
      'POST',
      /^\/apis\/aggregation\.coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplates\/([^/]+)\/promote$/,
      async (req, _res, m, query) => {
        const body = await readBody(req)
        return aggregated.promote(
          nsOf(m),
          decodeURIComponent(m[2]),
          body,
          query,
          receivedAt.get(req) ?? Date.now()
        )
      }
    )
  }

  /** SelfSubjectAccessReview: the same rules as every request, for the token's own user. */
  function selfSubjectAccessReview(body: unknown): Answer {
    const review = (body ?? {}) as {
      spec?: {
        resourceAttributes?: Record<string, string | undefined>
        nonResourceAttributes?: Record<string, string | undefined>
      }
    }
    const spec = review.spec ?? {}
    const resource = spec.resourceAttributes
    const nonResource = spec.nonResourceAttributes
    // guess: the validation texts (pkg/apis/authorization/validation), recalled
    if (resource && nonResource)
      throw invalid('SelfSubjectAccessReview', AUTHORIZATION_GROUP, '', [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.nonResourceAttributes',
          message: `Invalid value: ${JSON.stringify(JSON.stringify(nonResource))}: cannot be specified in combination with resourceAttributes`
        }
      ])
    if (!resource && !nonResource)
      throw invalid('SelfSubjectAccessReview', AUTHORIZATION_GROUP, '', [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.resourceAttributes',
          message:
            'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified'
        }
      ])
    const attributes: RequestAttributes = resource
      ? {
          resourceRequest: true,
          namespace: resource.namespace ?? '',
          verb: resource.verb ?? '',
          group: resource.group ?? '',
          ...(resource.version ? { version: resource.version } : {}),
          resource: resource.resource ?? '',
          ...(resource.subresource ? { subresource: resource.subresource } : {}),
          ...(resource.name ? { name: resource.name } : {})
        }
      : { resourceRequest: false, path: nonResource!.path ?? '', verb: nonResource!.verb ?? '' }
    const decision = rbac.authorize(attributes)
    accessReviews.push({ at: Date.now(), attributes, decision })
    return {
      status: 201,
      body: {
        kind: 'SelfSubjectAccessReview',
        apiVersion: `${AUTHORIZATION_GROUP}/${AUTHORIZATION_VERSION}`,
        metadata: { creationTimestamp: null }, // guess: as older servers print an unset time
        spec,
        // RBAC gives no opinion (not a deny) when no rule matches: allowed false, no reason.
        status: {
          allowed: decision.allowed,
          ...(decision.reason ? { reason: decision.reason } : {})
        }
      }
    }
  }

  function applyPatch(req: IncomingMessage, current: unknown, patch: unknown): unknown {
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
    if (
      type === 'application/merge-patch+json' ||
      type === 'application/strategic-merge-patch+json'
    )
      return mergePatch(current, patch)
    if (type === 'application/json-patch+json') return jsonPatch(current, patch)
    throw apiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json`
    )
  }

  const expected = Buffer.from(`Bearer ${token}`)
  const authorized = (req: IncomingMessage): boolean => {
    const given = Buffer.from(String(req.headers.authorization ?? ''))
    return given.length === expected.length && timingSafeEqual(given, expected)
  }

  /** When each promote request arrived (before authorization: the deadline starts there). */
  const receivedAt = new WeakMap<IncomingMessage, number>()
  const promotePath =
    /^\/apis\/aggregation\.coder\.com\/v1alpha1\/namespaces\/[^/]+\/codertemplates\/[^/]+\/promote$/

  const listener: RequestListener = (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://sandbox')
      // Routing sees the decoded path, as Go's URL.Path does (client-node encodes `/` in plurals).
      let path: string
      try {
        path = decodeURIComponent(url.pathname).replace(/\/+$/, '') || '/'
      } catch {
        path = url.pathname
      }
      let answer: Answer | null
      try {
        if (!authorized(req)) throw unauthorized()
        if (req.method === 'POST' && promotePath.test(path)) {
          const at = Date.now()
          receivedAt.set(req, at)
          if (sandbox.firstPromoteAt === null) {
            sandbox.firstPromoteAt = at
            events.emit('first-promote', { at })
          }
        }
        // Authorization comes before routing, as in kube-apiserver: a denied request is 403 even
        // for a path that does not exist.
        const attributes = requestAttributes(req.method ?? 'GET', path, url.searchParams)
        if (!rbac.authorize(attributes).allowed) throw rbac.forbidden(attributes)
        const methodRoutes = routes.filter(([, pattern]) => pattern.test(path))
        if (methodRoutes.length === 0) {
          // Unknown paths answer 404 like the API server (kubectl tolerates it for /openapi).
          throw apiError(404, 'NotFound', 'the server could not find the requested resource', {})
        }
        const found = methodRoutes.find(([method]) => method === req.method)
        if (!found)
          throw apiError(
            405,
            'MethodNotAllowed',
            `the server does not allow this method on the requested resource`
          )
        answer = await found[2](req, res, found[1].exec(path)!, url.searchParams)
      } catch (error) {
        const status =
          error instanceof ApiError
            ? error.body
            : statusBody(500, 'InternalError', `sandbox error: ${(error as Error).message}`)
        answer = { status: status.code, body: status }
      }
      if (answer === null) return // a watch stream answered itself
      const text = JSON.stringify(answer.body)
      res.writeHead(answer.status, { 'Content-Type': 'application/json' })
      res.end(text)
      record(req, answer.status, requestBodies.get(req))
    })()
  }
  const certificate = (options.tls ?? true) ? selfSignedCertificate() : null
  const server: Server = certificate
    ? (createHttpsServer(
        { key: certificate.key, cert: certificate.cert },
        listener
      ) as unknown as Server)
    : createServer(listener)

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const url = `${certificate ? 'https' : 'http'}://127.0.0.1:${port}`

  Object.assign(sandbox, {
    url,
    caCertificate: certificate?.cert ?? null,
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
    firstPromoteAt: null,
    kubeconfig({ context = 'sandbox', namespace }: { context?: string; namespace?: string } = {}) {
      return toYaml({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'sandbox',
            cluster: {
              server: url,
              ...(certificate
                ? { 'certificate-authority-data': Buffer.from(certificate.cert).toString('base64') }
                : { 'insecure-skip-tls-verify': true })
            }
          }
        ],
        users: [{ name: 'sandbox-user', user: { token } }],
        contexts: [
          {
            name: context,
            context: {
              cluster: 'sandbox',
              user: 'sandbox-user',
              ...(namespace ? { namespace } : {})
            }
          }
        ],
        'current-context': context
      })
    },
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
