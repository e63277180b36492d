// keep-tests decisions: which gate-written manifests are ours, and which of them to remove.
import { describe, expect, it } from '@jest/globals'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import { buildTestManifest, MANAGED_BY_LABEL } from '../../../src/objects/manifest.js'
import {
  isGateManifestFor,
  mayRemoveTest,
  planPrune,
  type PruneCandidate,
  type PruneKeptWhy,
  selectPrunable,
  selectPrunableLive,
  type TestState
} from '../../../src/gitops/prune.js'

const DIR = 'coder-template-tests'
const THIS_RUN = `${DIR}/docker-v9.yaml`

// null in the tables below: a time that cannot be read (absent in the candidate).
const c = (name: string, createdAt: string | null): PruneCandidate => ({
  path: `${DIR}/docker-${name}.yaml`,
  versionName: name,
  createdAt: createdAt ?? undefined
})

// Five older manifests: v1 unknown (its time cannot be read), v2..v5 by time; v4 is active.
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
      'keep 1: every other manifest except the active one and the undated one, oldest first',
      five,
      1,
      'v4',
      [p('v2'), p('v3'), p('v5')]
    ],
    [
      'keep 1 with no active version: all four dated ones, oldest first',
      five,
      1,
      null,
      [p('v2'), p('v3'), p('v4'), p('v5')]
    ],
    // This run + v5 are the two newest; v4 is beyond but active; unknown v1 is never removed.
    ['keep 2 over five, one active', five, 2, 'v4', [p('v2'), p('v3')]],
    ['keep 2, the active one among the kept', five, 2, 'v5', [p('v2'), p('v3'), p('v4')]],
    ['keep 6: this run and five others fit', five, 6, null, []],
    ['keep 5: the one beyond has no time, so it stays', five, 5, null, []],
    ['keep 4: the oldest dated one goes', five, 4, null, [p('v2')]],
    [
      "this run's path among the candidates is never removed and takes no second place",
      [...five, { path: THIS_RUN, versionName: 'v9', createdAt: '2026-01-01T00:00:00Z' }],
      3,
      null,
      [p('v2'), p('v3')]
    ],
    [
      'ties by path: the same time goes in path order; unknown times stay',
      [
        c('b', '2026-01-01T00:00:00Z'),
        c('c', null),
        c('a', '2026-01-01T00:00:00Z'),
        c('z', '2026-06-01T00:00:00Z'),
        c('d', null)
      ],
      2,
      null,
      [p('a'), p('b')]
    ],
    [
      'an unparsable created_at counts as unknown, and stays',
      [c('x', 'not a date'), c('y', '2026-01-01T00:00:00Z')],
      2,
      null,
      []
    ],
    [
      'an empty active version name protects no manifest without a version name',
      [{ path: `${DIR}/id-only.yaml`, versionName: '', createdAt: '2026-01-01T00:00:00Z' }],
      1,
      '',
      [`${DIR}/id-only.yaml`]
    ],
    [
      'a manifest without a version name is not the active one',
      [{ path: `${DIR}/id-only.yaml`, versionName: '', createdAt: '2026-01-01T00:00:00Z' }],
      1,
      null,
      [`${DIR}/id-only.yaml`]
    ]
  ])('%s', (_, candidates, keep, activeVersionName, expected) => {
    const input = {
      candidates,
      keep,
      activeVersionName: activeVersionName ?? undefined,
      thisRunPaths: [THIS_RUN],
      thisRunCreatedAt: '2026-12-01T00:00:00Z'
    }
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

describe('selectPrunable: a version with preset tests is one unit', () => {
  const preset = (version: string, name: string, createdAt: string | null): PruneCandidate => ({
    path: `${DIR}/docker-${version}-${name}.yaml`,
    versionName: version,
    createdAt: createdAt ?? undefined
  })
  const units = [
    preset('v1', 'small', '2026-01-01T00:00:00Z'),
    preset('v1', 'large', '2026-01-01T00:00:00Z'),
    preset('v2', 'small', '2026-02-01T00:00:00Z'),
    preset('v2', 'large', '2026-02-01T00:00:00Z'),
    preset('v2', 'xl', '2026-02-01T00:00:00Z'),
    c('v3', '2026-03-01T00:00:00Z'),
    preset('v9', 'old-choice', '2026-09-01T00:00:00Z')
  ]
  const mine = [`${DIR}/docker-v9-small.yaml`, `${DIR}/docker-v9-large.yaml`]
  it.each<[string, number, string | null, string[]]>([
    [
      'keep 2: this run and v3; v1 and v2 go whole',
      2,
      null,
      [
        `${DIR}/docker-v1-large.yaml`,
        `${DIR}/docker-v1-small.yaml`,
        `${DIR}/docker-v2-large.yaml`,
        `${DIR}/docker-v2-small.yaml`,
        `${DIR}/docker-v2-xl.yaml`
      ]
    ],
    [
      'keep 3: v2 stays whole (three files count as one version)',
      3,
      null,
      [`${DIR}/docker-v1-large.yaml`, `${DIR}/docker-v1-small.yaml`]
    ],
    [
      'keep 1, v2 active: v2 stays whole',
      1,
      'v2',
      [`${DIR}/docker-v1-large.yaml`, `${DIR}/docker-v1-small.yaml`, p('v3')]
    ]
  ])('%s', (_, keep, activeVersionName, expected) => {
    const prunable = selectPrunable({
      candidates: units,
      keep,
      activeVersionName: activeVersionName ?? undefined,
      thisRunPaths: mine,
      thisRunVersionName: 'v9',
      thisRunCreatedAt: '2026-09-01T00:00:00Z'
    })
    expect(prunable).toEqual(expected)
    // An earlier run's preset test of this run's version is never pruned.
    expect(prunable).not.toContain(`${DIR}/docker-v9-old-choice.yaml`)
  })
})

describe('planPrune: never a newer version, never an unknown time', () => {
  const base = { keep: 1, thisRunPaths: [THIS_RUN] }
  it.each<[string, PruneCandidate[], string | null, string[], [string, PruneKeptWhy][]]>([
    [
      'an older run never removes the manifest of a version created after its own',
      [c('v1.2.1', '2026-06-02T00:00:00Z'), c('v1.1.0', '2026-05-01T00:00:00Z')],
      '2026-06-01T00:00:00Z',
      [p('v1.1.0')],
      [[p('v1.2.1'), 'newer']]
    ],
    [
      'a version created at the same instant counts as newer',
      [c('twin', '2026-06-01T00:00:00Z')],
      '2026-06-01T00:00:00Z',
      [],
      [[p('twin'), 'newer']]
    ],
    [
      'a version whose time cannot be read stays',
      [c('gone', null), c('old', '2026-01-01T00:00:00Z')],
      '2026-06-01T00:00:00Z',
      [p('old')],
      [[p('gone'), 'unknown-created-at']]
    ],
    [
      "this run's own time unknown: nothing goes",
      [c('old', '2026-01-01T00:00:00Z')],
      null,
      [],
      [[p('old'), 'unknown-created-at']]
    ]
  ])('%s', (_, candidates, thisRunCreatedAt, remove, kept) => {
    const plan = planPrune({ ...base, candidates, thisRunCreatedAt: thisRunCreatedAt ?? undefined })
    expect(plan.remove).toEqual(remove)
    expect(plan.kept.map((k) => [k.path, k.why])).toEqual(kept)
  })
})

describe('mayRemoveTest: never a test that still runs', () => {
  it.each<[TestState, boolean]>([
    ['final', true],
    ['absent', true],
    ['running', false],
    ['unread', false]
  ])('%s -> %s', (state, may) => {
    expect(mayRemoveTest(state)).toBe(may)
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
    versionName: ''
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
    expect(selectPrunableLive({ candidates, keep, thisRunPaths: [thisRunPath] })).toEqual(
      removed.map((name) => `${DIR}/${name}.yaml`)
    )
  })

  it.each<[string, string[]]>([
    ['a newer run', ['docker-live-5-1']],
    ['a newer attempt of this run', ['docker-live-5-1']]
  ])('never removes %s, which may not have synced yet', (_name, removed) => {
    const thisRunPath = `${DIR}/docker-live-99-1.yaml`
    const candidates = [
      live('docker-live-5-1'),
      live('docker-live-1000-1'),
      live('docker-live-99-2'),
      live('docker-live-99-1')
    ]
    expect(selectPrunableLive({ candidates, keep: 1, thisRunPaths: [thisRunPath] })).toEqual(
      removed.map((name) => `${DIR}/${name}.yaml`)
    )
  })
})
