// keep-tests decisions: which gate-written manifests are ours, and which of them to remove.
import { describe, expect, it } from '@jest/globals'
import type { CoderTemplateTest } from '../../../src/kube/objects.js'
import { buildTestManifest, MANAGED_BY_LABEL } from '../../../src/verdict/manifest.js'
import {
  isGateManifestFor,
  type PruneCandidate,
  selectPrunable,
  selectPrunableLive
} from '../../../src/gitops/prune.js'

const DIR = 'coder-template-tests'
const THIS_RUN = `${DIR}/docker-v9.yaml`

const c = (name: string, createdAt: string | null): PruneCandidate => ({
  path: `${DIR}/docker-${name}.yaml`,
  versionName: name,
  createdAt
})

// Five older manifests: v1 unknown (its version is gone), v2..v5 by time; v4 is active.
const five = [
  c('v3', '2026-03-01T00:00:00Z'),
  c('v1', null),
  c('v5', '2026-05-01T00:00:00Z'),
  c('v2', '2026-02-01T00:00:00Z'),
  c('v4', '2026-04-01T00:00:00Z')
]
const p = (name: string) => `${DIR}/docker-${name}.yaml`

describe('selectPrunable', () => {
  it.each<[string, PruneCandidate[], number, string | null, string[]]>([
    ['keep 0 keeps everything', five, 0, null, []],
    ['keep -1 (never valid) keeps everything', five, -1, 'v4', []],
    ['no candidates: nothing', [], 2, null, []],
    [
      'keep 1: every other manifest except the active one, oldest first',
      five,
      1,
      'v4',
      [p('v1'), p('v2'), p('v3'), p('v5')]
    ],
    [
      'keep 1 with no active version: all five, oldest first',
      five,
      1,
      null,
      [p('v1'), p('v2'), p('v3'), p('v4'), p('v5')]
    ],
    // This run + v5 are the two newest; v4 is beyond but active; unknown v1 counts as oldest.
    ['keep 2 over five, one active', five, 2, 'v4', [p('v1'), p('v2'), p('v3')]],
    ['keep 2, the active one among the kept', five, 2, 'v5', [p('v1'), p('v2'), p('v3'), p('v4')]],
    ['keep 6: this run and five others fit', five, 6, null, []],
    ['keep 5: only the oldest (unknown) goes', five, 5, null, [p('v1')]],
    [
      "this run's path among the candidates is never removed and takes no second place",
      [...five, { path: THIS_RUN, versionName: 'v9', createdAt: '2026-01-01T00:00:00Z' }],
      3,
      null,
      [p('v1'), p('v2'), p('v3')]
    ],
    [
      'ties by path: the same time, and unknown times, go in path order',
      [
        c('b', '2026-01-01T00:00:00Z'),
        c('c', null),
        c('a', '2026-01-01T00:00:00Z'),
        c('z', '2026-06-01T00:00:00Z'),
        c('d', null)
      ],
      2,
      null,
      [p('c'), p('d'), p('a'), p('b')]
    ],
    [
      'an unparsable created_at counts as unknown',
      [c('x', 'not a date'), c('y', '2026-01-01T00:00:00Z')],
      2,
      null,
      [p('x')]
    ],
    [
      'an empty active version name protects no manifest without a version name',
      [{ path: `${DIR}/id-only.yaml`, versionName: '', createdAt: null }],
      1,
      '',
      [`${DIR}/id-only.yaml`]
    ],
    [
      'a manifest without a version name is not the active one',
      [{ path: `${DIR}/id-only.yaml`, versionName: '', createdAt: null }],
      1,
      null,
      [`${DIR}/id-only.yaml`]
    ]
  ])('%s', (_, candidates, keep, activeVersionName, expected) => {
    const input = { candidates, keep, activeVersionName, thisRunPath: THIS_RUN }
    const before = JSON.stringify(input)
    const prunable = selectPrunable(input)
    expect(prunable).toEqual(expected)
    expect(prunable).not.toContain(THIS_RUN)
    const active = candidates.find((x) => activeVersionName && x.versionName === activeVersionName)
    if (active) expect(prunable).not.toContain(active.path)
    // The input is not reordered in place.
    expect(JSON.stringify(input)).toBe(before)
  })
})

describe('isGateManifestFor', () => {
  const owner = { organization: 'acme', template: 'docker', namespace: 'coder-tests' }
  const ours = (): CoderTemplateTest =>
    buildTestManifest({
      organization: 'acme',
      template: 'docker',
      version: 'v1',
      testName: 'docker-v1',
      namespace: 'coder-tests',
      controlPlane: 'coder',
      parameters: [],
      timeoutSeconds: 600
    })
  const edited = (change: (m: CoderTemplateTest) => void) => {
    const m = ours()
    change(m)
    return m
  }

  it.each<[string, CoderTemplateTest, boolean]>([
    ['ours', ours(), true],
    ['the managed-by label missing', edited((m) => delete m.metadata.labels), false],
    [
      'another manager',
      edited((m) => (m.metadata.labels = { [MANAGED_BY_LABEL]: 'argocd' })),
      false
    ],
    ['another template', edited((m) => (m.spec.template = 'acme.kubernetes')), false],
    [
      'the same template in another organization',
      edited((m) => (m.spec.template = 'other.docker')),
      false
    ],
    ['another namespace', edited((m) => (m.metadata.namespace = 'default')), false],
    ['no namespace', edited((m) => delete m.metadata.namespace), false],
    ['no spec at all (not a test)', { metadata: {} } as unknown as CoderTemplateTest, false]
  ])('%s', (_, manifest, expected) => {
    expect(isGateManifestFor(manifest, owner)).toBe(expected)
  })

  it('a manifest without namespace is ours when our namespace is empty too', () => {
    const m = edited((x) => delete x.metadata.namespace)
    expect(isGateManifestFor(m, { ...owner, namespace: '' })).toBe(true)
  })
})

describe('selectPrunableLive (mode: verify)', () => {
  const live = (name: string): PruneCandidate => ({
    path: `${DIR}/${name}.yaml`,
    versionName: '',
    createdAt: null
  })
  // Run 99 sorts after run 1000 as text; by number it is older.
  const tests = [
    live('docker-live-1000-1'),
    live('docker-live-99-1'),
    live('docker-live-1000-2'),
    live('docker-live-5-1'),
    live('docker-other')
  ]
  it.each<[number, string[]]>([
    [0, []],
    [
      1,
      [
        'docker-other',
        'docker-live-5-1',
        'docker-live-99-1',
        'docker-live-1000-1',
        'docker-live-1000-2'
      ]
    ],
    [2, ['docker-other', 'docker-live-5-1', 'docker-live-99-1', 'docker-live-1000-1']],
    [4, ['docker-other', 'docker-live-5-1']],
    [6, []]
  ])('keep %i removes %j, oldest first, never this run', (keep, removed) => {
    const thisRunPath = `${DIR}/docker-live-2000-1.yaml`
    const candidates = [...tests, live('docker-live-2000-1')]
    expect(selectPrunableLive({ candidates, keep, activeVersionName: null, thisRunPath })).toEqual(
      removed.map((name) => `${DIR}/${name}.yaml`)
    )
  })
})
