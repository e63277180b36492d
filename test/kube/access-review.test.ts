// checkAccess against the Kubernetes sandbox: its SelfSubjectAccessReviews are answered from the
// Role of config/rbac/gate-role.yaml (adapted to another namespace and template, as the file's
// header asks), and a scripted server answers the reviews the sandbox never gives (500, no
// status.allowed).
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { KubeConfig } from '@kubernetes/client-node'
import { parseAllDocuments } from 'yaml'
import { checkAccess } from '../../src/kube/access.js'
import { KubeTransportError } from '../../src/kube/request.js'
import { startKubeSandbox } from '../sandbox/kube/server.js'
import type { KubeSandbox } from '../sandbox/kube/server.js'
import { defaultGateRolePath } from '../sandbox/kube/rbac.js'
import type { PolicyRule } from '../sandbox/kube/rbac.js'
import { kubeConfigFor, sendJson, sendStatus, startKubeServer } from './helpers/kubeServer.js'
import type { ScriptedKubeServer } from './helpers/kubeServer.js'
import { FakeCoder } from '../sandbox-tests/kube/helpers.js'

const NS = 'ci-gate'
const TEMPLATE = 'acme.web'
const AGG = 'aggregation.coder.com'
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'

/** The shipped Role's rules with its template name replaced, read independently of the sandbox. */
function adaptedRules(template: string): PolicyRule[] {
  const docs = parseAllDocuments(readFileSync(defaultGateRolePath, 'utf8')).map((d) => d.toJS())
  const rules = docs.find((d) => d?.kind === 'Role').rules as PolicyRule[]
  expect(rules.filter((r) => r.resourceNames)).toEqual([
    expect.objectContaining({ resourceNames: ['acme.docker'] })
  ])
  return rules.map((r) => (r.resourceNames ? { ...r, resourceNames: [template] } : r))
}

// The resourceAttributes each need sends (no version: RBAC ignores it).
const tests = (verb: string) => ({
  namespace: NS,
  group: 'coder.com',
  resource: 'codertemplatetests',
  verb
})
const readTemplate = {
  namespace: NS,
  group: AGG,
  resource: 'codertemplates',
  verb: 'get',
  name: TEMPLATE
}
const promoteTemplate = {
  namespace: NS,
  group: AGG,
  resource: 'codertemplates',
  subresource: 'promote',
  verb: 'create',
  name: TEMPLATE
}
const ALL = [tests('get'), tests('list'), tests('watch'), readTemplate, promoteTemplate]
const PROMOTE_DENIED = `create codertemplates/promote.${AGG} "${TEMPLATE}" in namespace ${NS} is denied: it is needed to promote the tested version. Grant it with the rule for codertemplates/promote in config/rbac/gate-role.yaml.`

/** Order-free comparison of lists of JSON objects: keys sorted at every level, then the list. */
const canonical = (x: unknown): unknown =>
  x && typeof x === 'object' && !Array.isArray(x)
    ? Object.fromEntries(
        Object.entries(x)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => [k, canonical(v)])
      )
    : x
const byJson = (list: unknown[]): string[] => list.map((x) => JSON.stringify(canonical(x))).sort()

describe('checkAccess against the sandbox (the gate Role bound in ci-gate for acme.web)', () => {
  let kube: KubeSandbox
  let kc: KubeConfig
  const rules = adaptedRules(TEMPLATE)
  const check = (promote = true, namespace = NS) =>
    checkAccess({ kc, namespace, template: TEMPLATE, promote })
  /** The resourceAttributes of the reviews sent since `from`, as the wire carried them. */
  const sent = (from: number) =>
    kube.requests
      .slice(from)
      .filter((r) => r.method === 'POST' && r.path === SSAR)
      .map((r) => JSON.parse(r.body!).spec.resourceAttributes)

  beforeAll(async () => {
    kube = await startKubeSandbox({
      coder: new FakeCoder('acme'),
      controller: false,
      user: 'gate-bot',
      rbac: { rules, namespaces: [NS] }
    })
    kc = new KubeConfig()
    kc.loadFromString(kube.kubeconfig({ namespace: NS }))
  })
  afterAll(async () => kube.close())
  beforeEach(() => kube.rbac.reset())

  it('allows every verb with the Role applied, one review per verb, sent as the needs say', async () => {
    const from = kube.requests.length
    const reviews = kube.accessReviews.length
    expect(await check()).toEqual({ denied: [], unknown: [] })
    expect(byJson(sent(from))).toEqual(byJson(ALL))
    const answered = kube.accessReviews.slice(reviews)
    expect(byJson(answered.map((r) => r.attributes))).toEqual(
      byJson(ALL.map((a) => ({ resourceRequest: true, ...a })))
    )
    expect(answered.every((r) => r.decision.allowed)).toBe(true)
    expect(kube.requests.slice(from).every((r) => r.status === 201)).toBe(true)
  })

  it('denies exactly the promote without the promote rule, naming it and gate-role.yaml', async () => {
    kube.rbac.setRules(rules.filter((r) => !r.resources?.includes('codertemplates/promote')))
    const verdict = await check()
    expect(verdict).toEqual({ denied: [PROMOTE_DENIED], unknown: [] })
    expect(verdict.denied[0]).toContain('codertemplates/promote')
    expect(verdict.denied[0]).toContain(`"${TEMPLATE}"`)
    expect(verdict.denied[0]).toContain('config/rbac/gate-role.yaml')
  })

  it('with promote false asks neither the promote nor the template read', async () => {
    kube.rbac.setRules(rules.filter((r) => !r.apiGroups?.includes(AGG)))
    const from = kube.requests.length
    expect(await check(false)).toEqual({ denied: [], unknown: [] })
    expect(byJson(sent(from))).toEqual(byJson(ALL.slice(0, 3)))
    expect(sent(from).some((a) => a.subresource === 'promote' || a.group === AGG)).toBe(false)
  })

  it('denies the promote when the Role names another template', async () => {
    kube.rbac.setRules(adaptedRules('acme.other'))
    const from = kube.accessReviews.length
    expect(await check()).toEqual({ denied: [PROMOTE_DENIED], unknown: [] })
    const promote = kube.accessReviews
      .slice(from)
      .find((r) => r.attributes.resourceRequest && r.attributes.subresource === 'promote')
    expect(promote?.attributes).toMatchObject({ name: TEMPLATE, namespace: NS })
  })

  it('denies every verb in a namespace the Role is not bound in', async () => {
    const verdict = await check(true, 'elsewhere')
    expect(verdict.unknown).toEqual([])
    expect(verdict.denied).toHaveLength(5)
    expect(verdict.denied[2]).toBe(
      'watch codertemplatetests.coder.com in namespace elsewhere is denied: it is needed to wait for the test. Grant it with the rule for codertemplatetests in config/rbac/gate-role.yaml.'
    )
    expect(verdict.denied[3]).toContain(
      'Grant it with the rule for codertemplates, codertemplateversions in config/rbac/gate-role.yaml.'
    )
  })

  it('names a denied watch alone when only that verb is taken away', async () => {
    kube.rbac.deny({ verb: 'watch', group: 'coder.com', resource: 'codertemplatetests' })
    const verdict = await check()
    expect(verdict.denied).toEqual([
      `watch codertemplatetests.coder.com in namespace ${NS} is denied: it is needed to wait for the test. Grant it with the rule for codertemplatetests in config/rbac/gate-role.yaml.`
    ])
  })
})

describe('checkAccess against a scripted server: no answer is not a denial', () => {
  type Script = (attributes: Record<string, string>) => { status: number; body?: unknown }
  let script: Script = () => ({ status: 500 })
  let server: ScriptedKubeServer
  const check = () =>
    checkAccess({ kc: kubeConfigFor(server), namespace: NS, template: TEMPLATE, promote: true })
  const review = (status: unknown) => ({
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    ...(status === undefined ? {} : { status })
  })

  beforeAll(async () => {
    server = await startKubeServer(({ res, recorded }) => {
      if (recorded.method !== 'POST' || recorded.path !== SSAR)
        return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource')
      const answer = script(JSON.parse(recorded.body).spec.resourceAttributes)
      if (answer.body === undefined)
        return sendStatus(res, answer.status, 'InternalError', 'etcdserver: request timed out')
      if (typeof answer.body === 'string') {
        res.writeHead(answer.status, { 'Content-Type': 'text/plain' })
        return void res.end(answer.body)
      }
      sendJson(res, answer.status, answer.body)
    })
  })
  afterAll(() => server.close())

  it('puts a 500 in unknown with the Status message, for every verb', async () => {
    script = () => ({ status: 500 })
    const verdict = await check()
    expect(verdict.denied).toEqual([])
    expect(verdict.unknown).toHaveLength(5)
    expect(verdict.unknown[4]).toBe(
      `create codertemplates/promote.${AGG} "${TEMPLATE}" in namespace ${NS} is allowed (the review answered 500: etcdserver: request timed out)`
    )
  })

  it('puts answers without a boolean status.allowed in unknown', async () => {
    const answers = [
      review(undefined),
      review({}),
      review({ allowed: 'true' }),
      review({ allowed: null })
    ]
    let i = 0
    script = () => ({ status: 201, body: answers[i++ % answers.length] })
    const verdict = await check()
    expect(verdict.denied).toEqual([])
    expect(verdict.unknown).toHaveLength(5)
    for (const line of verdict.unknown)
      expect(line).toMatch(/ is allowed \(the review answered without status\.allowed\)$/)
  })

  it('mixes: a denial with its reason, a 502 text body in unknown, the rest allowed', async () => {
    script = (a) =>
      a.subresource === 'promote'
        ? {
            status: 201,
            body: review({ allowed: false, denied: true, reason: 'a webhook said no' })
          }
        : a.verb === 'list'
          ? { status: 502, body: 'Bad Gateway\n' }
          : { status: 201, body: review({ allowed: true }) }
    const from = server.requests.length
    expect(await check()).toEqual({
      denied: [
        `create codertemplates/promote.${AGG} "${TEMPLATE}" in namespace ${NS} is denied (a webhook said no): it is needed to promote the tested version. Grant it with the rule for codertemplates/promote in config/rbac/gate-role.yaml.`
      ],
      unknown: [
        `list codertemplatetests.coder.com in namespace ${NS} is allowed (the review answered 502: Bad Gateway)`
      ]
    })
    const sent = server.requests.slice(from)
    expect(
      sent.every((r) => r.authorized && r.headers['content-type'] === 'application/json')
    ).toBe(true)
    expect(byJson(sent.map((r) => JSON.parse(r.body)))).toEqual(
      byJson(
        ALL.map((resourceAttributes) => ({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes }
        }))
      )
    )
  })

  it('rejects with a transport error when nothing answers (the preflight goes on)', async () => {
    const dead = await startKubeServer(() => undefined)
    const kc = kubeConfigFor(dead)
    await dead.close()
    await expect(
      checkAccess({ kc, namespace: NS, template: TEMPLATE, promote: false })
    ).rejects.toBeInstanceOf(KubeTransportError)
  })
})
