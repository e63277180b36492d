import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { postPromotion, readActiveVersionID } from '../../src/kube/promote-request.js'
import { decideAnswer } from '../../src/promotion/answer.js'
import { loadKubeConfig } from '../../src/kube/config.js'
import { isAbortError } from '../../src/kube/request.js'
import type { PromoteFault } from '../sandbox/kube/aggregated.js'
import { startKubeSandbox } from '../sandbox/kube/server.js'
import type { KubeSandbox } from '../sandbox/kube/server.js'
import { FakeCoder } from '../sandbox-tests/kube/helpers.js'
import {
  kubeConfigFor,
  sendJson,
  sendStatus,
  startKubeServer,
  statusBody
} from './helpers/kubeServer.js'
import type { RecordedKubeRequest, ScriptedKubeServer } from './helpers/kubeServer.js'

const NS = 'coder'
const TEMPLATE = 'acme.docker'
const PROMOTE_PATH = `/apis/aggregation.coder.com/v1alpha1/namespaces/${NS}/codertemplates/${TEMPLATE}/promote`
const TEMPLATE_PATH = `/apis/aggregation.coder.com/v1alpha1/namespaces/${NS}/codertemplates/${TEMPLATE}`
const VERSIONS_PATH = `/apis/aggregation.coder.com/v1alpha1/namespaces/${NS}/codertemplateversions`
const OLD = 'aaaaaaaa-0000-4000-8000-000000000001'

// Each scripted case is selected by the versionID the client sends (the last hex digits).
const uuid = (n: number): string => `11111111-2222-4333-8444-${String(n).padStart(12, '0')}`

function promotion(versionID: string, result: string, previous: string, active: string): unknown {
  return {
    apiVersion: 'aggregation.coder.com/v1alpha1',
    kind: 'CoderTemplateVersionPromotion',
    metadata: { name: TEMPLATE, namespace: NS },
    spec: { versionID },
    status: { result, previousActiveVersionID: previous, activeVersionID: active }
  }
}

// coder-k8s docs/reference/aggregated-api-behavior.md: the documented answers, with their exact messages, and the step that the
// pure table (promotion.ts) takes for the answer as postPromotion hands it over.
interface Case {
  n: number
  status: number
  body: (id: string) => unknown
  message: string
  next: string
}
const cases: Case[] = [
  {
    n: 201,
    status: 201,
    body: (id) => promotion(id, 'Promoted', OLD, id),
    message: '',
    next: 'promoted'
  },
  {
    n: 202,
    status: 201,
    body: (id) => promotion(id, 'AlreadyActive', id, id),
    message: '',
    next: 'promoted'
  },
  {
    n: 203,
    status: 201,
    body: (id) => promotion(id, 'WouldPromote', OLD, OLD),
    message: '',
    next: 'promoted'
  },
  {
    n: 400,
    status: 400,
    body: () =>
      statusBody(400, 'BadRequest', `spec.versionID is not a version of template "${TEMPLATE}"`),
    message: `spec.versionID is not a version of template "${TEMPLATE}"`,
    next: 'fail'
  },
  {
    n: 403,
    status: 403,
    body: () =>
      statusBody(
        403,
        'Forbidden',
        `codertemplates.aggregation.coder.com "${TEMPLATE}" is forbidden: User "ci" cannot create resource "codertemplates/promote"`
      ),
    message: `codertemplates.aggregation.coder.com "${TEMPLATE}" is forbidden: User "ci" cannot create resource "codertemplates/promote"`,
    next: 'fail'
  },
  {
    n: 404,
    status: 404,
    body: () =>
      statusBody(404, 'NotFound', `codertemplates.aggregation.coder.com "${TEMPLATE}" not found`),
    message: `codertemplates.aggregation.coder.com "${TEMPLATE}" not found`,
    next: 'fail'
  },
  {
    n: 409,
    status: 409,
    body: (id) =>
      statusBody(
        409,
        'Conflict',
        `the promotion of version ${id} was superseded by a concurrent change: version ${OLD} is active; re-read before retrying`
      ),
    message: 'was superseded by a concurrent change',
    next: 're-read'
  },
  {
    n: 422,
    status: 422,
    body: () => ({
      ...statusBody(
        422,
        'Invalid',
        'spec.versionID: Invalid value: must be the Coder ID (a UUID) of a template version'
      ),
      details: {
        causes: [
          {
            field: 'spec.versionID',
            message: 'must be the Coder ID (a UUID) of a template version'
          }
        ]
      }
    }),
    message: 'must be the Coder ID (a UUID) of a template version',
    next: 'fail'
  },
  {
    n: 429,
    status: 429,
    body: () =>
      statusBody(429, 'TooManyRequests', 'Coder rate-limited the activation; nothing was changed'),
    message: 'Coder rate-limited the activation; nothing was changed',
    next: 'retry'
  },
  {
    n: 503,
    status: 503,
    body: (id) =>
      statusBody(
        503,
        'ServiceUnavailable',
        `could not confirm the promotion of version ${id} on template "${TEMPLATE}"; it may or may not have been applied: re-read the template before retrying`
      ),
    message: 'could not confirm the promotion',
    next: 're-read'
  },
  {
    n: 504,
    status: 504,
    body: (id) =>
      statusBody(
        504,
        'Timeout',
        `the promotion of version ${id} on template "${TEMPLATE}" was not attempted: too little of the request time was left after the lookups; nothing was sent to Coder, so it is safe to try again`
      ),
    message: 'was not attempted',
    next: 'retry'
  }
]
const HANG = 999

// Answers that are not the API server's Status: a proxy's page, a gateway's JSON, a mistyped Status.
const PROXY_PAGE =
  '<html>\n<head><title>503 Service Temporarily Unavailable</title></head>\n<body>\n::error::the server is currently unable to handle the request\n</body>\n</html>\n'
const foreign: Record<number, { status: number; type: string; text: string }> = {
  601: { status: 503, type: 'text/html', text: PROXY_PAGE },
  602: {
    status: 429,
    type: 'application/json',
    text: JSON.stringify({ error: 'Coder rate-limited the activation; nothing was changed' })
  },
  603: {
    status: 503,
    type: 'application/json',
    text: JSON.stringify({
      kind: 'Status',
      code: '503',
      reason: 7,
      message: 'the server is currently unable to handle the request',
      details: { name: ['acme.docker'], group: 'aggregation.coder.com' }
    })
  }
}

let server: ScriptedKubeServer
let templateAnswer: { status: number; body: unknown } = { status: 200, body: {} }
let versionsAnswer: { status: number; body: unknown } = { status: 200, body: { items: [] } }

beforeAll(async () => {
  server = await startKubeServer(({ res, recorded }) => {
    if (recorded.method === 'POST' && recorded.path === PROMOTE_PATH) {
      const id = (JSON.parse(recorded.body) as { spec: { versionID: string } }).spec.versionID
      const n = Number(id.slice(-12))
      if (n === HANG) return // never answers: the client's timeout must end it
      const raw = foreign[n]
      if (raw) {
        res.writeHead(raw.status, { 'Content-Type': raw.type })
        res.end(raw.text)
        return
      }
      const scripted = cases.find((c) => c.n === n)
      if (!scripted) return sendStatus(res, 500, 'InternalError', 'unscripted')
      return sendJson(res, scripted.status, scripted.body(id))
    }
    if (recorded.method === 'GET' && recorded.path === TEMPLATE_PATH) {
      return sendJson(res, templateAnswer.status, templateAnswer.body)
    }
    if (recorded.method === 'GET' && recorded.path === VERSIONS_PATH) {
      return sendJson(res, versionsAnswer.status, versionsAnswer.body)
    }
    sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource')
  })
})
afterAll(() => server.close())

const target = () => ({
  kc: kubeConfigFor(server),
  namespace: NS,
  template: TEMPLATE,
  dryRun: false
})

function lastPromote(): RecordedKubeRequest {
  const all = server.requestsTo('POST', PROMOTE_PATH)
  const last = all[all.length - 1]
  if (!last) throw new Error('no promote request')
  return last
}

describe('postPromotion', () => {
  for (const c of cases) {
    it(`returns HTTP ${c.status} (${c.n}) with its message and sends the exact request`, async () => {
      const versionID = uuid(c.n)
      const answer = await postPromotion({
        kc: kubeConfigFor(server),
        namespace: NS,
        template: TEMPLATE,
        versionID,
        dryRun: c.n === 203
      })
      expect(answer.httpStatus).toBe(c.status)
      expect(answer.message).toContain(c.message)
      expect(answer.body).toEqual(JSON.parse(JSON.stringify(c.body(versionID))))
      if (c.status === 201) {
        expect(answer.promotion?.spec.versionID).toBe(versionID)
        expect(answer.promotion?.status?.result).toBe(
          { 201: 'Promoted', 202: 'AlreadyActive', 203: 'WouldPromote' }[c.n]
        )
        expect(answer.status).toBeUndefined()
      } else {
        expect(answer.promotion).toBeUndefined()
        const sent = c.body(versionID) as { code: number; reason: string; message: string }
        expect(answer.status).toMatchObject({
          kind: 'Status',
          code: sent.code,
          reason: sent.reason,
          message: sent.message
        })
      }
      const mode = c.n === 203 ? 'dry-run' : 'promote'
      expect(decideAnswer(answer, versionID, mode, TEMPLATE, NS).kind).toBe(c.next)

      const request = lastPromote()
      expect(request.authorized).toBe(true)
      expect(request.headers['content-type']).toBe('application/json')
      expect(JSON.parse(request.body)).toEqual({
        apiVersion: 'aggregation.coder.com/v1alpha1',
        kind: 'CoderTemplateVersionPromotion',
        spec: { versionID }
      })
      // Time budgets: the default client timeout (30 s) lowers the server's deadline.
      expect([...request.query.entries()]).toEqual(
        c.n === 203
          ? [
              ['dryRun', 'All'],
              ['timeout', '30s']
            ]
          : [['timeout', '30s']]
      )
    })
  }

  it('gives no Status for a proxy page, and its text on one line', async () => {
    const versionID = uuid(601)
    const answer = await postPromotion({ ...target(), versionID })
    expect(answer.httpStatus).toBe(503)
    expect(answer.status).toBeUndefined()
    expect(answer.body).toBe(PROXY_PAGE)
    expect(answer.message).not.toMatch(/\n/)
    expect(answer.message).toContain('::error::the server is currently unable')
    // Unknown: read the active version first, never a blind retry.
    expect(decideAnswer(answer, versionID, 'promote', TEMPLATE, NS)).toMatchObject({
      kind: 're-read',
      retryIfUnchanged: true
    })
  })

  it('gives no Status for JSON that is not a Status', async () => {
    const versionID = uuid(602)
    const answer = await postPromotion({ ...target(), versionID })
    expect(answer.httpStatus).toBe(429)
    expect(answer.status).toBeUndefined()
    expect(decideAnswer(answer, versionID, 'promote', TEMPLATE, NS).kind).toBe('re-read')
  })

  it('keeps only the Status fields that have the types Kubernetes gives them', async () => {
    const versionID = uuid(603)
    const answer = await postPromotion({ ...target(), versionID })
    expect(answer.status).toEqual({
      kind: 'Status',
      message: 'the server is currently unable to handle the request',
      details: { group: 'aggregation.coder.com' }
    })
    // Without a numeric code agreeing with the HTTP status the text proves nothing.
    expect(decideAnswer(answer, versionID, 'promote', TEMPLATE, NS).kind).toBe('re-read')
  })

  it('returns httpStatus 0 when the server does not answer within the client timeout', async () => {
    const answer = await postPromotion({
      kc: kubeConfigFor(server),
      namespace: NS,
      template: TEMPLATE,
      versionID: uuid(HANG),
      dryRun: false,
      timeoutMs: 150
    })
    expect(answer.httpStatus).toBe(0)
    expect(answer.message).toBe(
      `the Kubernetes API server at ${server.url} did not answer within 150 ms`
    )
    expect(lastPromote().query.get('timeout')).toBe('150ms')
  })

  it('sends the client timeout as ?timeout= in whole seconds, rounded down', async () => {
    for (const [timeoutMs, sent] of [
      [20000, '20s'],
      [25999, '25s'],
      [1000, '1s']
    ] as const) {
      await postPromotion({
        kc: kubeConfigFor(server),
        namespace: NS,
        template: TEMPLATE,
        versionID: uuid(201),
        dryRun: true,
        timeoutMs
      })
      expect(lastPromote().query.getAll('timeout')).toEqual([sent])
      expect(lastPromote().query.getAll('dryRun')).toEqual(['All'])
    }
  })

  it('returns httpStatus 0 with the transport error on a refused connection', async () => {
    const dead = await startKubeServer(() => undefined)
    const { url, token } = dead
    await dead.close()
    const answer = await postPromotion({
      kc: kubeConfigFor({ url, token }),
      namespace: NS,
      template: TEMPLATE,
      versionID: uuid(201),
      dryRun: false
    })
    expect(answer.httpStatus).toBe(0)
    expect(answer.message).toContain(`cannot reach the Kubernetes API server at ${url}`)
    expect(answer.message).not.toContain(token)
  })

  it('throws an abort error when the caller aborts a pending promotion', async () => {
    const controller = new AbortController()
    const pending = postPromotion({
      kc: kubeConfigFor(server),
      namespace: NS,
      template: TEMPLATE,
      versionID: uuid(HANG),
      dryRun: false,
      signal: controller.signal,
      timeoutMs: 20000
    })
    const before = server.requestsTo('POST', PROMOTE_PATH).length
    // abort once the request reached the server
    while (server.requestsTo('POST', PROMOTE_PATH).length === before) {
      await new Promise((r) => setTimeout(r, 5))
    }
    controller.abort()
    const error = await pending.catch((e: unknown) => e)
    expect(isAbortError(error)).toBe(true)
  })
})

// The sandbox's aggregated API answers each documented outcome with its own texts: the table must take the
// documented step for what postPromotion hands over from it.
describe('postPromotion and the table against the sandbox aggregated API', () => {
  const coder = new FakeCoder('acme')
  let kube: KubeSandbox
  beforeAll(async () => {
    // Each case promotes its own template (docker-N); gate-role.yaml grants promote on acme.docker
    // only, so without this every case would be a 403 from RBAC, not the fault it scripts.
    kube = await startKubeSandbox({ coder, controller: false, promoteResourceNames: null })
  })
  afterAll(() => kube.close())

  const rows: [string, PromoteFault | null, string, boolean?][] = [
    ['no fault: Promoted', null, 'promoted'],
    ['SubjectAccessReview denies', { kind: 'forbidden' }, 'fail'],
    ['Coder 429 on the activation', { kind: 'status', code: 429 }, 'retry'],
    [
      'Coder 404 on the activation (nothing changed)',
      { kind: 'status', code: 404 },
      're-read',
      true
    ],
    ['Coder 403 on the activation', { kind: 'status', code: 403 }, 'fail'],
    ['Coder 502 on the activation', { kind: 'status', code: 502 }, 're-read', true],
    ['504 not attempted', { kind: '504-not-attempted' }, 'retry'],
    [
      'unclear activation that applied',
      { kind: 'activation-unclear', activeAfter: 'requested' },
      'promoted'
    ],
    [
      'unclear activation, previous active',
      { kind: 'activation-unclear', activeAfter: 'previous' },
      're-read',
      true
    ],
    [
      'unclear activation, a third active',
      { kind: 'activation-unclear', activeAfter: 'third' },
      're-read',
      false
    ],
    ['superseded after success', { kind: 'superseded-after-success' }, 're-read', false],
    ['re-read fails', { kind: 'reread-fails' }, 're-read', true],
    ['kube-apiserver cannot reach the aggregated API', { kind: 'apiserver-unavailable' }, 'retry']
  ]
  // Objects, not rows: jest-each hands a `done` callback to a test whose arity exceeds the row's
  // length, so a 3-value row against a 4-parameter test would wait for done() until the timeout.
  const table = rows.map(([name, fault, kind, retryIfUnchanged]) => ({
    name,
    fault,
    kind,
    retryIfUnchanged
  }))
  it.each(table)('$name -> $kind', async ({ fault, kind, retryIfUnchanged }) => {
    // A fresh template per case: v1 active, v2 to promote, v3 a third version.
    const docker = coder.addTemplate(`docker-${coder.templates.length}`)
    coder.addVersion(docker, 'v1')
    const v2 = coder.addVersion(docker, 'v2')
    coder.addVersion(docker, 'v3')
    const template = `acme.${docker.name}`
    kube.faults.promote.length = 0
    if (fault) kube.faults.promote.push(fault)
    const answer = await postPromotion({
      kc: loadKubeConfig({ kubeconfig: kube.kubeconfig(), context: '' }).kc,
      namespace: NS,
      template,
      versionID: v2.id,
      dryRun: false
    })
    const next = decideAnswer(answer, v2.id, 'promote', template, NS)
    expect(next.kind).toBe(kind)
    if (next.kind === 're-read') expect(next.retryIfUnchanged).toBe(retryIfUnchanged)
  })
})

describe('readActiveVersionID', () => {
  const read = (): Promise<string | null> =>
    readActiveVersionID({ kc: kubeConfigFor(server), namespace: NS, template: TEMPLATE })
  const version = (id: string, active: boolean, template = 'docker'): unknown => ({
    apiVersion: 'aggregation.coder.com/v1alpha1',
    kind: 'CoderTemplateVersion',
    metadata: {
      name: `acme.${template}.v-${id.slice(-4)}`,
      labels: {
        'aggregation.coder.com/organization': 'acme',
        'aggregation.coder.com/template': template
      }
    },
    status: { id, active, archived: false }
  })

  it('reads status.activeVersionID of the CoderTemplate', async () => {
    templateAnswer = {
      status: 200,
      body: { kind: 'CoderTemplate', status: { activeVersionID: OLD } }
    }
    const before = server.requests.length
    expect(await read()).toBe(OLD)
    expect(server.requests.slice(before).map((r) => r.path)).toEqual([TEMPLATE_PATH])
  })

  it('falls back to the versions list with the template labels when the GET is forbidden', async () => {
    templateAnswer = {
      status: 403,
      body: statusBody(403, 'Forbidden', 'cannot get codertemplates')
    }
    versionsAnswer = {
      status: 200,
      body: {
        kind: 'CoderTemplateVersionList',
        items: [version(uuid(1), false), version(uuid(9), true, 'other'), version(uuid(2), true)]
      }
    }
    const before = server.requests.length
    expect(await read()).toBe(uuid(2))
    const list = server.requests.slice(before).find((r) => r.path === VERSIONS_PATH)
    expect(list?.query.get('labelSelector')).toBe(
      'aggregation.coder.com/organization=acme,aggregation.coder.com/template=docker'
    )
  })

  it('ignores listed items without the organization and template labels (or with other values)', async () => {
    templateAnswer = {
      status: 403,
      body: statusBody(403, 'Forbidden', 'cannot get codertemplates')
    }
    const unlabeled = (id: string, labels?: Record<string, string>): unknown => ({
      kind: 'CoderTemplateVersion',
      metadata: { name: `x-${id.slice(-4)}`, ...(labels ? { labels } : {}) },
      status: { id, active: true, archived: false }
    })
    versionsAnswer = {
      status: 200,
      body: {
        kind: 'CoderTemplateVersionList',
        items: [
          unlabeled(uuid(5)),
          unlabeled(uuid(6), {}),
          unlabeled(uuid(7), { 'aggregation.coder.com/template': 'docker' }),
          unlabeled(uuid(8), { 'aggregation.coder.com/organization': 'acme' }),
          unlabeled(uuid(9), {
            'aggregation.coder.com/organization': 'other',
            'aggregation.coder.com/template': 'docker'
          })
        ]
      }
    }
    expect(await read()).toBeNull()
    versionsAnswer = {
      status: 200,
      body: { items: [unlabeled(uuid(5)), version(uuid(3), true)] }
    }
    expect(await read()).toBe(uuid(3))
  })

  it('returns null when no listed version is active', async () => {
    templateAnswer = { status: 500, body: statusBody(500, 'InternalError', 'boom') }
    versionsAnswer = { status: 200, body: { items: [version(uuid(1), false)] } }
    expect(await read()).toBeNull()
  })

  it('returns null when the template does not exist', async () => {
    templateAnswer = { status: 404, body: statusBody(404, 'NotFound', 'not found') }
    expect(await read()).toBeNull()
  })

  it('throws with both failures when the GET and the list fail', async () => {
    templateAnswer = {
      status: 403,
      body: statusBody(403, 'Forbidden', 'cannot get codertemplates')
    }
    versionsAnswer = {
      status: 403,
      body: statusBody(403, 'Forbidden', 'cannot list codertemplateversions')
    }
    await expect(read()).rejects.toThrow(
      /answered HTTP 403: cannot get codertemplates; listing codertemplateversions answered HTTP 403: cannot list codertemplateversions/
    )
  })

  it('rejects a template name without an organization', async () => {
    await expect(
      readActiveVersionID({ kc: kubeConfigFor(server), namespace: NS, template: 'docker' })
    ).rejects.toThrow('not of the form <organization>.<template>')
  })
})
