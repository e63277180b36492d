// The commit mutation refused by GitHub's secondary limit (test/sandbox/github/secondary-limits.ts,
// one content-creating request a minute here) against commitChange over real HTTP, through
// createGitOpsOctokit: never re-sent as it was, but a wait, a head re-read and a mutation pinned to
// the new head. Time is scaled: one second of the limits' clock is SECOND_MS; the injected clock's
// sleep scales the gate's waits (GitHub's seconds × 1000 ms) to match.
import { afterEach, describe, expect, it } from '@jest/globals'
import {
  type CommitChangeInput,
  commitChange
} from '../../../../src/gitops/github/commit/change.js'
import { createGitOpsOctokit } from '../../../../src/gitops/github/client/octokit.js'
import { systemClock, type Clock } from '../../../../src/timing/clock.js'
import { sleep } from '../../../../src/timing/sleep.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.js'

const OWNER = 'acme'
const REPO = 'paused'
const PATH = 'coder-template-tests/docker-v2.yaml'
const SECOND_MS = 10
let clients = 0

let sandbox: GitHubSandbox | undefined
afterEach(async () => {
  await sandbox?.close()
  sandbox = undefined
})

/** A sandbox whose one content-creating request of this minute is already spent. */
async function spentSandbox(): Promise<GitHubSandbox> {
  sandbox = await startGitHubSandbox({
    secondaryLimits: { secondMs: SECOND_MS, contentPerMinute: 1 }
  })
  sandbox.createRepo(OWNER, REPO, { defaultBranch: 'main', files: { 'README.md': '# r\n' } })
  await fetch(`${sandbox.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'mutation { noop }' })
  })
  return sandbox
}

/** The real clock with the gate's pauses scaled to the limits' clock; `during` runs at each. */
function scaledClock(during: () => void): Clock & { pauses: number[] } {
  const pauses: number[] = []
  return {
    ...systemClock,
    pauses,
    sleep: (ms, signal) => {
      pauses.push(ms)
      during()
      return sleep((ms * SECOND_MS) / 1000, signal)
    }
  }
}

function change(s: GitHubSandbox, more: Partial<CommitChangeInput>) {
  const warnings: string[] = []
  const octokit = createGitOpsOctokit({
    token: s.token,
    baseUrl: s.url,
    delayUnitMs: SECOND_MS,
    retries: 0,
    throttleId: `commit-rate-limit-${++clients}`,
    spaceWrites: false,
    log: { warning: (m) => warnings.push(m) }
  })
  const done = commitChange({
    octokit,
    owner: OWNER,
    repo: REPO,
    branch: 'main',
    manifests: [{ path: PATH, content: 'kind: CoderTemplateTest\n', isSame: () => true }],
    deletions: [],
    message: 'Test acme.docker version v2',
    random: () => 0.5,
    ...more
  })
  return { done, warnings }
}

/** The createCommitOnBranch mutations: their answer and the head each was pinned to. */
const mutations = (s: GitHubSandbox) =>
  s.requests
    .filter((r) => r.method === 'POST' && r.path === '/graphql' && String(r.body).includes(REPO))
    .map((r) => {
      const sent = JSON.parse(String(r.body)) as {
        variables: { input: { expectedHeadOid: string } }
      }
      const answer = JSON.parse(r.answer ?? '{}') as { errors?: Array<{ type?: string }> }
      return {
        status: r.status,
        error: answer.errors?.[0]?.type,
        expectedHead: sent.variables.input.expectedHeadOid
      }
    })

describe('a commit mutation refused by the secondary limit', () => {
  it('waits as GitHub asked, re-reads the moved head and pins the next mutation to it', async () => {
    const s = await spentSandbox()
    const judgedAt = s.branchHead(OWNER, REPO, 'main')!
    // Another writer moves the branch while the gate waits.
    const clock = scaledClock(() => s.writeFile(OWNER, REPO, 'main', 'other.yaml', 'x: 1\n'))
    const { done, warnings } = change(s, { clock })
    const outcome = await done
    const movedTo = s.commits(OWNER, REPO, 'main').at(-2)!.sha
    expect(outcome).toMatchObject({ status: 'created', lostRaces: 0, rateLimitPauses: 1 })
    expect(mutations(s)).toEqual([
      { status: 403, error: undefined, expectedHead: judgedAt },
      { status: 200, error: undefined, expectedHead: movedTo }
    ])
    // GitHub's retry-after (whole seconds of the limits' clock, up to 60) and the spread's half of
    // the first second (random 0.5).
    expect(clock.pauses).toHaveLength(1)
    expect(clock.pauses[0]! % 1000).toBe(500)
    expect(clock.pauses[0]).toBeGreaterThan(1000)
    // The head was read again between the two mutations.
    const log = s.requests.map((r) => `${r.method} ${decodeURIComponent(r.path.split('?')[0]!)}`)
    const first = log.indexOf('POST /graphql', 1)
    const second = log.indexOf('POST /graphql', first + 1)
    expect(log.slice(first + 1, second)).toContain(`GET /repos/${OWNER}/${REPO}/git/ref/heads/main`)
    expect(s.readFile(OWNER, REPO, 'main', PATH)).toBe('kind: CoderTemplateTest\n')
    expect(warnings).toEqual([])
  })

  it('a deadline that cannot hold the wait fails naming the rate limit and when it ends', async () => {
    const s = await spentSandbox()
    const clock = scaledClock(() => undefined)
    const { done } = change(s, { clock, deadline: Date.now() + 40_000 })
    await expect(done).rejects.toThrow(
      new RegExp(
        `^GitHub's secondary rate limit stopped committing to branch main in ${OWNER}/${REPO}: ` +
          "GitHub allows the next request at \\S+Z, later than this step's deadline leaves time for"
      )
    )
    expect(clock.pauses).toEqual([])
    expect(mutations(s).map((m) => m.status)).toEqual([403])
  })

  it('a cancel during the wait ends it with the cancel, and nothing is sent again', async () => {
    const s = await spentSandbox()
    const cancel = new AbortController()
    const clock = scaledClock(() => cancel.abort(new Error('cancelled by the test')))
    const { done } = change(s, { clock, signal: cancel.signal })
    await expect(done).rejects.toThrow('cancelled by the test')
    expect(mutations(s).map((m) => m.status)).toEqual([403])
    expect(s.readFile(OWNER, REPO, 'main', PATH)).toBeNull()
  })
})

/** A sandbox with GitHub's own limits (none met here) and one repository. */
async function plainSandbox(): Promise<GitHubSandbox> {
  sandbox = await startGitHubSandbox({})
  sandbox.createRepo(OWNER, REPO, { defaultBranch: 'main', files: { 'README.md': '# r\n' } })
  return sandbox
}

describe("a commit mutation that meets GraphQL's primary limit (HTTP 200, RATE_LIMITED)", () => {
  it('is not re-sent by the plugin: the gate waits, re-reads the head and commits there', async () => {
    const s = await plainSandbox()
    s.injectGraphqlRateLimit(1, 1)
    const judgedAt = s.branchHead(OWNER, REPO, 'main')!
    const clock = scaledClock(() => s.writeFile(OWNER, REPO, 'main', 'other.yaml', 'x: 1\n'))
    const { done, warnings } = change(s, { clock })
    const outcome = await done
    const movedTo = s.commits(OWNER, REPO, 'main').at(-2)!.sha
    expect(outcome).toMatchObject({ status: 'created', lostRaces: 0, rateLimitPauses: 1 })
    expect(mutations(s)).toEqual([
      { status: 200, error: 'RATE_LIMITED', expectedHead: judgedAt },
      { status: 200, error: undefined, expectedHead: movedTo }
    ])
    expect(warnings).toEqual([])
  })

  it('fails naming the primary rate limit when its reset is past the deadline', async () => {
    const s = await plainSandbox()
    s.injectGraphqlRateLimit(1, 3600)
    const { done } = change(s, {
      clock: scaledClock(() => undefined),
      deadline: Date.now() + 60_000
    })
    await expect(done).rejects.toThrow(
      /^GitHub's rate limit \(primary\) stopped committing to branch main .*later than this step's deadline/
    )
    expect(mutations(s).map((m) => m.error)).toEqual(['RATE_LIMITED'])
  })
})

describe('a commit mutation whose first copy lands after its answer was lost', () => {
  it('meets STALE_DATA on the resend, finds its own commit and reports it', async () => {
    const s = await plainSandbox()
    const judgedAt = s.branchHead(OWNER, REPO, 'main')!
    let late = ''
    let sent = 0
    // The first copy's answer is lost (a 502, nothing stored), and it "lands late": right before
    // the resend, a commit with our parent and message.
    s.beforeRequest((method, path) => {
      if (method !== 'POST' || path !== '/graphql') return
      if (++sent === 1) s.injectServerErrors(1, 502)
      if (sent !== 2) return
      late = s.writeFile(
        OWNER,
        REPO,
        'main',
        PATH,
        'kind: CoderTemplateTest\n',
        'Test acme.docker version v2'
      )
    })
    const outcome = await change(s, { clock: scaledClock(() => undefined) }).done
    expect(mutations(s).map((m) => [m.status, m.error, m.expectedHead])).toEqual([
      [502, undefined, judgedAt],
      [200, 'STALE_DATA', judgedAt]
    ])
    expect(outcome).toMatchObject({ status: 'created', commitSha: late, lostRaces: 0 })
    expect(s.commits(OWNER, REPO, 'main')).toHaveLength(2)
  })
})
