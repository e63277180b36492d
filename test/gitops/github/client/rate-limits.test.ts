// GitHub's secondary rate limits (test/sandbox/github/secondary-limits.ts) against the adapters over
// real HTTP, through createGitOpsOctokit. Time is scaled: one second of the limits' clock is
// SECOND_MS, and the client's delayUnitMs matches, so a "60 s" wait lasts 60 × SECOND_MS.
import { afterEach, describe, expect, it } from '@jest/globals'
import {
  decideRateLimitWait,
  rateLimitOf,
  rateLimitText,
  type RateLimitWaitDecision
} from '../../../../src/gitops/github/client/call.js'
import { createGitOpsOctokit } from '../../../../src/gitops/github/client/octokit.js'
import { openPullRequest } from '../../../../src/gitops/github/pull-request/pull-request.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.js'
import { isContentGenerating, type SecondaryLimits } from '../../../sandbox/github/index.js'

const OWNER = 'acme'
const REPO = 'limits'
const BRANCH = 'coder-template-gate/docker-v2'
// 60 ms: a "minute" (3.6 s) outlasts the per-call limit below and plugin-throttling's own spacing of
// writes that notify (3 s, real time, not scaled), so only the rate-limit wait can exceed the limit.
const SECOND_MS = 60
const CALL_LIMIT_MS = 2000
let clients = 0

let sandbox: GitHubSandbox | undefined
afterEach(async () => {
  await sandbox?.close()
  sandbox = undefined
})

async function limitedSandbox(limits: Partial<SecondaryLimits>): Promise<GitHubSandbox> {
  sandbox = await startGitHubSandbox({ secondaryLimits: { secondMs: SECOND_MS, ...limits } })
  sandbox.createRepo(OWNER, REPO, { defaultBranch: 'main' })
  sandbox.createBranch(OWNER, REPO, BRANCH)
  sandbox.writeFile(OWNER, REPO, BRANCH, 'coder-template-tests/docker-v2.yaml', 'kind: X\n')
  return sandbox
}

function raw(s: GitHubSandbox, method: string, path: string, signal?: AbortSignal) {
  return fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `token ${s.token}`, 'content-type': 'application/json' },
    body: method === 'GET' ? undefined : JSON.stringify({ query: 'mutation { noop }' }),
    signal
  })
}

function open(s: GitHubSandbox, extra: { requestTimeoutMs?: number; deadline?: number } = {}) {
  const warnings: string[] = []
  const octokit = createGitOpsOctokit({
    token: s.token,
    baseUrl: s.url,
    delayUnitMs: SECOND_MS,
    retries: 0,
    throttleId: `rate-limits-${++clients}`, // no write spacing carried over from another test
    log: { warning: (m) => warnings.push(m) }
  })
  const opened = openPullRequest({
    octokit,
    owner: OWNER,
    repo: REPO,
    head: BRANCH,
    base: 'main',
    title: 'Test acme.docker version v2',
    body: 'Merging lets GitOps create the test.',
    labels: [],
    ...extra
  })
  return { opened, warnings }
}

describe('secondary rate limits against the adapters', () => {
  it.each<[string, Partial<SecondaryLimits>]>([
    ['403 with retry-after', { status: 403, answer: 'retry-after' }],
    ['429 with x-ratelimit-reset', { status: 429, answer: 'reset' }]
  ])(
    'a content limit (%s) waits as GitHub asks, beyond the per-call limit',
    async (_name, limits) => {
      const s = await limitedSandbox({ contentPerMinute: 1, ...limits })
      await raw(s, 'POST', '/graphql') // this minute's one content-generating request
      // The wait (about 60 × SECOND_MS = 3.6 s) is longer than the call's own limit.
      const { opened, warnings } = open(s, { requestTimeoutMs: CALL_LIMIT_MS })
      expect((await opened).number).toBeGreaterThan(0)
      expect(s.secondaryLimitStats()?.refusedContent).toBeGreaterThanOrEqual(1)
      expect(warnings.join('\n')).toMatch(/rate limit on POST .*: retry 1 in \d/)
    }
  )

  it("fails naming the rate limit and its end when the step's deadline cannot hold the wait", async () => {
    const s = await limitedSandbox({ contentPerMinute: 1 })
    await raw(s, 'POST', '/graphql')
    const { opened } = open(s, { requestTimeoutMs: CALL_LIMIT_MS, deadline: Date.now() + 600 })
    const error = await opened.catch((e: unknown) => e as Error)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toMatch(
      /^GitHub's secondary rate limit stopped .* in acme\/limits: GitHub allows the next request at \d{4}-\d\d-\d\dT/
    )
    expect((error as Error).message).not.toMatch(/did not answer in time|network\./)
  })

  it('refuses requests beyond the concurrency limit, and admits them again once answers end', async () => {
    const s = await limitedSandbox({ concurrent: 2 })
    s.hangNextRequests(2)
    const held = [new AbortController(), new AbortController()]
    const hung = held.map((c) => raw(s, 'GET', `/repos/${OWNER}/${REPO}`, c.signal).catch(() => 0))
    await new Promise((resolve) => setTimeout(resolve, 50))
    const refused = await raw(s, 'GET', `/repos/${OWNER}/${REPO}`)
    expect(refused.status).toBe(403)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(((await refused.json()) as { message: string }).message).toMatch(/secondary rate limit/)
    for (const c of held) c.abort()
    await Promise.all(hung)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await raw(s, 'GET', `/repos/${OWNER}/${REPO}`)).status).toBe(200)
    expect(s.secondaryLimitStats()).toMatchObject({ refusedConcurrent: 1, peakConcurrent: 2 })
  })

  it('counts content per hour too, and reports the peak per minute', async () => {
    const s = await limitedSandbox({ contentPerMinute: 3, contentPerHour: 4 })
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await raw(s, 'POST', '/graphql')).status)
    expect(statuses.slice(0, 3).every((status) => status !== 403)).toBe(true)
    expect(statuses[3]).toBe(403)
    await new Promise((resolve) => setTimeout(resolve, 61 * SECOND_MS))
    expect((await raw(s, 'POST', '/graphql')).status).not.toBe(403) // the 4th of the hour
    const hourly = await raw(s, 'POST', '/graphql')
    expect(hourly.status).toBe(403)
    expect(Number(hourly.headers.get('retry-after'))).toBeGreaterThan(3400) // about an hour
    expect(s.secondaryLimitStats()).toMatchObject({ contentAccepted: 4, peakContentPerMinute: 3 })
  })
})

describe('decideRateLimitWait', () => {
  const base = {
    waitMs: 56_000,
    now: 1_000_000,
    deadline: undefined as number | undefined,
    requestTimeoutMs: 30_000,
    maxWaitMs: 120_000,
    retryCount: 0,
    maxRetries: 4,
    aborted: false
  }
  it.each<[string, Partial<typeof base>, RateLimitWaitDecision]>([
    ['a wait within the longest wait, no deadline', {}, 'wait'],
    ['a wait beyond the longest wait, no deadline', { waitMs: 121_000 }, 'too-long'],
    ['a wait and the call after it within the deadline', { deadline: 1_000_000 + 86_000 }, 'wait'],
    [
      'a wait the deadline holds, but not the call after it',
      { deadline: 1_000_000 + 57_000 },
      'past-deadline'
    ],
    ['a long wait the deadline holds', { waitMs: 300_000, deadline: 1_000_000 + 330_000 }, 'wait'],
    ['a wait past the deadline', { deadline: 1_000_000 + 30_000 }, 'past-deadline'],
    // bench --matrix 50: a count of retries ran out minutes before the deadline; time bounds it.
    ['a 40th retry within the deadline', { retryCount: 40, deadline: 1_000_000 + 600_000 }, 'wait'],
    [
      'a fourth retry within the deadline',
      { retryCount: 3, deadline: 1_000_000 + 600_000 },
      'wait'
    ],
    ['a third retry without a deadline: the old bound of 2', { retryCount: 2 }, 'too-many'],
    ['a second retry without a deadline', { retryCount: 1 }, 'wait'],
    ['a cancelled run', { aborted: true }, 'aborted']
  ])('%s', (_name, overrides, decision) => {
    expect(decideRateLimitWait({ ...base, ...overrides })).toBe(decision)
  })
})

describe('rateLimitText', () => {
  const limited = { kind: 'secondary' as const, until: Date.UTC(2026, 11, 4, 1, 0, 0) }
  it.each<[RateLimitWaitDecision | undefined, string]>([
    ['past-deadline', "later than this step's deadline leaves time for."],
    ['too-long', "later than the gate's longest rate-limit wait."],
    ['too-many', 'and the gate had already used its rate-limit retries for this call.'],
    [undefined, "later than this step's deadline or the gate's longest rate-limit wait."]
  ])('gave up (%s): says why', (decision, text) => {
    const message = rateLimitText(limited, 'opening the pull request', 'acme/gitops', decision)
    expect(message).toContain('GitHub allows the next request at 2026-12-04T01:00:00.000Z, ' + text)
  })
})

describe('rateLimitOf', () => {
  const now = 1_700_000_000_000
  const answer = (status: number, message: string, headers: Record<string, string>) => ({
    status,
    message,
    response: { data: { message }, headers }
  })
  it.each<[string, unknown, ReturnType<typeof rateLimitOf>]>([
    [
      'secondary with retry-after',
      answer(403, 'You have exceeded a secondary rate limit.', { 'retry-after': '56' }),
      { kind: 'secondary', until: now + 56_000 }
    ],
    [
      'secondary with x-ratelimit-reset',
      answer(429, 'You have exceeded a secondary rate limit.', {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(now / 1000 + 90)
      }),
      { kind: 'secondary', until: now + 90_000 }
    ],
    [
      'secondary without a time: at least one minute',
      answer(403, 'You have exceeded a secondary rate limit.', {}),
      { kind: 'secondary', until: now + 60_000 }
    ],
    [
      'primary',
      answer(403, 'API rate limit exceeded for installation ID 1.', {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(now / 1000 + 600)
      }),
      { kind: 'primary', until: now + 600_000 }
    ],
    [
      'a refusal that is not a rate limit',
      answer(403, 'Resource not accessible by integration', { 'x-ratelimit-remaining': '4000' }),
      undefined
    ],
    ['another status', answer(500, 'secondary rate limit', {}), undefined],
    [
      "GraphQL's primary limit as plugin-throttling throws it (a 200 with RATE_LIMITED)",
      Object.assign(new Error('GraphQL Rate Limit Exceeded'), {
        response: {
          status: 200,
          headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 300) },
          data: {
            data: null,
            errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded' }]
          }
        }
      }),
      { kind: 'primary', until: now + 300_000 }
    ],
    [
      "GraphQL's primary limit as @octokit/graphql throws it, without a reset: a minute",
      { errors: [{ type: 'RATE_LIMITED', message: 'x' }], headers: {} },
      { kind: 'primary', until: now + 60_000 }
    ],
    [
      'another GraphQL refusal (the text says rate limit, the type does not)',
      { errors: [{ type: 'STALE_DATA', message: 'API rate limit exceeded' }], headers: {} },
      undefined
    ]
  ])('%s', (_name, error, expected) => {
    expect(rateLimitOf(error, now)).toEqual(expected)
  })
})

describe('isContentGenerating (the sandbox: a guess, GitHub lists no endpoints)', () => {
  it.each<[string, string, string, boolean]>([
    ['GET', '/repos/acme/gitops', '', false],
    ['HEAD', '/repos/acme/gitops', '', false],
    ['POST', '/repos/acme/gitops/git/blobs', '{}', true],
    ['PATCH', '/repos/acme/gitops/git/refs/heads/main', '{}', true],
    ['PUT', '/repos/acme/gitops/pulls/1/merge', '{}', true],
    ['DELETE', '/repos/acme/gitops/git/refs/heads/x', '', true],
    ['POST', '/graphql', '{"query":"query { viewer { login } }"}', false],
    ['POST', '/graphql', '{"query":"mutation { enablePullRequestAutoMerge }"}', true],
    ['POST', '/api/graphql', '{"query":"mutation { x }"}', true]
  ])('%s %s', (method, path, body, expected) => {
    expect(isContentGenerating(method, path, body)).toBe(expected)
  })
})
