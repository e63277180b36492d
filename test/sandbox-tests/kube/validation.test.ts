// CRD validation of the sandbox API server over real HTTP: every documented CEL rule and its
// message, the OpenAPI checks, the timeoutSeconds default, immutability, AlreadyExists and dryRun.
// Runs once with the real CRD file (skipped with a message when absent) and once with the
// hand-written fallback, so both must agree with the CRD's documented spec.
import { existsSync } from 'node:fs'
import { describe, it, expect, beforeAll, afterAll, jest } from '@jest/globals'
import { startKubeSandbox } from '../../sandbox/kube/server.js'
import type { KubeSandbox } from '../../sandbox/kube/server.js'
import { ALLOW_ALL_RULES } from '../../sandbox/kube/rbac.js'
import { defaultCrdPath, loadTestSchema } from '../../sandbox/kube/validation.js'
import { FakeCoder, call, testManifest, testsPath } from './helpers.js'

// Without the CRD file the crd-file suite shows as skipped, with the path in its title.
const crdPresent = existsSync(defaultCrdPath)

interface Case {
  title: string
  spec: Record<string, unknown>
  field: string
  message: string
}

// Each row: a spec change and the field cause the API server must report (the CRD's CEL rules).
const invalidCases: Case[] = [
  {
    title: 'org longer than 32 characters',
    spec: { template: `${'a'.repeat(33)}.docker` },
    field: 'spec.template',
    message: 'organization and template names must each have at most 32 characters'
  },
  {
    title: 'template longer than 32 characters',
    spec: { template: `acme.${'b'.repeat(33)}` },
    field: 'spec.template',
    message: 'organization and template names must each have at most 32 characters'
  },
  {
    title: 'reserved org name new',
    spec: { template: 'new.docker' },
    field: 'spec.template',
    message: 'organization and template names must not be new or create'
  },
  {
    title: 'reserved template name create',
    spec: { template: 'acme.create' },
    field: 'spec.template',
    message: 'organization and template names must not be new or create'
  },
  {
    title: 'two selectors',
    spec: { version: { name: 'v1', active: true } },
    field: 'spec.version',
    message: 'set exactly one of name, id, or active'
  },
  {
    title: 'no selector',
    spec: { version: {} },
    field: 'spec.version',
    message: 'set exactly one of name, id, or active'
  },
  {
    title: 'active false',
    spec: { version: { active: false } },
    field: 'spec.version',
    message: 'active must be true when set'
  },
  {
    title: 'template without a dot',
    spec: { template: 'docker' },
    field: 'spec.template',
    message: 'spec.template in body should match'
  },
  {
    title: 'version name with a path',
    spec: { version: { name: 'v1/../v2' } },
    field: 'spec.version.name',
    message: 'spec.version.name in body should match'
  },
  {
    title: 'version name starting with a dot',
    spec: { version: { name: '.v1' } },
    field: 'spec.version.name',
    message: 'spec.version.name in body should match'
  },
  {
    title: 'version id not a uuid',
    spec: { version: { id: 'not-a-uuid' } },
    field: 'spec.version.id',
    message: 'must be of type uuid'
  },
  {
    title: 'timeout below 60',
    spec: { timeoutSeconds: 30 },
    field: 'spec.timeoutSeconds',
    message: 'should be greater than or equal to 60'
  },
  {
    title: 'timeout above 7200',
    spec: { timeoutSeconds: 7201 },
    field: 'spec.timeoutSeconds',
    message: 'should be less than or equal to 7200'
  },
  {
    title: 'negative ttl',
    spec: { ttlSecondsAfterFinished: -1 },
    field: 'spec.ttlSecondsAfterFinished',
    message: 'should be greater than or equal to 0'
  },
  {
    title: 'control plane not a DNS subdomain',
    spec: { controlPlaneRef: { name: 'Coder_CP' } },
    field: 'spec.controlPlaneRef.name',
    message: 'spec.controlPlaneRef.name in body should match'
  },
  {
    title: 'duplicate parameter names',
    spec: {
      parameters: [
        { name: 'a', value: '1' },
        { name: 'a', value: '2' }
      ]
    },
    field: 'spec.parameters[1]',
    message: 'Duplicate value'
  },
  {
    title: 'missing template',
    spec: { template: undefined },
    field: 'spec.template',
    message: 'Required value'
  }
]

const modes: { mode: string; crdPath: string | null; run: boolean }[] = [
  { mode: 'crd-file', crdPath: defaultCrdPath, run: crdPresent },
  { mode: 'hand-written', crdPath: null, run: true }
]

for (const { mode, crdPath, run } of modes) {
  const suite = run ? describe : describe.skip
  const absent = run ? '' : ` (skipped: ${defaultCrdPath} is absent)`
  suite(`CoderTemplateTest validation (${mode} schema)${absent}`, () => {
    let kube: KubeSandbox
    beforeAll(async () => {
      kube = await startKubeSandbox({
        coder: new FakeCoder(),
        crdPath,
        controller: false,
        rbac: { rules: ALLOW_ALL_RULES }
      })
    })
    afterAll(async () => kube.close())

    it('uses the expected schema source', () => {
      expect(kube.schema.source).toBe(mode)
    })

    for (const c of invalidCases) {
      it(`rejects ${c.title} with 422 naming ${c.field}`, async () => {
        const name = `bad-${invalidCases.indexOf(c)}`
        const answer = await call(kube, 'POST', testsPath('ns1'), testManifest(name, c.spec))
        expect(answer.status).toBe(422)
        expect(answer.body.kind).toBe('Status')
        expect(answer.body.reason).toBe('Invalid')
        expect(answer.body.message).toMatch(
          new RegExp(`^CoderTemplateTest\\.coder\\.com "${name}" is invalid: `)
        )
        const cause = answer.body.details.causes.find(
          (x: { field: string; message: string }) =>
            x.field === c.field && x.message.includes(c.message)
        )
        expect(cause).toBeDefined()
        expect(answer.body.message).toContain(c.message)
        // Nothing was stored.
        expect((await call(kube, 'GET', testsPath('ns1', name))).status).toBe(404)
      })
    }

    it('accepts reserved names only as whole segments (newco.create-env)', async () => {
      const answer = await call(
        kube,
        'POST',
        testsPath('ns1'),
        testManifest('reserved-ok', { template: 'newco.create-env' })
      )
      expect(answer.status).toBe(201)
    })

    it('writes the timeoutSeconds default 900, identity fields, and drops unknown fields and status', async () => {
      const manifest = testManifest('defaults', { unknownField: 'x' })
      ;(manifest as { status?: unknown }).status = { phase: 'Succeeded' }
      const answer = await call(kube, 'POST', testsPath('ns1'), manifest)
      expect(answer.status).toBe(201)
      expect(answer.body.spec.timeoutSeconds).toBe(900)
      expect(answer.body.spec.unknownField).toBeUndefined()
      expect(answer.body.status).toBeUndefined()
      expect(answer.body.metadata.generation).toBe(1)
      expect(answer.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/)
      expect(answer.body.metadata.resourceVersion).toMatch(/^\d+$/)
      expect(answer.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      const read = await call(kube, 'GET', testsPath('ns1', 'defaults'))
      expect(read.body.spec).toEqual(answer.body.spec)
    })

    it('answers 409 AlreadyExists for an existing name', async () => {
      const first = await call(kube, 'POST', testsPath('ns1'), testManifest('twice'))
      expect(first.status).toBe(201)
      const second = await call(kube, 'POST', testsPath('ns1'), testManifest('twice'))
      expect(second.status).toBe(409)
      expect(second.body.reason).toBe('AlreadyExists')
      expect(second.body.message).toBe('codertemplatetests.coder.com "twice" already exists')
    })

    it('creates nothing on dryRun=All but validates', async () => {
      const ok = await call(kube, 'POST', testsPath('ns1') + '?dryRun=All', testManifest('dry'))
      expect(ok.status).toBe(201)
      expect(ok.body.spec.timeoutSeconds).toBe(900)
      expect((await call(kube, 'GET', testsPath('ns1', 'dry'))).status).toBe(404)
      const bad = await call(
        kube,
        'POST',
        testsPath('ns1') + '?dryRun=All',
        testManifest('dry', { template: 'new.x' })
      )
      expect(bad.status).toBe(422)
    })

    it('refuses a spec change by PUT and by merge patch, and allows a label patch', async () => {
      const created = await call(kube, 'POST', testsPath('ns1'), testManifest('immutable'))
      const changed = { ...created.body, spec: { ...created.body.spec, timeoutSeconds: 1200 } }
      const put = await call(kube, 'PUT', testsPath('ns1', 'immutable'), changed)
      expect(put.status).toBe(422)
      expect(put.body.message).toBe(
        'CoderTemplateTest.coder.com "immutable" is invalid: spec: Invalid value: "object": spec is immutable, create a new CoderTemplateTest'
      )
      const patch = await call(
        kube,
        'PATCH',
        testsPath('ns1', 'immutable'),
        { spec: { version: { name: 'v2' } } },
        { 'Content-Type': 'application/merge-patch+json' }
      )
      expect(patch.status).toBe(422)
      expect(patch.body.message).toContain('spec is immutable, create a new CoderTemplateTest')
      const jsonPatch = await call(
        kube,
        'PATCH',
        testsPath('ns1', 'immutable'),
        [{ op: 'replace', path: '/spec/template', value: 'acme.other' }],
        { 'Content-Type': 'application/json-patch+json' }
      )
      expect(jsonPatch.status).toBe(422)
      expect(jsonPatch.body.message).toContain('spec is immutable, create a new CoderTemplateTest')
      const labels = await call(
        kube,
        'PATCH',
        testsPath('ns1', 'immutable'),
        { metadata: { labels: { team: 'a' } } },
        { 'Content-Type': 'application/merge-patch+json' }
      )
      expect(labels.status).toBe(200)
      expect(labels.body.metadata.labels).toEqual({ team: 'a' })
      expect(Number(labels.body.metadata.resourceVersion)).toBeGreaterThan(
        Number(created.body.metadata.resourceVersion)
      )
      // An unchanged spec with the default written out is the same spec.
      const same = await call(kube, 'PUT', testsPath('ns1', 'immutable'), labels.body)
      expect(same.status).toBe(200)
    })

    it('answers 404 NotFound with the real message', async () => {
      const answer = await call(kube, 'GET', testsPath('ns1', 'x'))
      expect(answer.status).toBe(404)
      expect(answer.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'codertemplatetests.coder.com "x" not found',
        reason: 'NotFound',
        details: { name: 'x', group: 'coder.com', kind: 'codertemplatetests' },
        code: 404
      })
    })
  })
}

describe('CRD schema source', () => {
  it('falls back to the hand-written rules when the CRD file is absent, and says so', () => {
    // The warning is expected here: capture it instead of printing it.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const schema = loadTestSchema('/nonexistent/coder.com_codertemplatetests.yaml')
      expect(schema.source).toBe('hand-written')
      expect(schema.spec.required).toEqual(['controlPlaneRef', 'template', 'version'])
      expect(warn).toHaveBeenCalledTimes(1)
      expect(String(warn.mock.calls[0]?.[0])).toContain(
        'CRD file /nonexistent/coder.com_codertemplatetests.yaml not found'
      )
    } finally {
      warn.mockRestore()
    }
  })

  it('resolves the real CRD path from the module location (repo root/../shared/reference/data)', () => {
    expect(defaultCrdPath).toMatch(
      /\/shared\/reference\/data\/coder\.com_codertemplatetests\.yaml$/
    )
    if (crdPresent) expect(loadTestSchema().source).toBe('crd-file')
  })
})
