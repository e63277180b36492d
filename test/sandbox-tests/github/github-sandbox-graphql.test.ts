// The GitHub sandbox's conditional requests (ETag / 304), request counters, and GraphQL auto-merge,
// over plain fetch (both /graphql and /api/graphql) and through Octokit's graphql client.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { getOctokit } from '@actions/github'
import type { GitCommit } from '../../sandbox/contracts.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.js'

const OWNER = 'acme'
const TOKEN = 'ghs_graphql'
const READ_ONLY = 'ghs_graphql_readonly'
const PULL_ROUTE = 'GET /repos/{owner}/{repo}/pulls/{pull_number}'

const ENABLE = `mutation Enable($input: EnablePullRequestAutoMergeInput!) {
  enablePullRequestAutoMerge(input: $input) {
    pullRequest { id number autoMergeRequest { enabledAt mergeMethod } }
  }
}`

interface GraphqlAnswer {
  data?: Record<string, unknown>
  errors?: Array<Record<string, unknown>>
  message?: string
}

let sandbox: GitHubSandbox
let repoCounter = 0
const events: GitCommit[] = []

beforeAll(async () => {
  sandbox = await startGitHubSandbox({ token: TOKEN })
  sandbox.addReadOnlyToken(READ_ONLY)
  sandbox.onCommit((commit) => events.push(commit))
})

afterAll(async () => {
  await sandbox.close()
})

function newRepo(settings: { allowAutoMerge?: boolean } = {}): string {
  repoCounter += 1
  const repo = `gql-${repoCounter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch: 'main', settings })
  return repo
}

/** A pull request from a branch with one commit; returns its number and node id. */
function pullRequest(repo: string, branch: string): { number: number; nodeId: string } {
  sandbox.createBranch(OWNER, repo, branch)
  sandbox.writeFile(OWNER, repo, branch, `tests/${branch}.yaml`, `${branch}\n`)
  const number = sandbox.openPullRequest(OWNER, repo, { head: branch, title: `Test ${branch}` })
  return { number, nodeId: sandbox.pullRequest(OWNER, repo, number)!.nodeId }
}

async function graphql(
  path: '/graphql' | '/api/graphql',
  body: unknown,
  token = TOKEN
): Promise<{ status: number; json: GraphqlAnswer }> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { authorization: `bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })
  return { status: response.status, json: (await response.json()) as GraphqlAnswer }
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((r) => setTimeout(r, 10))
  if (!condition()) throw new Error(`gave up waiting for ${what}`)
}

describe('conditional requests', () => {
  it('answers a matching If-None-Match with 304 and no body, recorded and counted', async () => {
    const repo = newRepo()
    const { number } = pullRequest(repo, 'etag')
    const path = `/repos/${OWNER}/${repo}/pulls/${number}`
    const get = (headers: Record<string, string> = {}) =>
      fetch(`${sandbox.url}${path}`, { headers: { authorization: `token ${TOKEN}`, ...headers } })
    const countBefore = sandbox.routeCounts()[PULL_ROUTE] ?? 0

    const first = await get()
    const etag = first.headers.get('etag')!
    expect(first.status).toBe(200)
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/)
    expect(((await first.json()) as { number: number }).number).toBe(number)

    const again = await get({ 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    // A 304 does not count against the rate limit.
    expect(again.headers.get('x-ratelimit-remaining')).toBe(
      first.headers.get('x-ratelimit-remaining')
    )
    // The weak form of the same validator matches too.
    expect((await get({ 'if-none-match': `W/${etag}` })).status).toBe(304)

    sandbox.commentOnPullRequest(OWNER, repo, number, 'a change')
    const changed = await get({ 'if-none-match': etag })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    await changed.arrayBuffer()

    expect(sandbox.routeCounts()[PULL_ROUTE] - countBefore).toBe(4)
    const mine = sandbox.requests.filter((r) => r.path === path).map((r) => r.status)
    expect(mine).toEqual([200, 304, 304, 200])
  })
})

describe('GraphQL auto-merge', () => {
  it('refuses when the repository does not allow auto-merge', async () => {
    const repo = newRepo({ allowAutoMerge: false })
    const { nodeId } = pullRequest(repo, 'not-allowed')
    const answer = await graphql('/graphql', {
      query: ENABLE,
      variables: { input: { pullRequestId: nodeId, mergeMethod: 'SQUASH' } }
    })
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({
      data: { enablePullRequestAutoMerge: null },
      errors: [
        {
          type: 'UNPROCESSABLE',
          path: ['enablePullRequestAutoMerge'],
          locations: [{ line: 2, column: 3 }],
          message: 'Pull request Auto merge is not allowed for this repository'
        }
      ]
    })
  })

  it('refuses a pull request that is already mergeable ("clean status")', async () => {
    const repo = newRepo({ allowAutoMerge: true })
    const { nodeId } = pullRequest(repo, 'clean')
    const answer = await graphql('/api/graphql', {
      query: ENABLE,
      variables: { input: { pullRequestId: nodeId, mergeMethod: 'SQUASH' } }
    })
    expect(answer.json.errors?.map((e) => e.message)).toEqual([
      'Pull request Pull request is in clean status'
    ])
  })

  it('enables auto-merge on a blocked pull request, which merges once the review is given', async () => {
    const repo = newRepo({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: { requiredApprovingReviewCount: 1 } })
    const { number, nodeId } = pullRequest(repo, 'blocked')
    const answer = await graphql('/graphql', {
      query: ENABLE,
      variables: { input: { pullRequestId: nodeId, mergeMethod: 'SQUASH' } }
    })
    expect(answer.json.errors).toBeUndefined()
    expect(answer.json.data).toEqual({
      enablePullRequestAutoMerge: {
        pullRequest: {
          id: nodeId,
          number,
          autoMergeRequest: { enabledAt: expect.any(String), mergeMethod: 'SQUASH' }
        }
      }
    })
    const rest = getOctokit(TOKEN, { baseUrl: sandbox.url })
    const pull = await rest.rest.pulls.get({ owner: OWNER, repo, pull_number: number })
    expect(pull.data).toMatchObject({
      mergeable_state: 'blocked',
      auto_merge: { merge_method: 'squash', enabled_by: { login: 'github-actions[bot]' } }
    })
    const seen = events.length
    sandbox.approvePullRequest(OWNER, repo, number, 'reviewer')
    await waitFor(() => sandbox.pullRequest(OWNER, repo, number)!.merged, 'the auto-merge')
    // GitHub merges as whoever enabled auto-merge.
    expect(sandbox.pullRequest(OWNER, repo, number)).toMatchObject({
      state: 'closed',
      merged: true,
      mergedBy: 'github-actions[bot]'
    })
    const tip = sandbox.commits(OWNER, repo, 'main').at(-1)!
    expect(tip.parents).toHaveLength(1)
    expect(tip.message.split('\n')[0]).toBe(`Test blocked (#${number})`)
    expect(events.slice(seen).map((e) => e.branch)).toEqual(['main'])
  })

  it('auto-merge waits for the required check, then its own delay', async () => {
    const repo = newRepo({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requiredStatusChecks: ['ci'] })
    sandbox.setRepoSettings(OWNER, repo, { checksDurationMs: 1500, autoMergeDelayMs: 200 })
    const { number, nodeId } = pullRequest(repo, 'checks')
    const answer = await graphql('/graphql', {
      query: `mutation { enablePullRequestAutoMerge(input: {pullRequestId: "${nodeId}", mergeMethod: MERGE}) { pullRequest { number } } }`
    })
    expect(answer.json.errors).toBeUndefined()
    expect(sandbox.pullRequest(OWNER, repo, number)).toMatchObject({
      merged: false,
      mergeableState: 'blocked',
      autoMerge: { mergeMethod: 'merge' }
    })
    await waitFor(() => sandbox.pullRequest(OWNER, repo, number)!.merged, 'the auto-merge')
    expect(sandbox.commits(OWNER, repo, 'main').at(-1)!.parents).toHaveLength(2)
  })

  it('works through Octokit’s graphql client for api.github.com and GHES base URLs', async () => {
    const repo = newRepo({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: { requiredApprovingReviewCount: 1 } })
    const first = pullRequest(repo, 'octokit-1')
    const second = pullRequest(repo, 'octokit-2')
    for (const [baseUrl, pull] of [
      [sandbox.url, first],
      [`${sandbox.url}/api/v3`, second]
    ] as const) {
      const octokit = getOctokit(TOKEN, { baseUrl })
      const result = await octokit.graphql<{
        enablePullRequestAutoMerge: { pullRequest: { number: number } }
      }>(ENABLE, { input: { pullRequestId: pull.nodeId, mergeMethod: 'REBASE' } })
      expect(result.enablePullRequestAutoMerge.pullRequest.number).toBe(pull.number)
    }
    const paths = sandbox.requests
      .filter((r) => r.method === 'POST')
      .slice(-2)
      .map((r) => r.path)
    expect(paths).toEqual(['/graphql', '/api/graphql'])
    // Errors reject with GitHub's messages.
    const closedRepo = newRepo({ allowAutoMerge: false })
    const refused = pullRequest(closedRepo, 'refused')
    await expect(
      getOctokit(TOKEN, { baseUrl: `${sandbox.url}/api/v3` }).graphql(ENABLE, {
        input: { pullRequestId: refused.nodeId, mergeMethod: 'SQUASH' }
      })
    ).rejects.toMatchObject({
      errors: [expect.objectContaining({ type: 'UNPROCESSABLE' })]
    })
  })

  it('disables auto-merge', async () => {
    const repo = newRepo({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: { requiredApprovingReviewCount: 1 } })
    const { number, nodeId } = pullRequest(repo, 'disable')
    await graphql('/graphql', { query: ENABLE, variables: { input: { pullRequestId: nodeId } } })
    expect(sandbox.pullRequest(OWNER, repo, number)!.autoMerge).toMatchObject({
      mergeMethod: 'merge'
    })
    const answer = await graphql('/graphql', {
      query:
        'mutation($id: ID!) { disablePullRequestAutoMerge(input: {pullRequestId: $id}) { pullRequest { autoMergeRequest { enabledAt } } } }',
      variables: { id: nodeId }
    })
    expect(answer.json.data).toMatchObject({
      disablePullRequestAutoMerge: { pullRequest: { autoMergeRequest: null } }
    })
    expect(sandbox.pullRequest(OWNER, repo, number)!.autoMerge).toBeNull()
  })
})

describe('GraphQL errors', () => {
  it('401 Bad credentials at both paths, as REST does', async () => {
    for (const path of ['/graphql', '/api/graphql'] as const) {
      const answer = await graphql(path, { query: '{ viewer { login } }' }, 'wrong')
      expect(answer.status).toBe(401)
      expect(answer.json).toMatchObject({
        message: 'Bad credentials',
        documentation_url: 'https://docs.github.com/graphql'
      })
    }
  })

  it('unknown fields, unknown nodes, parse errors and missing rights are GraphQL errors', async () => {
    const unknown = await graphql('/graphql', { query: 'mutation { mergeEverything { ok } }' })
    expect(unknown.status).toBe(200)
    expect(unknown.json.errors).toEqual([
      {
        path: ['mutation', 'mergeEverything'],
        extensions: { code: 'undefinedField', typeName: 'Mutation', fieldName: 'mergeEverything' },
        locations: [{ line: 1, column: 12 }],
        message: "Field 'mergeEverything' doesn't exist on type 'Mutation'"
      }
    ])
    const query = await graphql('/graphql', { query: '{ repository { id } }' })
    expect(query.json.errors?.[0].message).toBe("Field 'repository' doesn't exist on type 'Query'")
    // viewer: the token's own account, for an installation token too (GET /user answers 403).
    const viewer = await graphql('/graphql', { query: '{ viewer { login databaseId } }' })
    expect(viewer.json.data).toEqual({
      viewer: { login: 'github-actions[bot]', databaseId: 41898282 }
    })
    const node = await graphql('/graphql', {
      query: ENABLE,
      variables: { input: { pullRequestId: 'PR_nothing' } }
    })
    expect(node.json.errors?.[0]).toMatchObject({
      type: 'NOT_FOUND',
      message: "Could not resolve to a node with the global id of 'PR_nothing'."
    })
    // Validation comes before execution: an unknown nested field enables nothing.
    const validated = newRepo({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, validated, {
      requirePullRequest: { requiredApprovingReviewCount: 1 }
    })
    const target = pullRequest(validated, 'validated')
    const nested = await graphql('/graphql', {
      query: `mutation($input: EnablePullRequestAutoMergeInput!) {
        enablePullRequestAutoMerge(input: $input) { pullRequest { number mergeQueueEntry { id } } }
      }`,
      variables: { input: { pullRequestId: target.nodeId } }
    })
    expect(nested.json).toEqual({
      errors: [
        expect.objectContaining({
          path: ['mutation', 'enablePullRequestAutoMerge', 'pullRequest', 'mergeQueueEntry'],
          message: "Field 'mergeQueueEntry' doesn't exist on type 'PullRequest'"
        })
      ]
    })
    expect(sandbox.pullRequest(OWNER, validated, target.number)!.autoMerge).toBeNull()
    const broken = await graphql('/graphql', { query: 'mutation { enablePullRequestAutoMerge(' })
    expect(broken.json.errors?.[0].message).toMatch(/^Unexpected end of document at \[1, \d+\]$/)

    const repo = newRepo({ allowAutoMerge: true })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: { requiredApprovingReviewCount: 1 } })
    const { nodeId } = pullRequest(repo, 'forbidden')
    const forbidden = await graphql(
      '/graphql',
      { query: ENABLE, variables: { input: { pullRequestId: nodeId } } },
      READ_ONLY
    )
    expect(forbidden.json.errors?.[0]).toMatchObject({
      type: 'FORBIDDEN',
      message: 'Resource not accessible by integration'
    })
    expect(sandbox.routeCounts()['POST /graphql']).toBeGreaterThanOrEqual(5)
  })
})
