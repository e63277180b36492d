// guardGateBranch and disableAutoMerge against the GitHub sandbox over real HTTP: the compare API
// tells the gate's own commits (written here by commitChange, as the commit step writes them) from
// a push by anyone else.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import {
  disableAutoMerge,
  guardGateBranch
} from '../../../../src/gitops/github/pull-request/branch-changes.js'
import { GATE_COMMIT_MARKER } from '../../../../src/gitops/branch-guard.js'
import { commitChange } from '../../../../src/gitops/github/commit/change.js'
import { createGitOpsOctokit } from '../../../../src/gitops/github/client/octokit.js'
import {
  openPullRequest,
  requestMerge
} from '../../../../src/gitops/github/pull-request/pull-request.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.js'

const OWNER = 'acme'
const BRANCH = 'coder-template-gate/docker-v2'
const MANIFEST = 'coder-template-tests/docker-v2.yaml'
const GATE = 'github-actions[bot]'

let sandbox: GitHubSandbox
let counter = 0

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
})

afterAll(async () => {
  await sandbox.close()
})

const octokit = () =>
  createGitOpsOctokit({ token: sandbox.token, baseUrl: sandbox.url, delayUnitMs: 1, retries: 1 })

/** A repository whose gate branch holds the gate's commit; returns it and that commit. */
async function gateBranch(settings = {}): Promise<{ repo: string; sha: string }> {
  counter += 1
  const repo = `guard-${counter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch: 'main', settings })
  sandbox.writeFile(OWNER, repo, 'main', 'apps/prod.yaml', 'replicas: 1\n')
  const outcome = await commitChange({
    octokit: octokit(),
    owner: OWNER,
    repo,
    branch: BRANCH,
    baseBranch: 'main',
    manifests: [{ path: MANIFEST, content: 'kind: X\n', isSame: () => true }],
    deletions: [],
    message: `Test acme.docker version v2\n\nCoderTemplateTest x (${MANIFEST}), ${GATE_COMMIT_MARKER}`
  })
  return { repo, sha: outcome.commitSha }
}

function guard(repo: string, ownCommitSha: string, gateLogin: string | null = GATE) {
  return guardGateBranch({
    octokit: octokit(),
    owner: OWNER,
    repo,
    base: 'main',
    branch: BRANCH,
    headSha: sandbox.branchHead(OWNER, repo, BRANCH)!,
    gate: { manifestPaths: [MANIFEST], removals: [], ownCommitSha, gateLogin }
  })
}

describe('guardGateBranch', () => {
  it('passes the gate’s own commit, this run’s or a leftover one, while main moves on', async () => {
    const { repo, sha } = await gateBranch()
    sandbox.writeFile(OWNER, repo, 'main', 'apps/other.yaml', 'x\n')
    await expect(guard(repo, sha)).resolves.toBeUndefined()
    await expect(guard(repo, '')).resolves.toBeUndefined()
  })

  it('names a pushed commit: its SHA, its author and the paths it touches', async () => {
    const { repo, sha } = await gateBranch()
    const foreign = sandbox.writeFile(OWNER, repo, BRANCH, 'apps/prod.yaml', 'replicas: 9\n')
    const refused = guard(repo, sha)
    await expect(refused).rejects.toMatchObject({ name: 'ForeignChangeError', branch: BRANCH })
    await expect(refused).rejects.toThrow(
      `commit ${foreign} by "other-writer", touching apps/prod.yaml`
    )
    await expect(refused).rejects.toThrow('delete the branch')
  })

  it('refuses a leftover branch whose gate commit another account wrote', async () => {
    const { repo } = await gateBranch()
    await expect(guard(repo, '', 'someone-else')).rejects.toThrow(/commit [0-9a-f]{40} by/)
  })
})

describe('disableAutoMerge', () => {
  it('turns auto-merge off on the pull request', async () => {
    const { repo } = await gateBranch({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: { requiredApprovingReviewCount: 1 } })
    const call = { octokit: octokit(), owner: OWNER, repo }
    const pr = await openPullRequest({
      ...call,
      head: BRANCH,
      base: 'main',
      title: 't',
      body: 'b',
      labels: []
    })
    await requestMerge({
      ...call,
      pullRequest: pr,
      strategy: 'auto',
      method: 'squash',
      deadline: Date.now() + 5000
    })
    expect(sandbox.pullRequest(OWNER, repo, pr.number)!.autoMerge).not.toBeNull()
    expect(await disableAutoMerge({ ...call, nodeId: pr.nodeId })).toBe(true)
    expect(sandbox.pullRequest(OWNER, repo, pr.number)!.autoMerge).toBeNull()
  })
})
