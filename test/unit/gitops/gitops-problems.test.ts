// gitOpsProblems: what the run cannot do in the GitOps repository, each problem with its fix.
import { describe, expect, it } from '@jest/globals'
import { gitOpsProblems } from '../../../src/gitops/access.js'
import type { GitOpsExpectations, GitOpsFacts } from '../../../src/gitops/host.js'

const fine: GitOpsFacts = {
  repository: 'found',
  branch: 'main',
  branchExists: true,
  canWrite: true,
  pullRequestRequiredBy: null,
  rulesKnown: true,
  allowAutoMerge: true
}
const commit: GitOpsExpectations = { owner: 'acme', repo: 'gitops', mode: 'commit', merge: 'auto' }
const pr: GitOpsExpectations = { ...commit, mode: 'pull-request' }

type Row = [string, Partial<GitOpsFacts>, GitOpsExpectations, Array<[RegExp, RegExp]>]

describe('gitOpsProblems', () => {
  it.each<Row>([
    ['all fine in commit mode', {}, commit, []],
    ['all fine in pull-request mode', {}, pr, []],
    ['401', { repository: 'bad-token' }, commit, [[/refused \(401\)/, /Store a valid token/]]],
    [
      '403',
      { repository: 'forbidden' },
      pr,
      [[/may not read acme\/gitops \(403\)/, /Give the token access.*pull-requests: write/]]
    ],
    [
      '404',
      { repository: 'missing' },
      commit,
      [[/acme\/gitops does not exist.*\(404\)/, /Check gitops-repository/]]
    ],
    [
      // One problem only: nothing else about a repository we could not read is known.
      'a missing repository hides the other facts',
      { repository: 'missing', branchExists: false, canWrite: false, allowAutoMerge: false },
      pr,
      [[/does not exist/, /gitops-repository/]]
    ],
    [
      'the branch is missing',
      { branchExists: false, branch: 'release' },
      commit,
      [[/"release" does not exist in acme\/gitops/, /set gitops-branch/]]
    ],
    [
      'no write in commit mode',
      { canWrite: false },
      commit,
      [[/may not write to acme\/gitops/, /^Grant `contents: write` on the repository\.$/]]
    ],
    [
      'no write in pull-request mode',
      { canWrite: false },
      pr,
      [[/may not write/, /`contents: write` and `pull-requests: write`/]]
    ],
    ['write permission unknown: no problem', { canWrite: null }, commit, []],
    [
      'commit mode, a ruleset requires a pull request',
      { pullRequestRequiredBy: 'a repository ruleset' },
      commit,
      [
        [
          /^a repository ruleset requires a pull request for changes to main\./,
          /`gitops-mode: pull-request`/
        ]
      ]
    ],
    [
      'commit mode, classic protection requires a pull request',
      { pullRequestRequiredBy: 'classic branch protection' },
      commit,
      [[/^classic branch protection requires a pull request/, /`gitops-mode: pull-request`/]]
    ],
    [
      'pull-request mode: a required pull request is what it makes',
      { pullRequestRequiredBy: 'a repository ruleset' },
      pr,
      []
    ],
    ['rules unknown: no problem', { rulesKnown: false, pullRequestRequiredBy: null }, commit, []],
    [
      'pull-request mode, merge auto, auto-merge not allowed',
      { allowAutoMerge: false },
      pr,
      [[/does not allow auto-merge/, /"Allow auto-merge".*immediate or manual/]]
    ],
    ['auto-merge unknown: no problem', { allowAutoMerge: null }, pr, []],
    [
      'merge immediate needs no auto-merge',
      { allowAutoMerge: false },
      { ...pr, merge: 'immediate' },
      []
    ],
    ['merge manual needs no auto-merge', { allowAutoMerge: false }, { ...pr, merge: 'manual' }, []],
    ['commit mode needs no auto-merge', { allowAutoMerge: false }, commit, []],
    [
      'several at once, in order',
      { branchExists: false, canWrite: false, pullRequestRequiredBy: 'a repository ruleset' },
      commit,
      [
        [/branch "main" does not exist/, /Create it/],
        [/may not write/, /contents: write/],
        [/requires a pull request/, /gitops-mode: pull-request/]
      ]
    ]
  ])('%s', (_, change, want, expected) => {
    const problems = gitOpsProblems({ ...fine, ...change }, want)
    expect(problems).toHaveLength(expected.length)
    problems.forEach(({ problem, fix }, i) => {
      expect(problem).toMatch(expected[i][0])
      expect(fix).toMatch(expected[i][1])
    })
  })
})
