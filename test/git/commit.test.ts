// commitManifest and createGitOpsOctokit against the GitHub sandbox over real HTTP.
import { inspect } from 'node:util'
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { commitManifest, ManifestConflictError } from '../../src/gitops/commit.js'
import { createGitOpsOctokit, type GitOpsOctokitOptions } from '../../src/gitops/octokit.js'
import type { GitCommit } from '../sandbox/contracts.js'
import { startGitHubSandbox, type GitHubSandbox } from '../sandbox/github/index.js'

const OWNER = 'acme'
const MANIFEST_PATH = 'coder-template-tests/docker-v2.yaml'
const MANIFEST = [
  'apiVersion: coder.com/v1alpha1',
  'kind: CoderTemplateTest',
  'metadata:',
  '  name: docker-v2',
  '  namespace: coder',
  'spec:',
  '  template: acme.docker',
  '  version:',
  '    name: v2',
  ''
].join('\n')

let sandbox: GitHubSandbox
let repoCounter = 0
const events: GitCommit[] = []

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
  sandbox.onCommit((commit) => events.push(commit))
})

afterAll(async () => {
  await sandbox.close()
})

/** A fresh repository per test, so tests do not see each other's commits. */
function newRepo(defaultBranch = 'main'): string {
  repoCounter += 1
  const name = `gitops-${repoCounter}`
  sandbox.createRepo(OWNER, name, { defaultBranch })
  return name
}

function client(overrides: Partial<GitOpsOctokitOptions> = {}) {
  const warnings: string[] = []
  const octokit = createGitOpsOctokit({
    token: sandbox.token,
    baseUrl: sandbox.url,
    delayUnitMs: 1,
    log: {
      warning: (message) => warnings.push(message),
      debug: (message) => warnings.push(message)
    },
    ...overrides
  })
  return { octokit, warnings }
}

function requestsFor(repo: string) {
  return sandbox.requests.filter((r) => r.path.startsWith(`/repos/${OWNER}/${repo}`))
}

function puts(repo: string) {
  return requestsFor(repo).filter((r) => r.method === 'PUT')
}

function baseInput(repo: string, octokit = client().octokit) {
  return {
    octokit,
    owner: OWNER,
    repo,
    branch: '',
    path: MANIFEST_PATH,
    content: MANIFEST,
    message: 'Test Coder template acme/docker version v2'
  }
}

describe('commitManifest', () => {
  it('creates the manifest on the resolved default branch in one commit', async () => {
    const repo = newRepo('trunk')
    const before = events.length

    const outcome = await commitManifest(baseInput(repo))

    expect(outcome.status).toBe('created')
    expect(outcome.branch).toBe('trunk')
    expect(outcome.commitSha).toMatch(/^[0-9a-f]{40}$/)
    expect(sandbox.readFile(OWNER, repo, 'trunk', MANIFEST_PATH)).toBe(MANIFEST)
    const head = sandbox.commits(OWNER, repo, 'trunk').at(-1)
    expect(head?.sha).toBe(outcome.commitSha)
    expect(head?.message).toBe('Test Coder template acme/docker version v2')
    expect(outcome.commitUrl).toBe(
      `${sandbox.serverUrl}/${OWNER}/${repo}/commit/${outcome.commitSha}`
    )
    expect(outcome.fileUrl).toBe(
      `${sandbox.serverUrl}/${OWNER}/${repo}/blob/trunk/${MANIFEST_PATH}`
    )
    // One commit event with exactly the manifest, as the GitOps sync loop sees it.
    const mine = events.slice(before).filter((e) => e.repo === repo)
    expect(mine).toHaveLength(1)
    expect([...mine[0].changes]).toEqual([[MANIFEST_PATH, MANIFEST]])
    expect(requestsFor(repo).map((r) => `${r.method} ${r.status}`)).toEqual([
      'GET 200', // the repository: default branch
      'GET 404', // the file is absent
      'PUT 201'
    ])
  })

  it('makes no commit when Git already holds the same manifest (re-run)', async () => {
    const repo = newRepo()
    const first = await commitManifest(baseInput(repo))
    const commitsAfterFirst = sandbox.commits(OWNER, repo, 'main').length

    const again = await commitManifest(baseInput(repo))

    expect(again).toEqual({
      status: 'unchanged',
      commitSha: '',
      commitUrl: '',
      fileUrl: first.fileUrl,
      branch: 'main'
    })
    expect(sandbox.commits(OWNER, repo, 'main')).toHaveLength(commitsAfterFirst)
    expect(puts(repo)).toHaveLength(1)
  })

  it('fails on a different spec under the same name and leaves the file unchanged', async () => {
    const repo = newRepo()
    await commitManifest(baseInput(repo))
    const commitsBefore = sandbox.commits(OWNER, repo, 'main').length
    const changed = MANIFEST.replace('name: v2', 'name: v3')

    const attempt = commitManifest({ ...baseInput(repo), content: changed })

    await expect(attempt).rejects.toBeInstanceOf(ManifestConflictError)
    await expect(attempt).rejects.toThrow(/different spec.*immutable.*new test name/s)
    expect(sandbox.readFile(OWNER, repo, 'main', MANIFEST_PATH)).toBe(MANIFEST)
    expect(sandbox.commits(OWNER, repo, 'main')).toHaveLength(commitsBefore)
    expect(puts(repo)).toHaveLength(1)
  })

  it('uses isSame to accept an equivalent file (e.g. other formatting)', async () => {
    const repo = newRepo()
    sandbox.writeFile(OWNER, repo, 'main', MANIFEST_PATH, `# added by a human\n${MANIFEST}`)

    const outcome = await commitManifest({
      ...baseInput(repo),
      isSame: (existing) => existing.replace(/^#.*\n/, '') === MANIFEST
    })

    expect(outcome.status).toBe('unchanged')
    expect(puts(repo)).toHaveLength(0)
  })

  it('writes to an explicit branch and not to the default branch', async () => {
    const repo = newRepo()
    sandbox.createBranch(OWNER, repo, 'gitops/tests')

    const outcome = await commitManifest({ ...baseInput(repo), branch: 'gitops/tests' })

    expect(outcome.branch).toBe('gitops/tests')
    expect(sandbox.readFile(OWNER, repo, 'gitops/tests', MANIFEST_PATH)).toBe(MANIFEST)
    expect(sandbox.readFile(OWNER, repo, 'main', MANIFEST_PATH)).toBeNull()
    // No repository lookup when the branch is given.
    expect(requestsFor(repo).filter((r) => r.path === `/repos/${OWNER}/${repo}`)).toHaveLength(0)
  })

  it('fails clearly on a branch that does not exist, without writing', async () => {
    const repo = newRepo()

    await expect(commitManifest({ ...baseInput(repo), branch: 'no-such-branch' })).rejects.toThrow(
      `Branch no-such-branch does not exist in ${OWNER}/${repo}`
    )
    expect(puts(repo)).toHaveLength(0)
  })

  it('fails clearly when the branch is deleted between the read and the write', async () => {
    const repo = newRepo()
    sandbox.createBranch(OWNER, repo, 'short-lived')
    const stop = sandbox.beforeRequest((method, path) => {
      if (method === 'PUT' && path.startsWith(`/repos/${OWNER}/${repo}/`)) {
        stop()
        sandbox.deleteBranch(OWNER, repo, 'short-lived')
      }
    })

    await expect(commitManifest({ ...baseInput(repo), branch: 'short-lived' })).rejects.toThrow(
      `Branch short-lived does not exist in ${OWNER}/${repo}`
    )
    expect(puts(repo).map((r) => r.status)).toEqual([404])
  })

  it.each([409, 422] as const)(
    're-reads and retries after a concurrent writer (%i), then commits',
    async (kind) => {
      const repo = newRepo()
      sandbox.injectConflicts(2, kind)

      const outcome = await commitManifest(baseInput(repo))

      expect(outcome.status).toBe('created')
      expect(puts(repo).map((r) => r.status)).toEqual([kind, kind, 201])
      // Each refused PUT was preceded by a fresh read of the file.
      const sequence = requestsFor(repo)
        .filter((r) => r.path.includes('/contents/'))
        .map((r) => r.method)
      expect(sequence).toEqual(['GET', 'PUT', 'GET', 'PUT', 'GET', 'PUT'])
      const history = sandbox.commits(OWNER, repo, 'main')
      expect(history.at(-1)?.sha).toBe(outcome.commitSha)
      // The other writer's commits survived: nothing was force-pushed over them.
      expect(history.filter((c) => c.author.name === 'other-writer').length).toBeGreaterThanOrEqual(
        3
      )
      expect(sandbox.readFile(OWNER, repo, 'main', MANIFEST_PATH)).toBe(MANIFEST)
    }
  )

  it('gives up after maxAttempts concurrent-writer conflicts with a clear error', async () => {
    const repo = newRepo()
    sandbox.injectConflicts(3, 409)

    await expect(commitManifest({ ...baseInput(repo), maxAttempts: 3 })).rejects.toThrow(
      /another writer changed the branch during each of 3 attempts \(last answer: 409 is at [0-9a-f]{40} but expected [0-9a-f]{40}\)/
    )
    expect(puts(repo).map((r) => r.status)).toEqual([409, 409, 409])
    expect(sandbox.readFile(OWNER, repo, 'main', MANIFEST_PATH)).toBeNull()
  })

  it('accepts the same manifest written by a racing run between its read and its write', async () => {
    const repo = newRepo()
    const stop = sandbox.beforeRequest((method, path) => {
      if (method === 'PUT' && path.startsWith(`/repos/${OWNER}/${repo}/`)) {
        stop()
        sandbox.writeFile(OWNER, repo, 'main', MANIFEST_PATH, MANIFEST, 'the other run')
      }
    })

    const outcome = await commitManifest(baseInput(repo))

    expect(outcome.status).toBe('unchanged')
    expect(outcome.commitSha).toBe('')
    expect(puts(repo).map((r) => r.status)).toEqual([422]) // "sha" wasn't supplied
  })

  it('fails when a racing writer puts a different spec under the name', async () => {
    const repo = newRepo()
    const other = MANIFEST.replace('name: v2', 'name: v9')
    const stop = sandbox.beforeRequest((method, path) => {
      if (method === 'PUT' && path.startsWith(`/repos/${OWNER}/${repo}/`)) {
        stop()
        sandbox.writeFile(OWNER, repo, 'main', MANIFEST_PATH, other, 'the other run')
      }
    })

    await expect(commitManifest(baseInput(repo))).rejects.toBeInstanceOf(ManifestConflictError)
    expect(sandbox.readFile(OWNER, repo, 'main', MANIFEST_PATH)).toBe(other)
  })

  it('honours an aborted signal before any request', async () => {
    const repo = newRepo()
    const controller = new AbortController()
    controller.abort()

    await expect(
      commitManifest({ ...baseInput(repo), signal: controller.signal })
    ).rejects.toMatchObject({ name: 'AbortError' })
    expect(requestsFor(repo)).toHaveLength(0)
  })

  it('says when the GitHub API cannot be reached at all', async () => {
    const closed = await startGitHubSandbox()
    const deadUrl = closed.url
    await closed.close()
    const { octokit } = client({ baseUrl: deadUrl, retries: 1 })

    await expect(commitManifest(baseInput('anything', octokit))).rejects.toThrow(
      /Could not reach the GitHub API while reading the default branch of acme\/anything .*GITHUB_API_URL/
    )
  })
})

describe('commitManifest: every GitHub call has its own time limit', () => {
  // delayUnitMs 600000: were an aborted call retried by the retry plugin, its first wait alone
  // would outlast the test's time limit.
  const slowRetries = () => client({ delayUnitMs: 600_000 }).octokit

  for (const [stage, hangAfter, doing] of [
    ['the default branch read', 0, 'reading the default branch of acme/REPO'],
    ['the file read', 1, `reading ${MANIFEST_PATH} on branch main of acme/REPO`],
    ['the write', 2, `writing ${MANIFEST_PATH} on branch main of acme/REPO`]
  ] as const) {
    it(`fails clearly when ${stage} gets no answer within requestTimeoutMs`, async () => {
      const repo = newRepo()
      let seen = 0
      const stop = sandbox.beforeRequest(() => {
        if (seen++ === hangAfter) sandbox.hangNextRequests(1)
      })
      try {
        const error = await commitManifest({
          ...baseInput(repo, slowRetries()),
          requestTimeoutMs: 200
        }).then(
          () => new Error('expected commitManifest to fail'),
          (e: unknown) => e as Error
        )
        expect(error.message).toBe(
          `GitHub did not answer within 200 ms while ${doing.replace('REPO', repo)}. Check ` +
            "GITHUB_API_URL, the runner's network and https://www.githubstatus.com, then try again."
        )
        expect(error.message).not.toContain(sandbox.token)
        expect(inspect(error, { depth: 20 })).not.toContain(sandbox.token)
        // The calls before the hung one were answered; the hung one was not retried (a retry
        // would wait delayUnitMs first).
        expect(
          requestsFor(repo)
            .filter((r) => r.status !== 0)
            .map((r) => r.status)
        ).toEqual([200, 404].slice(0, hangAfter))
        expect(requestsFor(repo).filter((r) => r.status === 0).length).toBeLessThanOrEqual(1)
      } finally {
        stop()
      }
    })
  }

  it("reports the caller's abort during a hung request as the abort, not as a timeout", async () => {
    const repo = newRepo()
    sandbox.hangNextRequests(1)
    const controller = new AbortController()
    const pending = commitManifest({
      ...baseInput(repo, slowRetries()),
      signal: controller.signal,
      requestTimeoutMs: 60_000
    })
    while (requestsFor(repo).length === 0) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('keeps working calls under the limit (the limit is per call, not per commit)', async () => {
    const repo = newRepo()
    const outcome = await commitManifest({ ...baseInput(repo), requestTimeoutMs: 5000 })
    expect(outcome.status).toBe('created')
  })
})

describe('createGitOpsOctokit: the plugins do the transport retries', () => {
  it('retries 5xx answers through the retry plugin', async () => {
    const repo = newRepo()
    sandbox.injectServerErrors(2, 502)

    const outcome = await commitManifest(baseInput(repo))

    expect(outcome.status).toBe('created')
    // The repository GET met both 502s; the plugin retried it until it answered.
    expect(requestsFor(repo).map((r) => `${r.method} ${r.status}`)).toEqual([
      'GET 502',
      'GET 502',
      'GET 200',
      'GET 404',
      'PUT 201'
    ])
  })

  it('stops retrying 5xx after the configured retries and says what failed', async () => {
    const repo = newRepo()
    sandbox.injectServerErrors(3, 503)

    await expect(commitManifest(baseInput(repo, client({ retries: 2 }).octokit))).rejects.toThrow(
      `GitHub answered 503 (Server Error) while reading the default branch of ${OWNER}/${repo}`
    )
    expect(requestsFor(repo).map((r) => r.status)).toEqual([503, 503, 503])
  })

  it('waits out a primary rate limit (403, x-ratelimit-remaining: 0) through the throttling plugin', async () => {
    const repo = newRepo()
    const { octokit, warnings } = client()
    sandbox.injectRateLimit(1, { kind: 'primary', status: 403 })

    const outcome = await commitManifest(baseInput(repo, octokit))

    expect(outcome.status).toBe('created')
    expect(requestsFor(repo).map((r) => r.status)).toEqual([403, 200, 404, 201])
    expect(warnings.join('\n')).toMatch(/GitHub primary rate limit on GET .*retry 1 of 2/)
  })

  it('waits out a secondary rate limit (429, retry-after) through the throttling plugin', async () => {
    const repo = newRepo()
    const { octokit, warnings } = client()
    sandbox.injectRateLimit(2, { kind: 'secondary', status: 429 })

    const outcome = await commitManifest(baseInput(repo, octokit))

    expect(outcome.status).toBe('created')
    expect(requestsFor(repo).map((r) => r.status)).toEqual([429, 429, 200, 404, 201])
    expect(warnings.filter((w) => w.includes('secondary rate limit'))).toHaveLength(2)
  })

  it('gives up after the bounded rate-limit retries', async () => {
    const repo = newRepo()
    const { octokit, warnings } = client({ rateLimitRetries: 2 })
    sandbox.injectRateLimit(3, { kind: 'primary', status: 403 })

    await expect(commitManifest(baseInput(repo, octokit))).rejects.toThrow(
      /GitHub rate limit while reading the default branch .*still limited after the retries/
    )
    expect(requestsFor(repo).map((r) => r.status)).toEqual([403, 403, 403])
    expect(warnings.join('\n')).toMatch(/giving up after 2 retries/)
  })

  it('does not sit out a rate limit longer than maxRateLimitWaitSeconds', async () => {
    const repo = newRepo()
    const { octokit, warnings } = client({ maxRateLimitWaitSeconds: 30 })
    sandbox.injectRateLimit(1, { kind: 'primary', status: 403, seconds: 3600 })

    await expect(commitManifest(baseInput(repo, octokit))).rejects.toThrow(/rate limit/)
    expect(requestsFor(repo)).toHaveLength(1)
    expect(warnings.join('\n')).toMatch(/more than 30 s; giving up/)
  })
})

describe('access errors name the repository and what the token needs', () => {
  it('a bad token: 401, clear message, the token appears nowhere', async () => {
    const repo = newRepo()
    const badToken = 'ghp_definitelyNotValid0123456789'
    const { octokit, warnings } = client({ token: badToken })

    const error = await commitManifest(baseInput(repo, octokit)).then(
      () => new Error('expected commitManifest to fail'),
      (e: unknown) => e as Error
    )

    expect(error).toBeInstanceOf(Error)
    expect(error.message).toMatch(/GitHub rejected the GitOps token .*401 Bad credentials/)
    expect(error.message).toMatch(/contents: write/)
    expect(error.message).not.toContain(badToken)
    // Nor in the cause chain (Octokit's RequestError redacts the authorization header).
    expect(inspect(error, { depth: 20 })).not.toContain(badToken)
    expect(warnings.join('\n')).not.toContain(badToken)
    expect(JSON.stringify(requestsFor(repo))).not.toContain(badToken)
    expect(requestsFor(repo).map((r) => r.status)).toEqual([401]) // 401 is not retried
  })

  it('a read-only token: 403 on the write, advice about contents: write and other repositories', async () => {
    const repo = newRepo()
    sandbox.addReadOnlyToken('ghs_readonly')

    const attempt = commitManifest(baseInput(repo, client({ token: 'ghs_readonly' }).octokit))

    await expect(attempt).rejects.toThrow(
      new RegExp(
        `GitHub refused writing ${MANIFEST_PATH} on branch main of ${OWNER}/${repo} ` +
          '\\(403 Resource not accessible by integration\\)'
      )
    )
    await expect(attempt).rejects.toThrow(
      /contents: write.*PAT or a GitHub App installation token/s
    )
    expect(puts(repo).map((r) => r.status)).toEqual([403])
  })

  it('a repository the token cannot see: 404 names the repository', async () => {
    await expect(commitManifest(baseInput('does-not-exist'))).rejects.toThrow(
      /404 \(Not Found\).*the repository acme\/does-not-exist does not exist or the token cannot see it/
    )
  })
})
