// openPullRequest, requestMerge and waitForMerge against the GitHub sandbox over real HTTP, through
// createGitOpsOctokit (the retry and throttling plugins included).
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { createGitOpsOctokit } from '../../../../src/gitops/github/client/octokit.js'
import {
  AutoMergeNotAllowedError,
  ClosedWithoutMergeError,
  MergeRefusedError,
  MergeTimeoutError,
  type ObservedPullRequest,
  openPullRequest,
  requestMerge,
  waitForMerge
} from '../../../../src/gitops/github/pull-request/pull-request.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.js'
import { FakeClock } from '../../../timing/fake-clock.js'
import type { MergeMethod, MergeStrategy } from '../../../../src/settings/settings.js'

const OWNER = 'acme'
const BRANCH = 'coder-template-gate/docker-v2'
const READ_ONLY = 'ghs_pr_readonly'

let sandbox: GitHubSandbox
let repoCounter = 0

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
  sandbox.addReadOnlyToken(READ_ONLY)
})

afterAll(async () => {
  await sandbox.close()
})

function octokit(token = sandbox.token, baseUrl = sandbox.url) {
  return createGitOpsOctokit({ token, baseUrl, delayUnitMs: 1, retries: 1, spaceWrites: false })
}

/** A fresh repository with the gate's branch holding one manifest commit. */
function repoWithBranch(settings: Parameters<GitHubSandbox['setRepoSettings']>[2] = {}): string {
  repoCounter += 1
  const repo = `pr-${repoCounter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch: 'main', settings })
  sandbox.createBranch(OWNER, repo, BRANCH)
  sandbox.writeFile(OWNER, repo, BRANCH, 'coder-template-tests/docker-v2.yaml', 'kind: X\n')
  return repo
}

function open(repo: string, labels: string[] = [], client = octokit()) {
  return openPullRequest({
    octokit: client,
    owner: OWNER,
    repo,
    head: BRANCH,
    base: 'main',
    title: 'Test acme.docker version v2',
    body: 'Merging lets GitOps create the test.',
    labels
  })
}

function countsOf(repo: string) {
  const mine = sandbox.requests.filter((r) => r.path.includes(`/repos/${OWNER}/${repo}/`))
  return {
    merges: mine.filter((r) => r.method === 'PUT' && r.path.endsWith('/merge')),
    creates: mine.filter((r) => r.method === 'POST' && /\/pulls$/.test(r.path)),
    reads: mine.filter((r) => r.method === 'GET' && /\/pulls\/\d+$/.test(r.path))
  }
}

const soon = (ms: number) => Date.now() + ms

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !condition(); i++) await new Promise((r) => setTimeout(r, 10))
  if (!condition()) throw new Error('gave up waiting')
}

/** The error a call fails with (one call: every write waits for plugin-throttling's spacing). */
async function failure(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise
  } catch (error) {
    return error as Error & Record<string, unknown>
  }
  throw new Error('expected the call to fail')
}

describe('openPullRequest', () => {
  it('opens one pull request with labels; a second run reuses it and keeps its labels', async () => {
    const repo = repoWithBranch()
    const first = await open(repo, ['coder-template-gate'])
    expect(first).toEqual({
      number: 1,
      url: `${sandbox.serverUrl}/${OWNER}/${repo}/pull/1`,
      nodeId: expect.stringMatching(/^PR_/),
      headSha: sandbox.branchHead(OWNER, repo, BRANCH),
      author: 'github-actions[bot]',
      state: 'open',
      merged: false,
      reused: false
    })
    const pr = sandbox.pullRequest(OWNER, repo, 1)!
    expect(pr).toMatchObject({
      title: 'Test acme.docker version v2',
      body: 'Merging lets GitOps create the test.',
      base: 'main',
      labels: ['coder-template-gate']
    })
    // Someone adds a label by hand; the re-run adds its new one and keeps both.
    await octokit().rest.issues.addLabels({ owner: OWNER, repo, issue_number: 1, labels: ['hand'] })
    const again = await open(repo, ['Coder-Template-Gate', 'automated'])
    expect(again).toEqual({ ...first, reused: true })
    expect(sandbox.pullRequests(OWNER, repo)).toHaveLength(1)
    expect(sandbox.pullRequest(OWNER, repo, 1)!.labels).toEqual([
      'coder-template-gate',
      'hand',
      'automated'
    ])
    expect(countsOf(repo).creates).toHaveLength(1)
  })

  it('a merged pull request of the branch tip is reported as merged, with no new one', async () => {
    const repo = repoWithBranch()
    const first = await open(repo)
    // Squash: the branch's commit is not in main, so GitHub would let a second one open.
    sandbox.mergePullRequest(OWNER, repo, first.number, { login: 'alice', method: 'squash' })
    const again = await open(repo, ['x'])
    expect(again).toEqual({ ...first, state: 'closed', merged: true, reused: true })
    expect(sandbox.pullRequests(OWNER, repo)).toHaveLength(1)
    expect(sandbox.pullRequest(OWNER, repo, first.number)!.labels).toEqual([])
  })

  it('a pull request closed without merge is not reused: a new one opens', async () => {
    const repo = repoWithBranch()
    const first = await open(repo)
    sandbox.closePullRequest(OWNER, repo, first.number, 'bob')
    const second = await open(repo)
    expect(second).toMatchObject({ number: first.number + 1, state: 'open', reused: false })
  })

  it('a pull request that another account opened from the gate’s branch is named, never reused', async () => {
    const repo = repoWithBranch()
    const theirs = sandbox.openPullRequest(OWNER, repo, { head: BRANCH, login: 'mallory' })
    const refused = open(repo, ['gate'])
    await expect(refused).rejects.toMatchObject({ name: 'ForeignChangeError' })
    await expect(refused).rejects.toThrow(`pull request #${theirs} `)
    await expect(refused).rejects.toThrow('it was opened by "mallory"')
    expect(sandbox.pullRequest(OWNER, repo, theirs)!.labels).toEqual([])
  })

  it('422 "already exists" from a concurrent run is resolved by reading that pull request', async () => {
    const repo = repoWithBranch()
    let raced = 0
    const stop = sandbox.beforeRequest((method, path) => {
      if (method === 'POST' && path === `/repos/${OWNER}/${repo}/pulls` && raced++ === 0) {
        sandbox.openPullRequest(OWNER, repo, {
          head: BRANCH,
          title: 'the other run',
          login: 'github-actions[bot]'
        })
      }
    })
    try {
      const pr = await open(repo, ['gate'])
      expect(pr).toMatchObject({ number: 1, reused: true, state: 'open' })
      expect(sandbox.pullRequests(OWNER, repo)).toHaveLength(1)
      expect(sandbox.pullRequest(OWNER, repo, 1)!.labels).toEqual(['gate'])
      const creates = countsOf(repo).creates.map((r) => r.status)
      expect(creates).toEqual([422])
    } finally {
      stop()
    }
  })

  it('a missing branch, and a token that may not open pull requests, fail with what to check', async () => {
    const repo = repoWithBranch()
    sandbox.deleteBranch(OWNER, repo, BRANCH)
    await expect(open(repo)).rejects.toThrow(`Branch ${BRANCH} does not exist in ${OWNER}/${repo}`)
    const other = repoWithBranch()
    const refused = await failure(open(other, [], octokit(READ_ONLY)))
    expect(refused.message).toContain('(403 Resource not accessible by integration)')
    expect(refused.message).toContain(
      'gitops-token needs `contents: write` and `pull-requests: write`'
    )
    expect(refused.message).not.toContain(READ_ONLY)
  })
})

function merge(
  repo: string,
  pr: { number: number; nodeId: string; headSha: string },
  strategy: MergeStrategy,
  options: {
    method?: MergeMethod
    deadline?: number
    client?: ReturnType<typeof octokit>
    clock?: FakeClock
  } = {}
) {
  return requestMerge({
    clock: options.clock,
    octokit: options.client ?? octokit(),
    owner: OWNER,
    repo,
    pullRequest: pr,
    strategy,
    method: options.method ?? 'squash',
    deadline: options.deadline ?? soon(10_000),
    pollMs: 20
  })
}

function wait(
  repo: string,
  number: number,
  options: {
    deadline?: number
    signal?: AbortSignal
    onObserved?: (pr: ObservedPullRequest) => void
    clock?: FakeClock
  } = {}
) {
  return waitForMerge({
    clock: options.clock,
    octokit: octokit(),
    owner: OWNER,
    repo,
    number,
    deadline: options.deadline ?? soon(10_000),
    pollMs: 20,
    signal: options.signal,
    onObserved: options.onObserved
  })
}

describe('requestMerge: auto', () => {
  it('enables auto-merge on a blocked pull request; GitHub merges after the review', async () => {
    const repo = repoWithBranch({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: { requiredApprovingReviewCount: 1 } })
    const pr = await open(repo)
    expect(await merge(repo, pr, 'auto')).toEqual({ kind: 'auto-merge-enabled' })
    expect(sandbox.pullRequest(OWNER, repo, pr.number)).toMatchObject({
      merged: false,
      autoMerge: { mergeMethod: 'squash', enabledBy: 'github-actions[bot]' }
    })
    const observed: ObservedPullRequest[] = []
    const waiting = wait(repo, pr.number, { onObserved: (seen) => observed.push(seen) })
    setTimeout(() => sandbox.approvePullRequest(OWNER, repo, pr.number), 100)
    const merged = await waiting
    expect(merged.mergeCommitSha).toBe(sandbox.branchHead(OWNER, repo, 'main'))
    expect(sandbox.commits(OWNER, repo, 'main').at(-1)!.parents).toHaveLength(1)
    expect(observed[0]).toEqual({
      number: pr.number,
      state: 'waiting',
      mergeableState: 'blocked',
      autoMerge: true
    })
    expect(observed.at(-1)).toMatchObject({ state: 'merged' })
  })

  it('a pull request GitHub already shows clean is merged through REST', async () => {
    const repo = repoWithBranch({ allowAutoMerge: true })
    const pr = await open(repo)
    const result = await merge(repo, pr, 'auto', { method: 'merge' })
    expect(result).toEqual({
      kind: 'merged',
      mergeCommitSha: sandbox.branchHead(OWNER, repo, 'main')
    })
    expect(sandbox.commits(OWNER, repo, 'main').at(-1)!.parents).toHaveLength(2)
    expect(countsOf(repo).merges.map((r) => r.status)).toEqual([200])
  })

  it('a repository without auto-merge fails before any wait, saying how to enable it', async () => {
    const repo = repoWithBranch({ allowAutoMerge: false })
    const pr = await open(repo)
    const refused = await failure(merge(repo, pr, 'auto'))
    expect(refused).toBeInstanceOf(AutoMergeNotAllowedError)
    expect(refused.message).toMatch(/Allow auto-merge.*`pull-request-merge: immediate`/)
    expect(refused.githubReason).toBe('Pull request Auto merge is not allowed for this repository')
    expect(sandbox.pullRequest(OWNER, repo, pr.number)).toMatchObject({
      state: 'open',
      autoMerge: null
    })
    expect(countsOf(repo).merges).toHaveLength(0)
  })

  it('works at the GHES GraphQL path (/api/graphql) for a /api/v3 base URL', async () => {
    const repo = repoWithBranch({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requiredStatusChecks: ['ci'] })
    sandbox.setRepoSettings(OWNER, repo, { checksDurationMs: 3_600_000 })
    const pr = await open(repo)
    const client = octokit(sandbox.token, `${sandbox.url}/api/v3`)
    expect(await merge(repo, pr, 'auto', { client })).toEqual({ kind: 'auto-merge-enabled' })
    expect(sandbox.requests.filter((r) => r.method === 'POST').at(-1)!.path).toBe('/api/graphql')
  })

  it('a head that moved since the gate committed is refused (expectedHeadOid)', async () => {
    const repo = repoWithBranch({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: { requiredApprovingReviewCount: 1 } })
    const pr = await open(repo)
    sandbox.writeFile(OWNER, repo, BRANCH, 'foreign.txt', 'x\n')
    const refused = await failure(merge(repo, pr, 'auto'))
    expect(refused).toBeInstanceOf(MergeRefusedError)
    // Decided by the head GitHub shows, not by the sentence.
    expect(refused.kind).toBe('head-moved')
    expect(refused.githubReason).toBe(
      'Pull request Head branch was modified. Review and try the merge again.'
    )
    expect(sandbox.pullRequest(OWNER, repo, pr.number)!.autoMerge).toBeNull()
  })

  it('a read-only token is refused as forbidden', async () => {
    const repo = repoWithBranch({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: { requiredApprovingReviewCount: 1 } })
    const pr = await open(repo)
    const refused = await failure(merge(repo, pr, 'auto', { client: octokit(READ_ONLY) }))
    expect(refused).toMatchObject({
      kind: 'forbidden',
      githubReason: 'Resource not accessible by integration'
    })
    expect(refused.message).toContain('`pull-requests: write`')
  })
})

describe('requestMerge: immediate and manual', () => {
  it('retries while GitHub computes and while the required check runs, then merges', async () => {
    const repo = repoWithBranch()
    sandbox.addRuleset(OWNER, repo, { requiredStatusChecks: ['ci'] })
    const HOUR = 3_600_000
    sandbox.setRepoSettings(OWNER, repo, { mergeabilityDelayMs: HOUR, checksDurationMs: HOUR })
    const pr = await open(repo)
    const merging = merge(repo, pr, 'immediate', { method: 'rebase', deadline: soon(120_000) })
    // While GitHub computes, it only reads.
    await until(() => countsOf(repo).reads.length >= 2)
    expect(countsOf(repo).merges).toHaveLength(0)
    sandbox.setRepoSettings(OWNER, repo, { mergeabilityDelayMs: 0 })
    // The check still runs: 405, and it tries again.
    await until(() => countsOf(repo).merges.length >= 1)
    sandbox.setRepoSettings(OWNER, repo, { checksDurationMs: 0 })
    expect(await merging).toEqual({
      kind: 'merged',
      mergeCommitSha: sandbox.branchHead(OWNER, repo, 'main')
    })
    const statuses = countsOf(repo).merges.map((r) => r.status)
    expect(statuses.at(-1)).toBe(200)
    expect(statuses.slice(0, -1)).toEqual(statuses.slice(0, -1).map(() => 405))
    expect(statuses.length).toBeGreaterThan(1)
  })

  it.each([
    [
      'a required review',
      (repo: string) =>
        sandbox.protectBranch(OWNER, repo, 'main', { requiredApprovingReviewCount: 1 }),
      'reviews',
      'At least 1 approving review is required by reviewers with write access.',
      1
    ],
    [
      'a merge method the repository forbids',
      (repo: string) => sandbox.setRepoSettings(OWNER, repo, { allowSquashMerge: false }),
      'method-not-allowed',
      'Squash merges are not allowed on this repository.',
      1
    ],
    [
      'a conflict with main',
      (repo: string) =>
        sandbox.writeFile(OWNER, repo, 'main', 'coder-template-tests/docker-v2.yaml', 'other\n'),
      'conflicts',
      'mergeable_state dirty',
      0
    ]
  ] as const)(
    'fails at once on %s, with GitHub’s reason',
    async (_name, arrange, kind, reason, merges) => {
      const repo = repoWithBranch()
      const pr = await open(repo)
      arrange(repo)
      const refused = merge(repo, pr, 'immediate')
      await expect(refused).rejects.toMatchObject({
        name: 'MergeRefusedError',
        kind,
        githubReason: reason
      })
      expect(sandbox.pullRequest(OWNER, repo, pr.number)).toMatchObject({
        state: 'open',
        merged: false
      })
      expect(countsOf(repo).merges).toHaveLength(merges)
    }
  )

  it('a foreign commit on the branch is refused (409), never merged', async () => {
    const repo = repoWithBranch()
    const pr = await open(repo)
    sandbox.writeFile(OWNER, repo, BRANCH, 'foreign.txt', 'x\n')
    await expect(merge(repo, pr, 'immediate')).rejects.toMatchObject({ kind: 'head-moved' })
    expect(sandbox.pullRequest(OWNER, repo, pr.number)!.merged).toBe(false)
  })

  it('times out naming merge-timeout-seconds while the check never finishes', async () => {
    const repo = repoWithBranch()
    sandbox.addRuleset(OWNER, repo, { requiredStatusChecks: ['ci'] })
    sandbox.setRepoSettings(OWNER, repo, { checksDurationMs: 3_600_000 })
    const pr = await open(repo)
    // The polls on a fake clock: 20, 40, 80 ms, then the 10 ms left, with no real wait.
    const clock = new FakeClock(1_000_000)
    const deadline = clock.now() + 150
    const late = await failure(merge(repo, pr, 'immediate', { deadline, clock }))
    expect(late).toBeInstanceOf(MergeTimeoutError)
    expect(clock.slept).toEqual([20, 40, 80, 10])
    expect(late.message).toMatch(/merge-timeout-seconds.*Required status check "ci" is expected/s)
    expect(sandbox.pullRequest(OWNER, repo, pr.number)!.state).toBe('open')
  })

  it('immediate: a base changed while GitHub says not yet is never merged into it', async () => {
    const repo = repoWithBranch()
    sandbox.createBranch(OWNER, repo, 'prod', 'main')
    sandbox.addRuleset(OWNER, repo, { requiredStatusChecks: ['ci'] })
    sandbox.setRepoSettings(OWNER, repo, { checksDurationMs: 3_600_000 })
    const pr = await open(repo)
    let moved = false
    const stop = sandbox.beforeRequest((method, path) => {
      if (!moved && method === 'PUT' && path.endsWith('/merge')) {
        moved = true
        setTimeout(() => sandbox.changePullRequestBase(OWNER, repo, pr.number, 'prod'), 0)
      }
    })
    try {
      const refused = requestMerge({
        octokit: octokit(),
        owner: OWNER,
        repo,
        pullRequest: pr,
        strategy: 'immediate',
        method: 'merge',
        deadline: soon(10_000),
        pollMs: 20,
        expectedBase: 'main'
      })
      await expect(refused).rejects.toThrow('its base is "prod", not "main"')
      expect(sandbox.pullRequest(OWNER, repo, pr.number)!.merged).toBe(false)
      expect(
        sandbox.readFile(OWNER, repo, 'prod', 'coder-template-tests/docker-v2.yaml')
      ).toBeNull()
    } finally {
      stop()
    }
  })

  it('a pull request closed meanwhile fails naming who closed it', async () => {
    const repo = repoWithBranch()
    const pr = await open(repo)
    sandbox.closePullRequest(OWNER, repo, pr.number, 'bob')
    const closed = await failure(merge(repo, pr, 'immediate'))
    expect(closed).toBeInstanceOf(ClosedWithoutMergeError)
    expect(closed).toMatchObject({ closedBy: 'bob', number: pr.number })
    expect(countsOf(repo).merges).toHaveLength(0)
  })

  it('manual makes no request', async () => {
    const repo = repoWithBranch()
    const pr = await open(repo)
    const before = sandbox.requests.length
    expect(await merge(repo, pr, 'manual')).toEqual({ kind: 'manual' })
    expect(sandbox.requests.length).toBe(before)
  })
})

describe('waitForMerge', () => {
  it('returns the merge commit when a person merges, reading with If-None-Match', async () => {
    const repo = repoWithBranch()
    const pr = await open(repo)
    // Merged once a 304 was read (not after a fixed 300 ms, which a loaded machine can outrun).
    const waiting = wait(repo, pr.number)
    await until(() => countsOf(repo).reads.some((r) => r.status === 304))
    sandbox.mergePullRequest(OWNER, repo, pr.number, { login: 'alice' })
    const merged = await waiting
    expect(merged).toEqual({
      number: pr.number,
      url: pr.url,
      mergeCommitSha: sandbox.branchHead(OWNER, repo, 'main'),
      mergedBy: 'alice',
      headSha: pr.headSha
    })
    const reads = countsOf(repo).reads
    expect(reads.some((r) => r.status === 304)).toBe(true)
    expect(reads.slice(1).every((r) => typeof r.headers?.['if-none-match'] === 'string')).toBe(true)
  })

  it('a push to the branch while auto-merge is on fails the wait as head-moved, unmerged', async () => {
    const repo = repoWithBranch({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: { requiredApprovingReviewCount: 1 } })
    const pr = await open(repo)
    expect(await merge(repo, pr, 'auto')).toEqual({ kind: 'auto-merge-enabled' })
    setTimeout(() => sandbox.writeFile(OWNER, repo, BRANCH, 'foreign.txt', 'x\n'), 100)
    const waiting = waitForMerge({
      octokit: octokit(),
      owner: OWNER,
      repo,
      number: pr.number,
      deadline: soon(10_000),
      pollMs: 20,
      expectedHeadSha: pr.headSha
    })
    await expect(waiting).rejects.toMatchObject({ name: 'MergeRefusedError', kind: 'head-moved' })
    expect(sandbox.pullRequest(OWNER, repo, pr.number)!.merged).toBe(false)
  })

  it('a base changed by another writer fails the wait as a foreign change; auto-merge stays on at GitHub', async () => {
    const repo = repoWithBranch({ allowAutoMerge: true })
    sandbox.createBranch(OWNER, repo, 'prod', 'main')
    sandbox.addRuleset(OWNER, repo, {
      requirePullRequest: { requiredApprovingReviewCount: 1 },
      include: ['refs/heads/main', 'refs/heads/prod']
    })
    const pr = await open(repo)
    expect(await merge(repo, pr, 'auto')).toEqual({ kind: 'auto-merge-enabled' })
    setTimeout(() => sandbox.changePullRequestBase(OWNER, repo, pr.number, 'prod'), 100)
    const waiting = waitForMerge({
      octokit: octokit(),
      owner: OWNER,
      repo,
      number: pr.number,
      deadline: soon(10_000),
      pollMs: 20,
      expectedHeadSha: pr.headSha,
      expectedBase: 'main'
    })
    await expect(waiting).rejects.toMatchObject({ name: 'ForeignChangeError', merged: false })
    await expect(waiting).rejects.toThrow('its base is "prod", not "main"')
    // As GitHub does: a base change by a writer keeps auto-merge on; the step turns it off.
    expect(sandbox.pullRequest(OWNER, repo, pr.number)).toMatchObject({
      base: 'prod',
      merged: false
    })
    expect(sandbox.pullRequest(OWNER, repo, pr.number)!.autoMerge).not.toBeNull()
  })

  it('a pull request closed without merge fails the wait and names who closed it', async () => {
    const repo = repoWithBranch()
    const pr = await open(repo)
    setTimeout(() => sandbox.closePullRequest(OWNER, repo, pr.number, 'bob'), 100)
    const closed = wait(repo, pr.number)
    await expect(closed).rejects.toMatchObject({ name: 'ClosedWithoutMergeError', closedBy: 'bob' })
  })

  it('times out naming merge-timeout-seconds; the pull request stays open', async () => {
    const repo = repoWithBranch()
    const pr = await open(repo)
    // The polls on a fake clock: 20, then 1.5 times longer after each unchanged (304) read.
    const clock = new FakeClock(1_000_000)
    const late = wait(repo, pr.number, { deadline: clock.now() + 150, clock })
    await expect(late).rejects.toThrow(
      /merge-timeout-seconds \(last seen: open, mergeable_state clean\)/
    )
    expect(clock.slept).toEqual([20, 30, 45, 55])
    expect(sandbox.pullRequest(OWNER, repo, pr.number)!.state).toBe('open')
  })

  it('a cancel ends the wait with the cancel and leaves the pull request open', async () => {
    const repo = repoWithBranch()
    const pr = await open(repo)
    const controller = new AbortController()
    const reason = new Error('cancelled by the runner')
    setTimeout(() => controller.abort(reason), 100)
    await expect(wait(repo, pr.number, { signal: controller.signal })).rejects.toBe(reason)
    expect(sandbox.pullRequest(OWNER, repo, pr.number)).toMatchObject({
      state: 'open',
      merged: false
    })
  })
})
