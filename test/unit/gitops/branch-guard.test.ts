// The branch guard of pull-request mode: which commits and paths on coder-template-gate/<test> are
// the gate's, and how a foreign one is named.
import { describe, expect, it } from '@jest/globals'
import {
  type BranchChanges,
  type BranchCommit,
  describeForeign,
  foreignChange,
  GATE_COMMIT_MARKER,
  type GateWrites
} from '../../../src/gitops/branch-guard.js'

const MANIFEST = 'tests/docker-v1-0-0.yaml'
const GATE = 'github-actions[bot]'
const gateMessage = `Test acme.docker version v1.0.0\n\nCoderTemplateTest x (${MANIFEST}), ${GATE_COMMIT_MARKER}`

function commit(sha: string, login: string | null, message = gateMessage): BranchCommit {
  return { sha, login, authorName: login ?? 'Mallory', message }
}
const ours = commit('a1', GATE)
const earlier = commit('e0', GATE)
const pushed = commit('f9', 'mallory', 'tweak')
const pushedByGateToken = commit('f8', GATE, 'a hand-made commit with the gate token')
const forged = commit('f7', 'mallory')
const unlinked = commit('f6', null)

const manifestAdded = [{ path: MANIFEST, status: 'added' }]
const gate: GateWrites = {
  manifestPaths: [MANIFEST],
  removals: ['tests/docker-v0-1-0.yaml'],
  ownCommitSha: 'a1',
  gateLogin: GATE
}
const leftover: GateWrites = { ...gate, ownCommitSha: '' }

function changes(commits: BranchCommit[], files = manifestAdded, total = commits.length) {
  return { commits, totalCommits: total, files } satisfies BranchChanges
}

describe('foreignChange', () => {
  it.each<[string, BranchChanges, GateWrites, ReturnType<typeof foreignChange>]>([
    ['this run’s commit alone', changes([ours]), gate, null],
    [
      'this run’s commit with its removals',
      changes([ours], [...manifestAdded, { path: 'tests/docker-v0-1-0.yaml', status: 'removed' }]),
      gate,
      null
    ],
    ['an earlier run’s commit, then ours', changes([earlier, ours]), gate, null],
    ['a leftover branch of gate commits only', changes([earlier]), leftover, null],
    ['a push after ours', changes([ours, pushed]), gate, { reason: 'commit', commit: pushed }],
    [
      'a commit with the marker after ours is not ours',
      changes([ours, commit('a2', GATE)]),
      gate,
      { reason: 'commit', commit: commit('a2', GATE) }
    ],
    ['a push before ours', changes([pushed, ours]), gate, { reason: 'commit', commit: pushed }],
    [
      'a leftover branch with a foreign commit',
      changes([earlier, pushed]),
      leftover,
      { reason: 'commit', commit: pushed }
    ],
    [
      'the gate’s token without the marker',
      changes([earlier, pushedByGateToken]),
      leftover,
      { reason: 'commit', commit: pushedByGateToken }
    ],
    [
      'the marker from another account',
      changes([forged]),
      leftover,
      { reason: 'commit', commit: forged }
    ],
    ['no linked account', changes([unlinked]), leftover, { reason: 'commit', commit: unlinked }],
    [
      'no known gate account: only this run’s commit counts',
      changes([earlier, ours]),
      { ...gate, gateLogin: null },
      { reason: 'commit', commit: earlier }
    ],
    [
      'a path outside the manifest',
      changes([ours], [...manifestAdded, { path: 'apps/prod.yaml', status: 'modified' }]),
      gate,
      { reason: 'paths', paths: ['apps/prod.yaml'] }
    ],
    [
      'a removal that is not this run’s',
      changes([ours], [...manifestAdded, { path: 'tests/other.yaml', status: 'removed' }]),
      gate,
      { reason: 'paths', paths: ['tests/other.yaml'] }
    ],
    [
      'a removal path that is modified instead',
      changes([ours], [...manifestAdded, { path: 'tests/docker-v0-1-0.yaml', status: 'modified' }]),
      gate,
      { reason: 'paths', paths: ['tests/docker-v0-1-0.yaml'] }
    ],
    [
      'the manifest removed',
      changes([ours], [{ path: MANIFEST, status: 'removed' }]),
      gate,
      { reason: 'paths', paths: [MANIFEST] }
    ],
    [
      'more commits than GitHub lists',
      changes([ours], manifestAdded, 300),
      gate,
      { reason: 'too-many-commits', totalCommits: 300 }
    ]
  ])('%s', (_, branch, writes, expected) => {
    expect(foreignChange(branch, writes)).toEqual(expected)
  })
})

describe('describeForeign', () => {
  it.each<[string, Parameters<typeof describeForeign>, string]>([
    [
      'a commit with its paths',
      [{ reason: 'commit', commit: pushed }, ['apps/prod.yaml']],
      'commit f9 by "mallory", touching apps/prod.yaml'
    ],
    [
      'an unlinked author by name',
      [{ reason: 'commit', commit: unlinked }, []],
      'commit f6 by "Mallory", touching no file'
    ],
    ['paths alone', [{ reason: 'paths', paths: ['a', 'b'] }], 'changes to a, b'],
    [
      'too many commits',
      [{ reason: 'too-many-commits', totalCommits: 300 }],
      '300 commits since it left the base branch, more than the gate writes'
    ]
  ])('%s', (_, args, expected) => {
    expect(describeForeign(...args)).toBe(expected)
  })
})
