// gitOpsProblems: what the run cannot do in the GitOps repository, each problem with its fix.
import { describe, expect, it } from '@jest/globals'
import { gitOpsProblems } from '../../../../src/gitops/github/access.js'
import { bypassedRules } from '../../../../src/steps/preflight-gitops.js'
import type { GitOpsExpectations, GitOpsFacts } from '../../../../src/gitops/host.js'

const fine: GitOpsFacts = {
  repository: 'found',
  branch: 'main',
  branchExists: true,
  canWrite: true,
  pullRequestRequiredBy: null,
  rulesKnown: true,
  allowAutoMerge: true
}
const commit: GitOpsExpectations = {
  owner: 'acme',
  repo: 'gitops',
  delivery: 'commit',
  merge: 'auto'
}
const pr: GitOpsExpectations = { ...commit, delivery: 'pull-request' }

type Row = [string, Partial<GitOpsFacts>, GitOpsExpectations, Array<[RegExp, RegExp]>]

describe('gitOpsProblems', () => {
  it.each<Row>([
    ['all fine in commit mode', {}, commit, []],
    ['all fine in pull-request mode', {}, pr, []],
    [
      'a required_status_checks ruleset in commit mode',
      {
        commitRules: [{ rule: 'required_status_checks', by: 'ruleset "ci" (id 3)', bypass: false }]
      },
      commit,
      [
        [
          /^ruleset "ci" \(id 3\) refuses direct commits to main \(rule required_status_checks\), and gitops-token may not bypass it\.$/,
          /gitops-mode: pull-request/
        ]
      ]
    ],
    [
      'an update ruleset and classic push restrictions: one problem each',
      {
        commitRules: [
          { rule: 'update', by: 'ruleset "lock" (id 4)', bypass: false },
          { rule: 'push restrictions', by: 'classic branch protection', bypass: false }
        ]
      },
      commit,
      [
        [/rule update/, /gitops-mode: pull-request/],
        [/classic branch protection .*rule push restrictions/, /gitops-mode: pull-request/]
      ]
    ],
    [
      'a rule the token may bypass is no problem',
      {
        pullRequestRequiredBy: 'a repository ruleset',
        commitRules: [{ rule: 'pull_request', by: 'ruleset "pr" (id 5)', bypass: true }]
      },
      commit,
      []
    ],
    [
      'rules against direct commits do not matter in pull-request mode',
      {
        commitRules: [{ rule: 'required_status_checks', by: 'ruleset "ci" (id 3)', bypass: false }]
      },
      pr,
      []
    ],
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
    ['write permission unknown: no problem', { canWrite: undefined }, commit, []],
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
    ['auto-merge unknown: no problem', { allowAutoMerge: undefined }, pr, []],
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

describe('bypassedRules: what the summary says of a rule gitops-token bypasses', () => {
  it.each<[string, GitOpsFacts['commitRules'], string[]]>([
    ['no rules', [], []],
    ['not read', undefined, []],
    [
      'a rule it may not bypass: not a bypass',
      [{ rule: 'update', by: 'ruleset "l" (id 1)', bypass: false }],
      []
    ],
    [
      'a bypassed pull_request rule',
      [{ rule: 'pull_request', by: 'ruleset "pr" (id 5)', bypass: true }],
      [
        'gitops-token bypasses ruleset "pr" (id 5) (rule pull_request) on main: the gate commits to it directly.'
      ]
    ]
  ])('%s', (_, commitRules, lines) => {
    expect(bypassedRules({ ...fine, ...(commitRules ? { commitRules } : {}) })).toEqual(lines)
  })
})
