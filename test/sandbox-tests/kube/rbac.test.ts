// RBAC as data in the sandbox API server: the gate's Role from config/rbac/gate-role.yaml by
// default, applied to every request as kube-apiserver does (403 Forbidden with the real text), and
// SelfSubjectAccessReview answered from the same rules.
// Real HTTP (node:http through helpers.call) and @kubernetes/client-node; kubectl auth can-i when
// kubectl is installed.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { AuthorizationV1Api, KubeConfig } from '@kubernetes/client-node'
import { parseAllDocuments } from 'yaml'
import { findKubectl } from '../../sandbox/kube/kubectl-binary.js'
import { startKubeSandbox } from '../../sandbox/kube/server.js'
import type { KubeSandbox } from '../../sandbox/kube/server.js'
import { ALLOW_ALL_RULES, defaultGateRolePath, loadRole } from '../../sandbox/kube/rbac.js'
import { FakeCoder, call, testManifest, testsPath, watch } from './helpers.js'

const NS = 'coder-tests'
const AGG = 'aggregation.coder.com'
const agg = (ns = NS) => `/apis/${AGG}/v1alpha1/namespaces/${ns}`
const promotePath = (name: string, ns = NS) => `${agg(ns)}/codertemplates/${name}/promote`
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'

const coder = new FakeCoder('acme')
const docker = coder.addTemplate('docker')
const other = coder.addTemplate('other')
coder.addVersion(docker, 'v1')
const dockerV2 = coder.addVersion(docker, 'v2')
coder.addVersion(other, 'v1')
const otherV2 = coder.addVersion(other, 'v2')

const review = (resourceAttributes: Record<string, string>) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SelfSubjectAccessReview',
  spec: { resourceAttributes }
})

describe('RBAC: the default rules are the Role of config/rbac/gate-role.yaml', () => {
  it('loads the Role of the shipped file, read independently of the sandbox', () => {
    const docs = parseAllDocuments(readFileSync(defaultGateRolePath, 'utf8')).map((d) => d.toJS())
    const role = docs.find((d) => d.kind === 'Role')
    const binding = docs.find((d) => d.kind === 'RoleBinding')
    expect(loadRole()).toEqual({
      roleName: role.metadata.name,
      namespace: role.metadata.namespace,
      bindingName: binding.metadata.name,
      rules: role.rules
    })
    // The facts the rest of this file relies on: promote limited to acme.docker, no create.
    expect(role.rules).toContainEqual({
      apiGroups: [AGG],
      resources: ['codertemplates/promote'],
      resourceNames: ['acme.docker'],
      verbs: ['create']
    })
  })
})

describe('RBAC on every request (default Role, bound in every namespace)', () => {
  let kube: KubeSandbox
  beforeAll(async () => {
    kube = await startKubeSandbox({ coder, controller: false })
  })
  afterAll(async () => kube.close())
  beforeEach(() => kube.rbac.reset())

  it('allows what the gate needs: get, list and watch of tests, versions, templates', async () => {
    kube.store.create(NS, testManifest('docker-v1'))
    expect((await call(kube, 'GET', testsPath(NS, 'docker-v1'))).status).toBe(200)
    expect((await call(kube, 'GET', testsPath(NS, 'missing'))).status).toBe(404)
    expect((await call(kube, 'GET', testsPath(NS))).status).toBe(200)
    const { events } = await watch(
      kube,
      `${testsPath(NS)}?watch=1&fieldSelector=metadata.name%3Ddocker-v1`,
      (seen) => seen.length > 0
    )
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'docker-v1' } } })
    expect((await call(kube, 'GET', `${agg()}/codertemplates/acme.docker`)).status).toBe(200)
    const versions = await call(
      kube,
      'GET',
      `${agg()}/codertemplateversions?labelSelector=aggregation.coder.com%2Ftemplate%3Ddocker`
    )
    expect(versions.status).toBe(200)
  })

  it('denies writes of tests with the real Forbidden Status', async () => {
    const create = await call(kube, 'POST', testsPath(NS), testManifest('mine'))
    expect(create.status).toBe(403)
    expect(create.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `codertemplatetests.coder.com is forbidden: User "sandbox-user" cannot create resource "codertemplatetests" in API group "coder.com" in the namespace "${NS}"`,
      reason: 'Forbidden',
      details: { group: 'coder.com', kind: 'codertemplatetests' },
      code: 403
    })
    expect(kube.store.get(NS, 'mine')).toBeUndefined()
    const del = await call(kube, 'DELETE', testsPath(NS, 'docker-v1'))
    expect(del.status).toBe(403)
    expect(del.body.message).toBe(
      `codertemplatetests.coder.com "docker-v1" is forbidden: User "sandbox-user" cannot delete resource "codertemplatetests" in API group "coder.com" in the namespace "${NS}"`
    )
    const status = await call(kube, 'PUT', `${testsPath(NS, 'docker-v1')}/status`, {})
    expect(status.body.message).toContain('cannot update resource "codertemplatetests/status"')
  })

  it('promotes acme.docker only (resourceNames), and the versions watch is 403 before 405', async () => {
    const mine = await call(kube, 'POST', promotePath('acme.docker'), {
      spec: { versionID: dockerV2.id }
    })
    expect(mine.status).toBe(201)
    const theirs = await call(kube, 'POST', promotePath('acme.other'), {
      spec: { versionID: otherV2.id }
    })
    expect(theirs.status).toBe(403)
    expect(theirs.body.message).toBe(
      `codertemplates.${AGG} "acme.other" is forbidden: User "sandbox-user" cannot create resource "codertemplates/promote" in API group "${AGG}" in the namespace "${NS}"`
    )
    expect(other.activeVersionId).not.toBe(otherV2.id)
    expect(kube.requests.at(-1)).toMatchObject({ path: promotePath('acme.other'), status: 403 })
    const watchVersions = await call(kube, 'GET', `${agg()}/codertemplateversions?watch=true`)
    expect(watchVersions.status).toBe(403)
    expect(watchVersions.body.message).toContain('cannot watch resource "codertemplateversions"')
  })

  it('keeps discovery open to any authenticated user, and authorizes before routing', async () => {
    kube.rbac.setRules([])
    for (const path of [
      '/api',
      '/apis',
      '/apis/coder.com/v1alpha1',
      '/apis/aggregation.coder.com/v1alpha1',
      '/apis/authorization.k8s.io/v1',
      '/version'
    ])
      expect([path, (await call(kube, 'GET', path)).status]).toEqual([path, 200])
    // Unauthenticated stays 401 (authentication comes first).
    expect((await call(kube, 'GET', '/apis', undefined, {}, null)).status).toBe(401)
    // A resource path that does not exist is still a resource request: 403, not 404.
    const unknown = await call(kube, 'GET', '/apis/example.com/v1/namespaces/x/widgets/w')
    expect(unknown.body.message).toBe(
      'widgets.example.com "w" is forbidden: User "sandbox-user" cannot get resource "widgets" in API group "example.com" in the namespace "x"'
    )
    const path = await call(kube, 'GET', '/metrics')
    expect(path.status).toBe(403)
    expect(path.body.message).toBe('forbidden: User "sandbox-user" cannot get path "/metrics"')
  })

  it('rbac.deny takes one verb away and leaves the rest', async () => {
    kube.rbac.deny({ verb: 'watch', group: 'coder.com', resource: 'codertemplatetests' })
    expect((await call(kube, 'GET', `${testsPath(NS)}?watch=true`)).status).toBe(403)
    expect((await call(kube, 'GET', testsPath(NS))).status).toBe(200)
    kube.rbac.deny({
      verb: 'create',
      group: AGG,
      resource: 'codertemplates',
      subresource: 'promote'
    })
    expect(kube.promoteResourceNames).toEqual([])
    const promote = await call(kube, 'POST', promotePath('acme.docker'), {
      spec: { versionID: dockerV2.id }
    })
    expect(promote.status).toBe(403)
    kube.rbac.reset()
    expect(kube.promoteResourceNames).toEqual(['acme.docker'])
    // RBAC cannot subtract one name from a grant for every name, nor cut a wildcard.
    expect(() =>
      kube.rbac.deny({ verb: 'get', group: AGG, resource: 'codertemplates', name: 'acme.docker' })
    ).toThrow('RBAC cannot exclude one name')
    kube.rbac.setRules(ALLOW_ALL_RULES)
    expect(() =>
      kube.rbac.deny({ verb: 'get', group: 'coder.com', resource: 'codertemplatetests' })
    ).toThrow('wildcard rule')
  })

  it('promoteResourceNames is expressed through the rules', async () => {
    kube.promoteResourceNames = null
    expect(kube.rbac.rules).toContainEqual({
      apiGroups: [AGG],
      resources: ['codertemplates/promote'],
      verbs: ['create']
    })
    const any = await call(kube, 'POST', promotePath('acme.other'), {
      spec: { versionID: otherV2.id }
    })
    expect(any.status).toBe(201)
    kube.promoteResourceNames = ['acme.elsewhere']
    expect(kube.rbac.rules.filter((r) => r.resources?.includes('codertemplates/promote'))).toEqual([
      {
        apiGroups: [AGG],
        resources: ['codertemplates/promote'],
        resourceNames: ['acme.elsewhere'],
        verbs: ['create']
      }
    ])
  })

  it('a list or watch pinned by fieldSelector metadata.name carries the name (resourceNames)', async () => {
    kube.rbac.setRules([
      {
        apiGroups: ['coder.com'],
        resources: ['codertemplatetests'],
        resourceNames: ['docker-v1'],
        verbs: ['get', 'list', 'watch']
      }
    ])
    const pinned = `${testsPath(NS)}?fieldSelector=metadata.name%3Ddocker-v1`
    expect((await call(kube, 'GET', pinned)).status).toBe(200)
    expect((await call(kube, 'GET', testsPath(NS))).status).toBe(403)
    expect((await call(kube, 'GET', testsPath(NS, 'docker-v1'))).status).toBe(200)
    expect((await call(kube, 'GET', testsPath(NS, 'other'))).status).toBe(403)
  })
})

describe('RBAC bound in one namespace only', () => {
  let kube: KubeSandbox
  beforeAll(async () => {
    kube = await startKubeSandbox({
      coder,
      controller: false,
      rbac: { namespaces: [loadRole().namespace] }
    })
  })
  afterAll(async () => kube.close())

  it('grants in the Role’s namespace, nothing elsewhere or at the cluster scope', async () => {
    expect((await call(kube, 'GET', testsPath(NS))).status).toBe(200)
    const elsewhere = await call(kube, 'GET', testsPath('coder'))
    expect(elsewhere.body.message).toBe(
      'codertemplatetests.coder.com is forbidden: User "sandbox-user" cannot list resource "codertemplatetests" in API group "coder.com" in the namespace "coder"'
    )
    const cluster = await call(kube, 'GET', '/apis/coder.com/v1alpha1/codertemplatetests')
    expect(cluster.body.message).toBe(
      'codertemplatetests.coder.com is forbidden: User "sandbox-user" cannot list resource "codertemplatetests" in API group "coder.com" at the cluster scope'
    )
  })
})

describe('SelfSubjectAccessReview', () => {
  let kube: KubeSandbox
  beforeAll(async () => {
    kube = await startKubeSandbox({ coder, controller: false, user: 'gate-bot' })
  })
  afterAll(async () => kube.close())
  beforeEach(() => kube.rbac.reset())

  it('is in discovery: /apis lists authorization.k8s.io, its v1 lists the resource', async () => {
    const groups = await call(kube, 'GET', '/apis')
    expect(groups.body.groups.map((g: { name: string }) => g.name)).toContain(
      'authorization.k8s.io'
    )
    const resources = await call(kube, 'GET', '/apis/authorization.k8s.io/v1')
    expect(resources.body).toMatchObject({
      kind: 'APIResourceList',
      groupVersion: 'authorization.k8s.io/v1',
      resources: [
        {
          name: 'selfsubjectaccessreviews',
          namespaced: false,
          kind: 'SelfSubjectAccessReview',
          verbs: ['create']
        }
      ]
    })
  })

  it('answers 201 allowed with the RBAC reason, from the same rules as requests', async () => {
    const attributes = {
      namespace: NS,
      verb: 'create',
      group: AGG,
      resource: 'codertemplates',
      subresource: 'promote',
      name: 'acme.docker'
    }
    const before = kube.requests.length
    const answer = await call(kube, 'POST', SSAR, review(attributes))
    expect(answer.status).toBe(201)
    expect(answer.body).toMatchObject({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      spec: { resourceAttributes: attributes },
      status: {
        allowed: true,
        reason: `RBAC: allowed by RoleBinding "coder-template-gate/${NS}" of Role "coder-template-gate" to User "gate-bot"`
      }
    })
    // Recorded like every request, with its body, and in accessReviews.
    const recorded = kube.requests.slice(before)
    expect(recorded).toHaveLength(1)
    expect(recorded[0]).toMatchObject({ method: 'POST', path: SSAR, status: 201 })
    expect(JSON.parse(recorded[0].body!).spec.resourceAttributes).toEqual(attributes)
    expect(kube.accessReviews.at(-1)).toMatchObject({
      attributes: { resourceRequest: true, ...attributes },
      decision: { allowed: true }
    })
  })

  it('answers allowed false without a reason when no rule matches, and follows deny', async () => {
    const denied = await call(
      kube,
      'POST',
      SSAR,
      review({ namespace: NS, verb: 'create', group: 'coder.com', resource: 'codertemplatetests' })
    )
    expect(denied.status).toBe(201)
    expect(denied.body.status).toEqual({ allowed: false })
    const watchReview = review({
      namespace: NS,
      verb: 'watch',
      group: 'coder.com',
      resource: 'codertemplatetests'
    })
    expect((await call(kube, 'POST', SSAR, watchReview)).body.status.allowed).toBe(true)
    kube.rbac.deny({ verb: 'watch', group: 'coder.com', resource: 'codertemplatetests' })
    expect((await call(kube, 'POST', SSAR, watchReview)).body.status.allowed).toBe(false)
  })

  it('is allowed without any Role (system:basic-user) and validates its spec', async () => {
    kube.rbac.setRules([])
    const allowed = await call(
      kube,
      'POST',
      SSAR,
      review({ namespace: NS, verb: 'get', group: 'coder.com', resource: 'codertemplatetests' })
    )
    expect(allowed.status).toBe(201)
    expect(allowed.body.status.allowed).toBe(false)
    const empty = await call(kube, 'POST', SSAR, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {}
    })
    expect(empty.status).toBe(422)
    expect(empty.body.message).toContain(
      'exactly one of nonResourceAttributes or resourceAttributes must be specified'
    )
    const path = await call(kube, 'POST', SSAR, {
      spec: { nonResourceAttributes: { path: '/apis', verb: 'get' } }
    })
    expect(path.body.status.allowed).toBe(true)
  })

  it('reads the protobuf body kubectl sends and answers JSON', async () => {
    // Captured from `kubectl auth can-i create codertemplates.aggregation.coder.com/acme.docker
    // --subresource=promote -n coder-tests -v 9` (kubectl v1.32.4).
    const kubectlBody = Buffer.from(
      '6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f763112' +
        '1753656c665375626a6563744163636573735265766965771274' +
        '0a100a0012001a0022002a00320038004200125' +
        '60a540a0b636f6465722d746573747312066372656174651a15616767726567617469' +
        '6f6e2e636f6465722e636f6d22002a0e636f64657274656d706c6174657332077072' +
        '6f6d6f74653a0b61636d652e646f636b65721a0808001200' +
        '1a0020001a002200',
      'hex'
    )
    const answer = await call(kube, 'POST', SSAR, kubectlBody.toString('latin1'), {
      'Content-Type': 'application/vnd.kubernetes.protobuf',
      Accept: 'application/vnd.kubernetes.protobuf,application/json'
    })
    expect(answer.status).toBe(201)
    expect(answer.body.spec.resourceAttributes).toEqual({
      namespace: NS,
      verb: 'create',
      group: AGG,
      resource: 'codertemplates',
      subresource: 'promote',
      name: 'acme.docker'
    })
    expect(answer.body.status.allowed).toBe(true)
    expect(JSON.parse(kube.requests.at(-1)!.body!).kind).toBe('SelfSubjectAccessReview')
  })

  it('answers @kubernetes/client-node’s AuthorizationV1Api', async () => {
    const kc = new KubeConfig()
    kc.loadFromString(kube.kubeconfig())
    const api = kc.makeApiClient(AuthorizationV1Api)
    const ask = (name: string) =>
      api.createSelfSubjectAccessReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: {
            resourceAttributes: {
              namespace: NS,
              verb: 'create',
              group: AGG,
              resource: 'codertemplates',
              subresource: 'promote',
              name
            }
          }
        }
      })
    expect((await ask('acme.docker')).status?.allowed).toBe(true)
    expect((await ask('acme.other')).status?.allowed).toBe(false)
  })
})

const kubectl = findKubectl()
if (!kubectl) console.warn('kubectl is not installed: the kubectl auth can-i tests are skipped')
const withKubectl = kubectl ? describe : describe.skip

withKubectl('kubectl auth can-i against the sandbox', () => {
  let kube: KubeSandbox
  let dir: string
  let env: NodeJS.ProcessEnv
  const canI = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        kubectl!,
        ['auth', 'can-i', ...args],
        { env, timeout: 20_000 },
        (e, stdout, stderr) =>
          resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr })
      )
    })

  beforeAll(async () => {
    kube = await startKubeSandbox({ coder, controller: false })
    dir = mkdtempSync(join(tmpdir(), 'kube-sandbox-can-i-'))
    writeFileSync(join(dir, 'config'), kube.kubeconfig({ namespace: NS }), { mode: 0o600 })
    // HOME in the temp dir: kubectl's discovery cache stays out of the real home.
    env = { PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, 'config') }
  })
  afterAll(async () => {
    await kube.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('says yes for the promote of acme.docker (the check of §3) and no for another template', async () => {
    const yes = await canI(
      'create',
      `codertemplates.${AGG}/acme.docker`,
      '--subresource=promote',
      '-n',
      NS
    )
    expect(yes.stdout.trim()).toBe('yes')
    expect(yes.code).toBe(0)
    const no = await canI('create', `codertemplates.${AGG}/acme.other`, '--subresource=promote')
    expect(no.stdout.trim()).toBe('no')
    expect(no.code).not.toBe(0)
    const review = kube.accessReviews.at(-1)!
    expect(review.attributes).toMatchObject({
      resourceRequest: true,
      verb: 'create',
      group: AGG,
      resource: 'codertemplates',
      subresource: 'promote',
      name: 'acme.other',
      namespace: NS
    })
  })

  it('follows rbac.deny for watch of codertemplatetests', async () => {
    expect((await canI('watch', 'codertemplatetests.coder.com')).stdout.trim()).toBe('yes')
    kube.rbac.deny({ verb: 'watch', group: 'coder.com', resource: 'codertemplatetests' })
    expect((await canI('watch', 'codertemplatetests.coder.com')).stdout.trim()).toBe('no')
    expect((await canI('get', 'codertemplatetests.coder.com')).stdout.trim()).toBe('yes')
  })
})
