import { describe, expect, it } from '@jest/globals'
import YAML from 'yaml'
import type { CoderTemplateTest } from '../../src/api.js'
import { integrityProblems } from '../../src/integrity.js'
import {
  buildTestManifest,
  isPlainInYaml11,
  type ManifestParams,
  parseManifest,
  renderManifest,
  sameTest,
  specDifferences
} from '../../src/manifest.js'

const PARAMS: ManifestParams = {
  testName: 'docker-v2-0-rc1',
  namespace: 'coder-tests',
  controlPlane: 'coder',
  organization: 'acme',
  template: 'docker',
  version: 'V2.0_rc1',
  parameters: [
    { name: 'cpu', value: '2' },
    { name: 'region', value: 'eu' }
  ],
  timeoutSeconds: 900
}

describe('buildTestManifest and renderManifest', () => {
  it('writes the documented fields and nothing else', () => {
    const manifest = buildTestManifest(PARAMS)
    expect(manifest).toEqual({
      apiVersion: 'coder.com/v1alpha1',
      kind: 'CoderTemplateTest',
      metadata: {
        name: 'docker-v2-0-rc1',
        namespace: 'coder-tests',
        labels: { 'app.kubernetes.io/managed-by': 'coder-template-gate' }
      },
      spec: {
        controlPlaneRef: { name: 'coder' },
        template: 'acme.docker',
        version: { name: 'V2.0_rc1' },
        parameters: [
          { name: 'cpu', value: '2' },
          { name: 'region', value: 'eu' }
        ],
        timeoutSeconds: 900
      }
    })
    expect(JSON.stringify(manifest)).not.toContain('ttlSecondsAfterFinished')
  })

  it('leaves out parameters when none are given, but always writes timeoutSeconds', () => {
    const spec = buildTestManifest({ ...PARAMS, parameters: [] }).spec
    expect(spec).not.toHaveProperty('parameters')
    expect(spec.timeoutSeconds).toBe(900)
  })

  it('gives the same bytes for the same inputs, and YAML that parses back to the object', () => {
    const a = renderManifest(buildTestManifest(PARAMS))
    const b = renderManifest(buildTestManifest({ ...PARAMS, parameters: [...PARAMS.parameters] }))
    expect(a).toBe(b)
    expect(a.startsWith('#')).toBe(true)
    expect(YAML.parse(a)).toEqual(buildTestManifest(PARAMS))
    expect(a).toMatchSnapshot()
  })

  it('quotes values that YAML would otherwise read as other types', () => {
    const manifest = buildTestManifest({
      ...PARAMS,
      version: '1.10',
      parameters: [{ name: 'on', value: 'yes' }]
    })
    expect(YAML.parse(renderManifest(manifest))).toEqual(manifest)
  })
})

describe('parseManifest and sameTest', () => {
  const wanted = buildTestManifest(PARAMS)
  it('accepts the same test written differently', () => {
    const reordered = YAML.stringify({
      kind: 'CoderTemplateTest',
      apiVersion: 'coder.com/v1alpha1',
      spec: { ...wanted.spec, parameters: [...wanted.spec.parameters!].reverse() },
      metadata: { namespace: 'coder-tests', name: 'docker-v2-0-rc1' }
    })
    expect(sameTest(parseManifest(reordered), wanted)).toBe(true)
  })
  it.each([
    ['another version', { ...wanted, spec: { ...wanted.spec, version: { name: 'v2-0-rc1' } } }],
    ['another namespace', { ...wanted, metadata: { ...wanted.metadata, namespace: 'other' } }],
    ['a TTL', { ...wanted, spec: { ...wanted.spec, ttlSecondsAfterFinished: 60 } }]
  ])('refuses %s', (_, other) => {
    expect(sameTest(parseManifest(YAML.stringify(other)), wanted)).toBe(false)
  })
  it('refuses what is not a CoderTemplateTest', () => {
    expect(parseManifest('kind: ConfigMap\n')).toBeNull()
    expect(parseManifest(': : :\n  - [')).toBeNull()
  })
})

describe('specDifferences', () => {
  const committed = buildTestManifest(PARAMS).spec
  it('is empty for an equal spec, with the server default of timeoutSeconds applied', () => {
    expect(specDifferences(committed, structuredClone(committed))).toEqual([])
    const withoutTimeout = buildTestManifest({ ...PARAMS, timeoutSeconds: 900 }).spec
    const live = structuredClone(withoutTimeout)
    delete live.timeoutSeconds
    expect(specDifferences(withoutTimeout, live)).toEqual([])
  })
  it.each<[string, (spec: Record<string, unknown>) => void, string]>([
    [
      'version',
      (s) => (s.version = { name: 'v2-0-rc1' }),
      'spec.version.name: committed "V2.0_rc1", found "v2-0-rc1"'
    ],
    [
      'version id added',
      (s) => (s.version = { name: 'V2.0_rc1', id: '6a3c5d1e-0000-4000-8000-000000000000' }),
      'spec.version.id: committed nothing'
    ],
    ['template', (s) => (s.template = 'acme.other'), 'spec.template'],
    ['control plane', (s) => (s.controlPlaneRef = { name: 'evil' }), 'spec.controlPlaneRef.name'],
    ['timeout', (s) => (s.timeoutSeconds = 7200), 'spec.timeoutSeconds: committed 900, found 7200'],
    [
      'ttl',
      (s) => (s.ttlSecondsAfterFinished = 0),
      'spec.ttlSecondsAfterFinished: committed nothing, found 0'
    ],
    [
      'parameter value',
      (s) =>
        (s.parameters = [
          { name: 'cpu', value: '4' },
          { name: 'region', value: 'eu' }
        ]),
      'spec.parameters[cpu].value: committed "2", found "4"'
    ],
    [
      'parameter missing',
      (s) => (s.parameters = [{ name: 'cpu', value: '2' }]),
      'spec.parameters[region]: committed "eu", found nothing'
    ],
    [
      'parameter extra',
      (s) => (s.parameters = [...(s.parameters as object[]), { name: 'x', value: '1' }]),
      'spec.parameters[x]: committed nothing'
    ],
    ['no parameters', (s) => delete s.parameters, 'spec.parameters: committed'],
    ['unknown field', (s) => (s.extra = true), 'spec.extra: committed nothing, found true']
  ])('names the difference in %s', (_, change, expected) => {
    const live = structuredClone(committed) as unknown as Record<string, unknown>
    change(live)
    expect(specDifferences(committed, live).join('\n')).toContain(expected)
  })
  it('compares parameters by name, not by order', () => {
    const live = { ...committed, parameters: [...committed.parameters!].reverse() }
    expect(specDifferences(committed, live)).toEqual([])
  })
})

describe('integrityProblems', () => {
  const manifest = buildTestManifest(PARAMS)
  const pushed = { id: '11111111-1111-4111-8111-111111111111', name: 'V2.0_rc1' }
  const live = (status: Record<string, unknown>, spec = manifest.spec): CoderTemplateTest => ({
    ...manifest,
    metadata: { ...manifest.metadata, generation: 1 },
    spec,
    status: { observedGeneration: 1, phase: 'Succeeded', ...status }
  })
  it('accepts the object that proves our version', () => {
    expect(
      integrityProblems(
        live({ templateVersionID: pushed.id, templateVersionName: pushed.name }),
        manifest.spec,
        pushed
      )
    ).toEqual([])
  })
  it('refuses another version ID, another name, or no status', () => {
    expect(
      integrityProblems(
        live({
          templateVersionID: '22222222-2222-4222-8222-222222222222',
          templateVersionName: pushed.name
        }),
        manifest.spec,
        pushed
      )
    ).toEqual([
      'status.templateVersionID: pushed "11111111-1111-4111-8111-111111111111", found "22222222-2222-4222-8222-222222222222"'
    ])
    expect(
      integrityProblems(
        live({ templateVersionID: pushed.id, templateVersionName: 'v2' }),
        manifest.spec,
        pushed
      )
    ).toHaveLength(1)
    expect(integrityProblems({ ...manifest, status: null }, manifest.spec, pushed)).toHaveLength(2)
  })
  it('refuses a squatted name: another spec, even with our version ID', () => {
    const squatted = live(
      { templateVersionID: pushed.id, templateVersionName: pushed.name },
      { ...manifest.spec, parameters: [{ name: 'cpu', value: '64' }] }
    )
    expect(integrityProblems(squatted, manifest.spec, pushed).join('\n')).toContain(
      'spec.parameters'
    )
  })
})

describe('YAML 1.1 readers (go-yaml v2: Argo CD, kubectl)', () => {
  it.each([
    ['yes', false],
    ['No', false],
    ['on', false],
    ['OFF', false],
    ['y', false],
    ['n', false],
    ['1_000', false],
    ['0b101', false],
    ['012', false],
    ['1.5', false],
    ['~', false],
    ['', false],
    ['plain text', true],
    ['v1.0.0', true],
    ['acme.docker', true],
    ['coder-tests', true]
  ])('%j stays plain: %s', (value, plain) => {
    expect(isPlainInYaml11(value)).toBe(plain)
  })

  it('quotes every such value, so that a 1.1 parse gives the strings back', () => {
    const values = ['yes', 'off', 'y', '1_000', '0b101', '1.5', 'null', 'true', 'text']
    const text = renderManifest(
      buildTestManifest({
        testName: 'docker-v1',
        namespace: 'n',
        controlPlane: 'on',
        organization: 'acme',
        template: 'docker',
        version: 'v1',
        parameters: values.map((value, i) => ({ name: `p${i}`, value })),
        timeoutSeconds: 900
      })
    )
    const read = YAML.parse(text, { version: '1.1' })
    expect(read.metadata.namespace).toBe('n')
    expect(read.spec.controlPlaneRef.name).toBe('on')
    expect(read.spec.parameters.map((p: { value: unknown }) => p.value)).toEqual(values)
  })
})
