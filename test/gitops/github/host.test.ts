// The GitHub adapter of the Git host interface (src/gitops/github/host.ts) on the GitHub sandbox
// over real HTTP: the contract table that the in-memory host of the step tests keeps too
// (test/gitops/host-contract.ts), and the links.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { GitHubHost, gitHubLinks } from '../../../src/gitops/github/host.js'
import { createGitOpsOctokit } from '../../../src/gitops/github/client/octokit.js'
import { describeHostContract } from '../host-contract.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.js'

const OWNER = 'acme'
let sandbox: GitHubSandbox
let counter = 0

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
})

afterAll(() => sandbox.close())

describeHostContract('GitHub on the sandbox', (files) => {
  counter += 1
  const repo = `host-${counter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch: 'main', files })
  const octokit = createGitOpsOctokit({
    token: sandbox.token,
    baseUrl: sandbox.url,
    delayUnitMs: 1,
    retries: 1,
    spaceWrites: false
  })
  return {
    host: new GitHubHost({ octokit, owner: OWNER, repo, serverUrl: sandbox.serverUrl }),
    gateLogin: 'github-actions[bot]',
    push: (branch, path, content) => sandbox.writeFile(OWNER, repo, branch, path, content),
    protect: (branch) =>
      sandbox.addRuleset(OWNER, repo, {
        requirePullRequest: true,
        include: [`refs/heads/${branch}`]
      })
  }
})

describe('gitHubLinks', () => {
  const links = gitHubLinks('https://github.example.com/', 'acme', 'git ops')

  it.each([
    [
      'a commit',
      links.commit('0123456789abcdef'),
      'https://github.example.com/acme/git%20ops/commit/0123456789abcdef'
    ],
    ['not a SHA', links.commit('main; rm'), undefined],
    ['a pull request', links.pullRequest(7), 'https://github.example.com/acme/git%20ops/pull/7'],
    ['no number', links.pullRequest(0), undefined],
    [
      'a file',
      links.file('main', 'tests/a b.yaml'),
      'https://github.example.com/acme/git%20ops/blob/main/tests/a%20b.yaml'
    ],
    [
      'no server',
      gitHubLinks('javascript:alert(1)', 'acme', 'gitops').commit('0123456789abcdef'),
      undefined
    ]
  ])('%s', (_, link, expected) => {
    expect(link).toBe(expected)
  })
})
