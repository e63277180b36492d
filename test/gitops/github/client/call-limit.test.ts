// The call's limit travels with its request (call.ts requestOptions: `request.callLimit`), so the
// rate-limit handler of one shared Octokit decides each call by its own deadline, and each call's
// error says why it gave up. Against the sandbox's rate-limit answers, over real HTTP.
import { afterEach, describe, expect, it } from '@jest/globals'
import { type GitHubCall, githubCall } from '../../../../src/gitops/github/client/call.js'
import { createGitOpsOctokit } from '../../../../src/gitops/github/client/octokit.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.js'

const OWNER = 'acme'
const REPO = 'limits'
// One second GitHub asks to wait lasts UNIT_MS here (the client's delayUnitMs).
const UNIT_MS = 100
const TOKEN = { input: 'gitops-token', needs: '`contents: read`' }
let clients = 0

let sandbox: GitHubSandbox | undefined
afterEach(async () => {
  await sandbox?.close()
  sandbox = undefined
})

async function open(maxRateLimitWaitSeconds = 120) {
  sandbox = await startGitHubSandbox()
  sandbox.createRepo(OWNER, REPO, { defaultBranch: 'main' })
  const warnings: string[] = []
  const octokit = createGitOpsOctokit({
    token: sandbox.token,
    baseUrl: sandbox.url,
    delayUnitMs: UNIT_MS,
    retries: 0,
    maxRateLimitWaitSeconds,
    throttleId: `call-limit-${++clients}`,
    log: { warning: (m) => warnings.push(m) }
  })
  const call = (more: Partial<GitHubCall> = {}): GitHubCall => ({
    octokit,
    owner: OWNER,
    repo: REPO,
    requestTimeoutMs: 2000,
    ...more
  })
  return { s: sandbox, call, warnings }
}

function readRepo(input: GitHubCall) {
  return githubCall(input, TOKEN, 'reading the repository', (request) =>
    input.octokit.rest.repos.get({ owner: OWNER, repo: REPO, request })
  ).then(
    ({ data }) => data.name,
    (error: unknown) => error as Error
  )
}

describe('the call limit as a request option', () => {
  it('three concurrent calls on one Octokit meet a 403 secondary limit: each is decided by its own limit', async () => {
    // Half a second: shorter than GitHub's 1 s wait, so the call without a deadline gives up.
    const { s, call, warnings } = await open(0.5)
    s.injectRateLimit(3, { kind: 'secondary', status: 403, seconds: 1 })
    const [tight, roomy, none] = await Promise.all([
      readRepo(call({ deadline: Date.now() + 100 })),
      readRepo(call({ deadline: Date.now() + 60_000 })),
      readRepo(call())
    ])
    expect((tight as Error).message).toMatch(
      /^GitHub's secondary rate limit stopped reading the repository in acme\/limits: .*, later than this step's deadline leaves time for\./
    )
    expect(roomy).toBe(REPO)
    expect((none as Error).message).toMatch(
      /^GitHub's secondary rate limit stopped .*, later than the gate's longest rate-limit wait\./
    )
    expect(s.requests.filter((r) => r.path === `/repos/${OWNER}/${REPO}`)).toHaveLength(4)
    expect(warnings.filter((w) => /: retry 1 in /.test(w))).toHaveLength(1)
    expect(warnings.filter((w) => /beyond the step's deadline; giving up/.test(w))).toHaveLength(1)
    expect(warnings.filter((w) => /beyond 0\.5 s; giving up/.test(w))).toHaveLength(1)
  })

  it('the same call input twice: a wait for one request restarts only its own time limit', async () => {
    const { s, call } = await open()
    // GitHub asks for 25 s (2.5 s here), less than the deadline holds; the call's own limit is 1.5 s.
    s.injectRateLimit(1, { kind: 'secondary', status: 429, seconds: 25 })
    const input = call({ requestTimeoutMs: 1500, deadline: Date.now() + 30_000 })
    const [first, second] = await Promise.all([readRepo(input), readRepo(input)])
    // The limited request waited beyond its 1.5 s limit and was answered; the other never waited.
    expect([first, second]).toEqual([REPO, REPO])
    expect(s.requests.filter((r) => r.path === `/repos/${OWNER}/${REPO}`)).toHaveLength(3)
  })

  it("GraphQL's primary limit (a 200 with RATE_LIMITED) names the call's own decision too", async () => {
    const { s, call } = await open()
    s.injectGraphqlRateLimit(1, 30)
    const input = call({ deadline: Date.now() + 100 })
    const error = await githubCall(input, TOKEN, 'reading the viewer', (request) =>
      input.octokit.graphql('query { viewer { login } }', { request })
    ).catch((e: unknown) => e as Error)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toMatch(
      /^GitHub's rate limit \(primary\) stopped reading the viewer in acme\/limits: .*, later than this step's deadline leaves time for\./
    )
  })
})
