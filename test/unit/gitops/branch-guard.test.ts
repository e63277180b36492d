// The one rule of pull-request mode: the gate's pull request is exactly the gate's change (its base,
// who opened it, the paths of base...head and the manifest's bytes at the head), never decided from
// commit authors or markers; and how a difference is named.
import { describe, expect, it } from '@jest/globals'
import {
  type Account,
  type BranchChanges,
  describeForeign,
  type ForeignChange,
  foreignChange,
  type GateWrites,
  sameAccount
} from '../../../src/gitops/branch-guard.js'

const MANIFEST = 'tests/docker-v1-0-0.yaml'
const OLD = 'tests/docker-v0-1-0.yaml'
const RENDERED = 'apiVersion: coder.com/v1alpha1\nkind: CoderTemplateTest\n'
const viewer = { login: 'gate-app[bot]', id: 77 }

const gate: GateWrites = {
  base: 'gitops',
  manifests: [{ path: MANIFEST, text: RENDERED }],
  removals: [OLD],
  viewer
}
const clean: BranchChanges = {
  base: 'gitops',
  openedBy: viewer,
  files: [{ path: MANIFEST, status: 'added' }],
  manifestTexts: { [MANIFEST]: RENDERED }
}
const withFiles = (...files: BranchChanges['files']) => ({ ...clean, files })

describe('foreignChange', () => {
  it.each<[string, BranchChanges, ForeignChange | null]>([
    ['the manifest alone, as rendered', clean, null],
    [
      'the manifest and the judged removal',
      withFiles({ path: MANIFEST, status: 'added' }, { path: OLD, status: 'removed' }),
      null
    ],
    [
      'a re-run: the manifest modified in place to the rendered bytes',
      withFiles({ path: MANIFEST, status: 'modified' }),
      null
    ],
    [
      'the opener by login when the host gives no id',
      { ...clean, openedBy: { login: 'GATE-APP[bot]' } },
      null
    ],
    [
      'a base changed to another branch',
      { ...clean, base: 'prod' },
      { reason: 'base', base: 'prod', expected: 'gitops' }
    ],
    [
      'a pull request another account opened',
      { ...clean, openedBy: { login: 'mallory', id: 5 } },
      { reason: 'opened-by', login: 'mallory' }
    ],
    [
      'the same login with another id is another account',
      { ...clean, openedBy: { login: viewer.login, id: 78 } },
      { reason: 'opened-by', login: viewer.login }
    ],
    [
      'an opener the host does not name',
      { ...clean, openedBy: undefined },
      { reason: 'opened-by', login: undefined }
    ],
    [
      'another path',
      withFiles(
        { path: MANIFEST, status: 'added' },
        { path: 'apps/prod.yaml', status: 'modified' }
      ),
      { reason: 'paths', paths: ['apps/prod.yaml'] }
    ],
    [
      'a removal the gate did not judge',
      withFiles(
        { path: MANIFEST, status: 'added' },
        { path: 'tests/other.yaml', status: 'removed' }
      ),
      { reason: 'paths', paths: ['tests/other.yaml'] }
    ],
    [
      'a judged path changed, not removed',
      withFiles({ path: MANIFEST, status: 'added' }, { path: OLD, status: 'modified' }),
      { reason: 'paths', paths: [OLD] }
    ],
    [
      'the manifest removed',
      { ...withFiles({ path: MANIFEST, status: 'removed' }), manifestTexts: { [MANIFEST]: null } },
      { reason: 'paths', paths: [MANIFEST] }
    ],
    [
      'a forged commit that rewrites the manifest (marker and e-mail do not matter)',
      { ...clean, manifestTexts: { [MANIFEST]: `${RENDERED}---\nkind: ClusterRoleBinding\n` } },
      { reason: 'manifest', path: MANIFEST, found: 'other bytes' }
    ],
    [
      'no manifest at the head',
      { ...clean, files: [], manifestTexts: { [MANIFEST]: null } },
      { reason: 'manifest', path: MANIFEST, found: 'missing' }
    ],
    [
      "the gate's own commit shown as a rename of the judged removal",
      withFiles({ path: MANIFEST, status: 'renamed', previousPath: OLD }),
      null
    ],
    [
      'a rename onto the manifest from a path the gate did not judge',
      withFiles({ path: MANIFEST, status: 'renamed', previousPath: 'apps/prod.yaml' }),
      { reason: 'paths', paths: ['apps/prod.yaml'] }
    ],
    [
      'a rename of the manifest away',
      withFiles({ path: 'apps/prod.yaml', status: 'renamed', previousPath: MANIFEST }),
      { reason: 'paths', paths: [MANIFEST, 'apps/prod.yaml'] }
    ],
    [
      'a rename whose source GitHub does not name',
      withFiles({ path: MANIFEST, status: 'renamed' }),
      { reason: 'paths', paths: [`${MANIFEST} (renamed from a path GitHub does not name)`] }
    ],
    [
      'a copy onto the manifest (its source stays as it was)',
      withFiles({ path: MANIFEST, status: 'copied', previousPath: 'apps/prod.yaml' }),
      null
    ],
    [
      'a copy of the manifest to another path',
      withFiles(
        { path: MANIFEST, status: 'added' },
        { path: 'apps/prod.yaml', status: 'copied', previousPath: MANIFEST }
      ),
      { reason: 'paths', paths: ['apps/prod.yaml'] }
    ],
    [
      'the base decides first',
      { ...clean, base: 'prod', openedBy: undefined, manifestTexts: { [MANIFEST]: null } },
      { reason: 'base', base: 'prod', expected: 'gitops' }
    ]
  ])('%s', (_name, changes, expected) => {
    expect(foreignChange(changes, gate)).toEqual(expected)
  })
})

describe('foreignChange with one manifest per preset test', () => {
  const LARGE = 'tests/docker-v1-0-0-large.yaml'
  const twoTests: GateWrites = {
    ...gate,
    manifests: [...gate.manifests, { path: LARGE, text: `${RENDERED}# large\n` }]
  }
  const both = withFiles({ path: MANIFEST, status: 'added' }, { path: LARGE, status: 'added' })

  it.each<[string, BranchChanges, ForeignChange | null]>([
    [
      'both as rendered',
      { ...both, manifestTexts: { [MANIFEST]: RENDERED, [LARGE]: `${RENDERED}# large\n` } },
      null
    ],
    [
      'the second one rewritten',
      { ...both, manifestTexts: { [MANIFEST]: RENDERED, [LARGE]: RENDERED } },
      { reason: 'manifest', path: LARGE, found: 'other bytes' }
    ],
    [
      'the second one missing',
      { ...clean, manifestTexts: { [MANIFEST]: RENDERED } },
      { reason: 'manifest', path: LARGE, found: 'missing' }
    ],
    [
      'the second one removed',
      {
        ...withFiles({ path: MANIFEST, status: 'added' }, { path: LARGE, status: 'removed' }),
        manifestTexts: { [MANIFEST]: RENDERED, [LARGE]: null }
      },
      { reason: 'paths', paths: [LARGE] }
    ]
  ])('%s', (_name, changes, expected) => {
    expect(foreignChange(changes, twoTests)).toEqual(expected)
  })
})

describe('sameAccount', () => {
  it.each<[string, Account, boolean]>([
    ['the same id', { login: 'renamed', id: 77 }, true],
    ['another id', { login: viewer.login, id: 1 }, false],
    ['no id, the same login in another case', { login: 'Gate-App[bot]' }, true],
    ['no id, another login', { login: 'github-actions[bot]' }, false]
  ])('%s', (_name, account, expected) => {
    expect(sameAccount(account, viewer)).toBe(expected)
  })
})

describe('describeForeign', () => {
  it.each<[ForeignChange, string]>([
    [{ reason: 'base', base: 'prod', expected: 'gitops' }, 'its base is "prod", not "gitops"'],
    [
      { reason: 'opened-by', login: 'mallory' },
      'it was opened by "mallory", not by the account of gitops-token'
    ],
    [{ reason: 'opened-by' }, 'it was not opened by the account of gitops-token'],
    [
      { reason: 'paths', paths: ['a.yaml', 'b.yaml'] },
      'it changes a.yaml, b.yaml, which the gate did not write'
    ],
    [
      { reason: 'manifest', path: MANIFEST, found: 'missing' },
      `${MANIFEST} is missing at its head`
    ],
    [
      { reason: 'manifest', path: MANIFEST, found: 'other bytes' },
      `${MANIFEST} at its head holds other bytes than the manifest this run renders`
    ]
  ])('%j', (change, expected) => {
    expect(describeForeign(change)).toBe(expected)
  })
})
