import { describe, expect, it } from '@jest/globals'
import YAML from 'yaml'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import { integrityProblems } from '../../../src/verdict/integrity.js'
import { versionNameProblem } from '../../../src/settings/naming.js'
import { describeWithGo } from '../../go/engines.js'
import {
  buildTestManifest,
  isPlainInYaml11,
  type ManifestParams,
  parseManifest,
  renderManifest,
  sameTest,
  specDifferences
} from '../../../src/objects/manifest.js'

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

// Values that go-yaml v2 (YAML 1.1: Argo CD, kubectl via sigs.k8s.io/yaml) reads as another type.
// Coder's version rule (naming.ts VERSION_NAME_PATTERN) admits all but `~`, `.inf`, `-.inf`,
// `.NaN`, `.5`, `+12` and `1:20`: those are tried as parameter names and values only.
const YAML11_TRAPS = [
  ...['yes', 'no', 'on', 'off', 'y', 'n', '~', 'null', '1_000', '0b101', '1e3', '0x1F', '.inf'],
  ...['012', 'Yes', 'OFF', 'True', 'NULL', '+12', '.5', '-.inf', '.NaN', '1E3', '1:20'],
  // Go's strconv.ParseInt(s, 0, 64), under go-yaml's int rule, also takes these prefixes.
  ...['0o17', '0O17', '0X1F', '0B101']
]

function trapManifest(trap: string): CoderTemplateTest {
  return buildTestManifest({
    ...PARAMS,
    version: versionNameProblem(trap) === null ? trap : 'v1',
    parameters: [
      { name: trap, value: trap },
      { name: 'plain', value: 'text' }
    ]
  })
}

// Names of Kubernetes objects and Coder templates may be traps too, where their rules allow.
const TRAP_NAMES = buildTestManifest({
  ...PARAMS,
  testName: 'y',
  namespace: 'yes',
  controlPlane: 'on',
  organization: 'no',
  template: 'off',
  version: 'null'
})

const TRAP_ROWS: [string, CoderTemplateTest][] = [
  ...YAML11_TRAPS.map((trap) => [trap, trapManifest(trap)] as [string, CoderTemplateTest]),
  ['names', TRAP_NAMES]
]

/** The Go type that go-yaml v2 must give each scalar, by the path the Go reader reports. */
function goTypesOf(value: unknown, path = '', out: Record<string, string> = {}) {
  if (Array.isArray(value)) value.forEach((item, i) => goTypesOf(item, `${path}/${i}`, out))
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) goTypesOf(item, `${path}/${key}`, out)
  } else out[path] = typeof value === 'number' ? 'int' : typeof value
  return out
}

describe('quotes values that YAML would otherwise read as other types', () => {
  it.each(TRAP_ROWS)('%j reads back unchanged with the yaml library in YAML 1.1 mode', (_, m) => {
    expect(YAML.parse(renderManifest(m), { version: '1.1' })).toEqual(m)
  })

  it('covers every trap as a version name where Coder allows it', () => {
    const versions = TRAP_ROWS.map(([, m]) => m.spec.version.name).filter((v) => v !== 'v1')
    expect(versions.length).toBeGreaterThanOrEqual(20)
  })
})

describeWithGo('reads back with go-yaml v2, as kubectl and Argo CD do', (go) => {
  const readings = go.readYaml(TRAP_ROWS.map(([, m]) => renderManifest(m)))

  it.each(TRAP_ROWS.map(([trap, m], i) => [trap, m, readings[i]] as const))(
    '%j: every field keeps its value and its type',
    (_, manifest, reading) => {
      expect(reading.error).toBeUndefined()
      expect(reading.json).toEqual(manifest)
      expect(reading.types).toEqual(goTypesOf(manifest))
    }
  )

  it('keeps a value plain only when go-yaml v2 reads it as that same string', () => {
    const candidates = [...YAML11_TRAPS, 'v1.0.0', 'acme.docker', 'coder-tests', 'yES', '0b2']
    const plain = candidates.filter(isPlainInYaml11)
    const read = go.readYaml(plain.map((value) => `value: ${value}\n`))
    const misread = plain.filter(
      (value, i) => (read[i].json as { value?: unknown } | undefined)?.value !== value
    )
    expect(plain).toContain('v1.0.0')
    expect(misread).toEqual([])
  })
})

describe('isPlainInYaml11', () => {
  it.each([
    ...YAML11_TRAPS.map((trap) => [trap, false] as const),
    ['1.5', false],
    ['', false],
    ['plain text', true],
    ['v1.0.0', true],
    ['acme.docker', true],
    ['coder-tests', true]
  ])('%j stays plain: %s', (value, plain) => {
    expect(isPlainInYaml11(value)).toBe(plain)
  })
})
