// The aggregated API over real HTTP: codertemplates, codertemplateversions and the promote
// subresource with its results, errors and every injected fault through the confirmation table
// (coder-k8s docs/reference/aggregated-api-behavior.md).
import { describe, it, expect, beforeAll, afterAll, beforeEach } from '@jest/globals'
import { startKubeSandbox } from '../../sandbox/kube/server.js'
import type { KubeSandbox } from '../../sandbox/kube/server.js'
import { ALLOW_ALL_RULES } from '../../sandbox/kube/rbac.js'
import type { SandboxTemplate, SandboxVersion } from '../../sandbox/contracts.js'
import { FakeCoder, call } from './helpers.js'

const NS = 'coder'
const agg = '/apis/aggregation.coder.com/v1alpha1/namespaces/' + NS
const promotePath = (name: string, query = ''): string =>
  `${agg}/codertemplates/${name}/promote${query}`
const body = (versionID: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'aggregation.coder.com/v1alpha1',
  kind: 'CoderTemplateVersionPromotion',
  spec: { versionID },
  ...extra
})

describe('aggregated API: templates and versions', () => {
  const coder = new FakeCoder('acme')
  const docker = coder.addTemplate('docker')
  const v1 = coder.addVersion(docker, 'v1')
  const v2 = coder.addVersion(docker, 'v1.2.3')
  let kube: KubeSandbox
  beforeAll(async () => {
    // Every verb, so a watch reaches the aggregated server (405) instead of RBAC (403).
    kube = await startKubeSandbox({ coder, controller: false, rbac: { rules: ALLOW_ALL_RULES } })
  })
  afterAll(async () => kube.close())

  it('gets a template by its canonical name with status.activeVersionID', async () => {
    const answer = await call(kube, 'GET', `${agg}/codertemplates/acme.docker`)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      apiVersion: 'aggregation.coder.com/v1alpha1',
      kind: 'CoderTemplate',
      metadata: { name: 'acme.docker', namespace: NS, uid: docker.id },
      status: { id: docker.id, organizationName: 'acme', activeVersionID: v1.id, deprecated: false }
    })
  })

  it('answers 400 with a hint for the org alias and wrong casing, 404 for a missing template', async () => {
    const alias = await call(kube, 'GET', `${agg}/codertemplates/default.docker`)
    expect(alias.status).toBe(400)
    expect(alias.body.message).toContain('use the canonical organization name')
    const casing = await call(kube, 'GET', `${agg}/codertemplates/acme.Docker`)
    expect(casing.status).toBe(400)
    expect(casing.body.message).toContain('use the canonical name "acme.docker"')
    const missing = await call(kube, 'GET', `${agg}/codertemplates/acme.nope`)
    expect(missing.status).toBe(404)
    expect(missing.body.message).toBe('codertemplates.aggregation.coder.com "acme.nope" not found')
    const bad = await call(kube, 'GET', `${agg}/codertemplates/nodot`)
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/^invalid template name "nodot": /)
  })

  it('gets a version by <org>.<template>.<version> (the version keeps its dots), case-sensitive', async () => {
    const answer = await call(kube, 'GET', `${agg}/codertemplateversions/acme.docker.v1.2.3`)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      kind: 'CoderTemplateVersion',
      metadata: {
        name: 'acme.docker.v1.2.3',
        uid: v2.id,
        labels: {
          'aggregation.coder.com/organization': 'acme',
          'aggregation.coder.com/template': 'docker'
        }
      },
      spec: { organization: 'acme', templateName: 'docker' },
      status: {
        id: v2.id,
        templateID: docker.id,
        active: false,
        archived: false,
        job: { status: 'succeeded' }
      }
    })
    expect(answer.body.metadata.resourceVersion).toMatch(/^[0-9a-f]{64}$/)
    expect((await call(kube, 'GET', `${agg}/codertemplateversions/acme.docker.V1`)).status).toBe(
      404
    )
  })

  it('lists versions with the label selector; refuses continue and resourceVersion; no watch', async () => {
    const list = await call(
      kube,
      'GET',
      `${agg}/codertemplateversions?labelSelector=aggregation.coder.com%2Ftemplate%3Ddocker`
    )
    expect(list.status).toBe(200)
    expect(
      list.body.items.map((i: { status: { id: string; active: boolean } }) => [
        i.status.id,
        i.status.active
      ])
    ).toEqual([
      [v1.id, true],
      [v2.id, false]
    ])
    const cont = await call(kube, 'GET', `${agg}/codertemplateversions?continue=x`)
    expect(cont.status).toBe(400)
    expect(cont.body.message).toBe(
      'codertemplateversions lists are always complete and current: continue, resourceVersionMatch and resourceVersion other than "0" are not supported'
    )
    expect((await call(kube, 'GET', `${agg}/codertemplateversions?watch=true`)).status).toBe(405)
  })
})

describe('aggregated API: promote', () => {
  const coder = new FakeCoder('acme')
  let docker: SandboxTemplate
  let v1: SandboxVersion
  let v2: SandboxVersion
  let v3: SandboxVersion
  let kube: KubeSandbox
  beforeAll(async () => {
    kube = await startKubeSandbox({ coder, controller: false })
  })
  afterAll(async () => kube.close())
  beforeEach(() => {
    // A fresh template per test: v1 active, v2 to promote, v3 a third version.
    docker = coder.addTemplate(`docker-${coder.templates.length}`)
    v1 = coder.addVersion(docker, 'v1')
    v2 = coder.addVersion(docker, 'v2')
    v3 = coder.addVersion(docker, 'v3')
    kube.faults.promote.length = 0
    kube.promoteResourceNames = null
  })
  const name = (): string => `acme.${docker.name}`
  const promote = (versionID: unknown = v2.id, query = '', extra = {}) =>
    call(kube, 'POST', promotePath(name(), query), body(versionID, extra))

  it('promotes: 201 Promoted with previous and active version IDs', async () => {
    const answer = await promote()
    expect(answer.status).toBe(201)
    expect(answer.body).toEqual({
      apiVersion: 'aggregation.coder.com/v1alpha1',
      kind: 'CoderTemplateVersionPromotion',
      metadata: { name: name(), namespace: NS },
      spec: { versionID: v2.id },
      status: { result: 'Promoted', previousActiveVersionID: v1.id, activeVersionID: v2.id }
    })
    expect(docker.activeVersionId).toBe(v2.id)
    expect(kube.firstPromoteAt).not.toBeNull()
  })

  it('answers AlreadyActive without a Coder call, and WouldPromote on dryRun=All without a change', async () => {
    const calls = coder.activations.length
    const already = await promote(v1.id)
    expect(already.status).toBe(201)
    expect(already.body.status).toEqual({
      result: 'AlreadyActive',
      previousActiveVersionID: v1.id,
      activeVersionID: v1.id
    })
    const dry = await promote(v2.id, '?dryRun=All')
    expect(dry.status).toBe(201)
    expect(dry.body.status).toEqual({
      result: 'WouldPromote',
      previousActiveVersionID: v1.id,
      activeVersionID: v1.id
    })
    expect(coder.activations.length).toBe(calls)
    expect(docker.activeVersionId).toBe(v1.id)
  })

  it('accepts the docs body without apiVersion/kind and normalizes the UUID', async () => {
    const answer = await call(kube, 'POST', promotePath(name()), {
      spec: { versionID: v2.id.toUpperCase() }
    })
    expect(answer.status).toBe(201)
    expect(answer.body.spec.versionID).toBe(v2.id)
  })

  it('validates input: dryRun value, versionID UUID, body name, unknown versions, archived and failed imports', async () => {
    const bogus = await promote(v2.id, '?dryRun=Bogus')
    expect(bogus.status).toBe(422)
    expect(bogus.body.details.causes[0].field).toBe('dryRun')
    const notUuid = await promote('v2')
    expect(notUuid.status).toBe(422)
    expect(notUuid.body.details.causes[0]).toMatchObject({
      field: 'spec.versionID',
      message: expect.stringContaining('must be the Coder ID (a UUID) of a template version')
    })
    expect((await promote('00000000-0000-0000-0000-000000000000')).status).toBe(422)
    const wrongName = await promote(v2.id, '', { metadata: { name: 'acme.other' } })
    expect(wrongName.status).toBe(400)
    expect(wrongName.body.message).toBe(
      `metadata.name "acme.other" must be empty or match the template name "${name()}"`
    )
    const other = coder.addTemplate('other-template')
    const foreign = coder.addVersion(other, 'x')
    const notOurs = await promote(foreign.id)
    expect(notOurs.status).toBe(400)
    expect(notOurs.body.message).toBe(`spec.versionID is not a version of template "${name()}"`)
    const unknown = await promote('11111111-1111-1111-1111-111111111111')
    expect(unknown.body.message).toBe(`spec.versionID is not a version of template "${name()}"`)
    const archived = coder.addVersion(docker, 'old', 'succeeded', { archived: true })
    const archivedAnswer = await promote(archived.id)
    expect(archivedAnswer.status).toBe(400)
    expect(archivedAnswer.body.message).toBe(
      `version ${archived.id} of template "${name()}" is archived; unarchive it in Coder before promoting it`
    )
    const failed = coder.addVersion(docker, 'bad', 'failed')
    const failedAnswer = await promote(failed.id)
    expect(failedAnswer.body.message).toBe(
      `version ${failed.id} of template "${name()}" cannot be promoted: its import job is "failed"; only versions whose import succeeded can be promoted`
    )
    const missing = await call(kube, 'POST', promotePath('acme.nothing'), body(v2.id))
    expect(missing.status).toBe(404)
    expect(missing.body.message).toBe(
      'codertemplates.aggregation.coder.com "acme.nothing" not found'
    )
    expect(docker.activeVersionId).toBe(v1.id)
  })

  it('RBAC resourceNames: 403 standard Forbidden for other templates, no Coder call', async () => {
    kube.promoteResourceNames = ['acme.elsewhere']
    const answer = await promote()
    expect(answer.status).toBe(403)
    expect(answer.body).toMatchObject({
      reason: 'Forbidden',
      code: 403,
      message: `codertemplates.aggregation.coder.com "${name()}" is forbidden: User "sandbox-user" cannot create resource "codertemplates/promote" in API group "aggregation.coder.com" in the namespace "${NS}"`
    })
    kube.promoteResourceNames = [name()]
    expect((await promote()).status).toBe(201)
  })

  const faultCases: {
    title: string
    fault: Parameters<KubeSandbox['faults']['promote']['push']>[0]
    status: number
    message?: (ids: { v1: string; v2: string; v3: string; name: string }) => string
    result?: string
    activeAfter: 'v1' | 'v2' | 'v3'
  }[] = [
    {
      title: 'forbidden',
      fault: { kind: 'forbidden' },
      status: 403,
      activeAfter: 'v1'
    },
    {
      title: 'Coder 429 on the activation',
      fault: { kind: 'status', code: 429 },
      status: 429,
      message: () => 'Coder rate-limited the activation; nothing was changed',
      activeAfter: 'v1'
    },
    {
      title: 'Coder 404 on the activation',
      fault: { kind: 'status', code: 404 },
      status: 409,
      message: (i) =>
        `the template or version ${i.v2} was not found in Coder during the activation; nothing was changed: re-read before retrying`,
      activeAfter: 'v1'
    },
    {
      title: 'Coder 403 on the activation',
      fault: { kind: 'status', code: 403 },
      status: 400,
      message: (i) =>
        `Coder refused to activate version ${i.v2} on template "${i.name}" (status 403); nothing was changed: check that its import succeeded and that it is not archived`,
      activeAfter: 'v1'
    },
    {
      title: 'Coder 502 on the activation, not applied (previous)',
      fault: { kind: 'status', code: 502 },
      status: 503,
      message: (i) =>
        `could not confirm the promotion of version ${i.v2} on template "${i.name}"; it may or may not have been applied: re-read the template before retrying`,
      activeAfter: 'v1'
    },
    {
      title: '504 not attempted',
      fault: { kind: '504-not-attempted' },
      status: 504,
      message: (i) =>
        `the promotion of version ${i.v2} on template "${i.name}" was not attempted: too little of the request time was left after the lookups; nothing was sent to Coder, so it is safe to try again`,
      activeAfter: 'v1'
    },
    {
      title: 'unclear activation, re-read shows the requested version',
      fault: { kind: 'activation-unclear', activeAfter: 'requested' },
      status: 201,
      result: 'Promoted',
      activeAfter: 'v2'
    },
    {
      title: 'unclear activation, re-read shows the previous version',
      fault: { kind: 'activation-unclear', activeAfter: 'previous' },
      status: 503,
      message: (i) =>
        `could not confirm the promotion of version ${i.v2} on template "${i.name}"; it may or may not have been applied: re-read the template before retrying`,
      activeAfter: 'v1'
    },
    {
      title: 'unclear activation, re-read shows a third version',
      fault: { kind: 'activation-unclear', activeAfter: 'third' },
      status: 409,
      message: (i) =>
        `the promotion of version ${i.v2} was superseded by a concurrent change: version ${i.v3} is active; re-read before retrying`,
      activeAfter: 'v3'
    },
    {
      title: 'success, then another writer activates a third version',
      fault: { kind: 'superseded-after-success' },
      status: 409,
      message: (i) =>
        `the promotion of version ${i.v2} was superseded by a concurrent change: version ${i.v3} is active; re-read before retrying`,
      activeAfter: 'v3'
    },
    {
      title: 'the re-read fails',
      fault: { kind: 'reread-fails' },
      status: 503,
      message: (i) =>
        `could not confirm the promotion of version ${i.v2} on template "${i.name}"; it may or may not have been applied: re-read the template before retrying`,
      activeAfter: 'v2'
    },
    {
      title: 'kube-apiserver cannot reach the aggregated server',
      fault: { kind: 'apiserver-unavailable' },
      status: 503,
      message: () => 'the server is currently unable to handle the request',
      activeAfter: 'v1'
    }
  ]

  for (const c of faultCases) {
    it(`fault: ${c.title} → ${c.status}`, async () => {
      kube.faults.promote.push(c.fault)
      const answer = await promote()
      const ids = { v1: v1.id, v2: v2.id, v3: v3.id, name: name() }
      expect(answer.status).toBe(c.status)
      if (c.message) expect(answer.body.message).toBe(c.message(ids))
      if (c.result) expect(answer.body.status.result).toBe(c.result)
      if (c.status >= 400) {
        expect(answer.body.kind).toBe('Status')
        expect(answer.body.details?.retryAfterSeconds).toBeUndefined()
      }
      expect(docker.activeVersionId).toBe(ids[c.activeAfter])
      // The fault was used once: the next promote behaves normally.
      expect(kube.faults.promote).toHaveLength(0)
    })
  }

  it('fault: delay slows the answer; a short client ?timeout= then leaves too little time (504 not attempted)', async () => {
    kube.faults.promote.push({ kind: 'delay', ms: 30 })
    const slow = await promote()
    expect(slow.status).toBe(201)
    const short = await promote(v3.id, '?timeout=10s')
    expect(short.status).toBe(504)
    expect(short.body.message).toContain('was not attempted')
    expect(docker.activeVersionId).toBe(v2.id)
  })

  it('scaled time budgets: slow lookups leave too little time, so the activation is not attempted', async () => {
    const scaled = await startKubeSandbox({
      coder,
      controller: false,
      promoteResourceNames: null,
      promoteTiming: { requestTimeoutUpperBoundMs: 340, patchBudgetMs: 100, rereadReserveMs: 50 }
    })
    try {
      scaled.faults.promote.push({ kind: 'delay', ms: 250 })
      const slow = await call(scaled, 'POST', promotePath(name()), body(v2.id))
      expect(slow.status).toBe(504)
      expect(docker.activeVersionId).toBe(v1.id)
      const fast = await call(scaled, 'POST', promotePath(name()), body(v2.id))
      expect(fast.status).toBe(201)
      expect(docker.activeVersionId).toBe(v2.id)
    } finally {
      await scaled.close()
    }
  })

  it('records the time of the first promote request', async () => {
    const seen: number[] = []
    const fresh = await startKubeSandbox({ coder, controller: false, promoteResourceNames: null })
    fresh.events.on('first-promote', ({ at }: { at: number }) => seen.push(at))
    try {
      await call(fresh, 'POST', promotePath(name()), body(v2.id))
      await call(fresh, 'POST', promotePath(name()), body(v3.id))
      expect(seen).toHaveLength(1)
      expect(fresh.firstPromoteAt).toBe(seen[0])
      const promotes = fresh.requests.filter((r) => r.path.endsWith('/promote'))
      expect(promotes.map((r) => [r.method, r.status])).toEqual([
        ['POST', 201],
        ['POST', 201]
      ])
      expect(JSON.parse(promotes[0].body!).spec.versionID).toBe(v2.id)
    } finally {
      await fresh.close()
    }
  })
})
