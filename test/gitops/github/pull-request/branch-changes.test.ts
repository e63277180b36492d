// guardGateBranch and disableAutoMerge against the GitHub sandbox over real HTTP: the pull request
// is judged by its base, its opener (GraphQL viewer) and the content of base...head, never by
// commit authors or markers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import {
  disableAutoMerge,
  guardGateBranch,
  readViewer
} from '../../../../src/gitops/github/pull-request/branch-changes.js'
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
const RENDERED = 'kind: X\n'
const MARKER = 'written by coder-template-gate.'

let sandbox: GitHubSandbox
let counter = 0

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
})

afterAll(async () => {
  await sandbox.close()
})

const octokit = (token = sandbox.token) =>
  createGitOpsOctokit({ token, baseUrl: sandbox.url, delayUnitMs: 1, retries: 1 })

/** A repository whose gate branch holds the gate's commit and its pull request into main. */
async function gateBranch(
  settings = {},
  mainFiles: Record<string, string> = {}
): Promise<{ repo: string; number: number; nodeId: string }> {
  counter += 1
  const repo = `guard-${counter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch: 'main', settings })
  sandbox.writeFile(OWNER, repo, 'main', 'apps/prod.yaml', 'replicas: 1\n')
  for (const [path, text] of Object.entries(mainFiles))
    sandbox.writeFile(OWNER, repo, 'main', path, text)
  sandbox.createBranch(OWNER, repo, 'prod', 'main')
  const call = { octokit: octokit(), owner: OWNER, repo }
  await commitChange({
    ...call,
    branch: BRANCH,
    baseBranch: 'main',
    manifests: [{ path: MANIFEST, content: RENDERED, isSame: () => true }],
    deletions: [],
    message: `Test acme.docker version v2\n\nCoderTemplateTest x (${MANIFEST}), ${MARKER}`
  })
  const pr = await openPullRequest({
    ...call,
    head: BRANCH,
    base: 'main',
    title: 't',
    body: 'b',
    labels: []
  })
  return { repo, number: pr.number, nodeId: pr.nodeId }
}

function guard(repo: string, number: number) {
  return guardGateBranch({
    octokit: octokit(),
    owner: OWNER,
    repo,
    number,
    branch: BRANCH,
    headSha: sandbox.branchHead(OWNER, repo, BRANCH)!,
    gate: { base: 'main', manifests: [{ path: MANIFEST, text: RENDERED }], removals: [] }
  })
}

describe('guardGateBranch', () => {
  it('passes the gate’s own change while main moves on', async () => {
    const { repo, number } = await gateBranch()
    sandbox.writeFile(OWNER, repo, 'main', 'apps/other.yaml', 'x\n')
    await expect(guard(repo, number)).resolves.toBeUndefined()
  })

  it('names a pushed path', async () => {
    const { repo, number } = await gateBranch()
    sandbox.writeFile(OWNER, repo, BRANCH, 'apps/prod.yaml', 'replicas: 9\n')
    const refused = guard(repo, number)
    await expect(refused).rejects.toMatchObject({ name: 'ForeignChangeError', branch: BRANCH })
    await expect(refused).rejects.toThrow('it changes apps/prod.yaml, which the gate did not write')
  })

  it('refuses a commit with the marker and the gate’s account that rewrites the manifest', async () => {
    const { repo, number } = await gateBranch()
    sandbox.writeFile(
      OWNER,
      repo,
      BRANCH,
      MANIFEST,
      `${RENDERED}---\nkind: Secret\n`,
      `forged\n\n${MARKER}`,
      'github-actions[bot]'
    )
    await expect(guard(repo, number)).rejects.toThrow(
      `${MANIFEST} at its head holds other bytes than the manifest this run renders`
    )
  })

  it('judges a rename onto the manifest as the removal of the path it came from', async () => {
    // Another team's test, with the same bytes: GitHub shows its removal as a rename.
    const other = 'coder-template-tests/other-v1.yaml'
    const { repo, number } = await gateBranch({}, { [other]: RENDERED })
    await expect(guard(repo, number)).resolves.toBeUndefined()
    sandbox.writeFile(OWNER, repo, BRANCH, other, null)
    const refused = guard(repo, number)
    await expect(refused).rejects.toMatchObject({ name: 'ForeignChangeError' })
    await expect(refused).rejects.toThrow(`it changes ${other}, which the gate did not write`)
  })

  it('passes a rename of a removal this run judged', async () => {
    const old = 'coder-template-tests/docker-v1.yaml'
    const { repo, number } = await gateBranch({}, { [old]: RENDERED })
    sandbox.writeFile(OWNER, repo, BRANCH, old, null)
    const head = sandbox.branchHead(OWNER, repo, BRANCH)!
    const { data } = await octokit().rest.repos.compareCommitsWithBasehead({
      owner: OWNER,
      repo,
      basehead: `main...${head}`
    })
    expect(data.files?.map((f) => [f.filename, f.status, f.previous_filename])).toEqual([
      [MANIFEST, 'renamed', old]
    ])
    await expect(
      guardGateBranch({
        octokit: octokit(),
        owner: OWNER,
        repo,
        number,
        branch: BRANCH,
        headSha: head,
        gate: { base: 'main', manifests: [{ path: MANIFEST, text: RENDERED }], removals: [old] }
      })
    ).resolves.toBeUndefined()
  })

  it('names a base that another writer changed', async () => {
    const { repo, number } = await gateBranch()
    sandbox.changePullRequestBase(OWNER, repo, number, 'prod')
    await expect(guard(repo, number)).rejects.toThrow('its base is "prod", not "main"')
  })

  it('refuses a pull request that another account opened', async () => {
    const { repo } = await gateBranch()
    sandbox.closePullRequest(OWNER, repo, 1)
    const theirs = sandbox.openPullRequest(OWNER, repo, {
      head: BRANCH,
      base: 'main',
      login: 'mallory'
    })
    await expect(guard(repo, theirs)).rejects.toThrow('it was opened by "mallory"')
  })
})

describe('readViewer', () => {
  it('names the account of an App installation token, which GET /user refuses', async () => {
    const token = 'app-token'
    sandbox.addToken(token, { login: 'gate-app[bot]', kind: 'installation' })
    const viewer = await readViewer({ octokit: octokit(token), owner: OWNER, repo: 'any' })
    expect(viewer.login).toBe('gate-app[bot]')
    expect(viewer.id).toEqual(expect.any(Number))
    await expect(octokit(token).rest.users.getAuthenticated()).rejects.toMatchObject({
      status: 403
    })
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
    expect(pr.reused).toBe(true)
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
