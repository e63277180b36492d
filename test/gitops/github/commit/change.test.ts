// commitChange and listManifestFiles against the GitHub sandbox over real HTTP, with the Octokit
// under createGitOpsOctokit minus its throttling (write spacing only slows these tests down).
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { createHash } from 'node:crypto'
import { getOctokit } from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import {
  BranchProtectedError,
  type CommitChangeInput,
  commitChange,
  ManifestConflictError
} from '../../../../src/gitops/github/commit/change.js'
import { listManifestFiles } from '../../../../src/gitops/github/commit/manifests.js'
import { readFileAt } from '../../../../src/gitops/github/commit/read-file.js'
import {
  createGitOpsOctokit,
  type GitOpsOctokit
} from '../../../../src/gitops/github/client/octokit.js'
import {
  buildTestManifest,
  parseManifest,
  renderManifest,
  sameTest
} from '../../../../src/objects/manifest.js'
import { DOCS, HttpFailure } from '../../../sandbox/github/errors.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.js'
import { sleep } from '../../../../src/timing/sleep.js'
import { systemClock } from '../../../../src/timing/clock.js'
import { FakeClock } from '../../../timing/fake-clock.js'

const OWNER = 'acme'
const DIR = 'coder-template-tests'
const PATH = `${DIR}/docker-v2.yaml`

let sandbox: GitHubSandbox
let octokit: GitOpsOctokit
let repoCounter = 0

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
  octokit = getOctokit(sandbox.token, { baseUrl: sandbox.url })
})

afterAll(() => sandbox.close())

function newRepo(files: Record<string, string> = { 'README.md': '# r\n' }, defaultBranch = 'main') {
  repoCounter += 1
  const repo = `change-${repoCounter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch, files })
  return repo
}

const manifestOf = (version: string, timeoutSeconds = 600) =>
  buildTestManifest({
    organization: 'acme',
    template: 'docker',
    version,
    testName: 'docker-v2',
    namespace: 'coder-tests',
    controlPlane: 'coder',
    parameters: [],
    timeoutSeconds
  })
const CONTENT = renderManifest(manifestOf('v2'))

/** Git's blob SHA of a text: what keep-tests judged at `path`. */
const judged = (path: string, content: string) => ({
  path,
  blobSha: createHash('sha1')
    .update(`blob ${Buffer.byteLength(content)}\0${content}`)
    .digest('hex')
})

function change(repo: string, more: Partial<CommitChangeInput> = {}) {
  const wanted = manifestOf('v2')
  return commitChange({
    octokit,
    owner: OWNER,
    repo,
    branch: 'main',
    manifests: [
      {
        path: PATH,
        content: CONTENT,
        isSame: (existing) => sameTest(parseManifest(existing), wanted)
      }
    ],
    deletions: [],
    message: 'Test acme.docker version v2',
    ...more
  })
}

function requestsOf(repo: string, method?: string) {
  return sandbox.requests.filter(
    (r) => r.path.startsWith(`/repos/${OWNER}/${repo}/`) && (!method || r.method === method)
  )
}
/** The createCommitOnBranch mutations for `repo` (POST /graphql names the repository in its body). */
const mutations = (repo: string) =>
  sandbox.requests.filter(
    (r) =>
      r.method === 'POST' && r.path === '/graphql' && String(r.body).includes(`"${OWNER}/${repo}"`)
  )
/** Each mutation's answer: its HTTP status when not 200, else the first error's type or 'ok'. */
const answers = (repo: string) =>
  mutations(repo).map((r) => {
    if (r.status !== 200) return r.status
    const answer = JSON.parse(r.answer ?? '{}') as { errors?: Array<{ type?: string }> }
    return answer.errors?.[0]?.type ?? 'ok'
  })
/** Content-creating requests for `repo`: its REST writes and its mutations. */
const contentRequests = (repo: string) =>
  requestsOf(repo).filter((r) => r.method !== 'GET').length + mutations(repo).length

/** Runs `body` with `onCommit` called before each GraphQL request reaches its route. */
async function duringCommits(onCommit: () => void, body: () => Promise<void>) {
  const stop = sandbox.beforeRequest((method, path) => {
    if (method === 'POST' && path === '/graphql') onCommit()
  })
  await body().finally(() => stop())
}

/** With the retry plugin, whose blind re-send after a 5xx a write must not get. */
const retrying = () =>
  getOctokit(sandbox.token, { baseUrl: sandbox.url, retry: { retryAfterBaseValue: 1 } }, retry)

/** A clock that only the pauses move, and random() = 0.5: tests take no real time. */
function fakeClock() {
  const clock = new FakeClock()
  return { pauses: clock.slept, options: { clock, random: () => 0.5 } }
}

describe('commitChange', () => {
  it('the first commit creates the file in one commit; the same content again changes nothing', async () => {
    const repo = newRepo()
    const before = sandbox.commits(OWNER, repo, 'main')
    const first = await change(repo)
    const after = sandbox.commits(OWNER, repo, 'main')
    expect(after).toHaveLength(before.length + 1)
    expect(first).toEqual({
      status: 'created',
      commitSha: sandbox.branchHead(OWNER, repo, 'main'),
      commitUrl: expect.stringContaining(`/${OWNER}/${repo}/commit/${first.commitSha}`),
      branch: 'main',
      deleted: [],
      dropped: [],
      lostRaces: 0
    })
    expect(after.at(-1)).toMatchObject({ message: 'Test acme.docker version v2' })
    expect(after.at(-1)!.changes).toEqual(new Map([[PATH, CONTENT]]))
    expect(sandbox.readFile(OWNER, repo, 'main', 'README.md')).toBe('# r\n')

    const writes = () => requestsOf(repo).filter((r) => r.method !== 'GET').length
    const writesBefore = writes()
    expect(await change(repo)).toEqual({
      status: 'unchanged',
      commitSha: '',
      branch: 'main',
      deleted: [],
      dropped: [],
      lostRaces: 0
    })
    expect(sandbox.commits(OWNER, repo, 'main')).toHaveLength(after.length)
    expect(writes()).toBe(writesBefore)
  })

  it('several manifests go in one commit (one mutation); a re-run adds only the missing one', async () => {
    const repo = newRepo()
    const file = (name: string) => ({
      path: `tests/${name}.yaml`,
      content: `${name}\n`,
      isSame: (existing: string) => existing === `${name}\n`
    })
    const first = await change(repo, { manifests: [file('t-small'), file('t-large')] })
    expect(first.status).toBe('created')
    expect(mutations(repo)).toHaveLength(1)
    expect(sandbox.commits(OWNER, repo, 'main').at(-1)!.changes).toEqual(
      new Map([
        ['tests/t-small.yaml', 't-small\n'],
        ['tests/t-large.yaml', 't-large\n']
      ])
    )
    const again = await change(repo, { manifests: [file('t-small'), file('t-large')] })
    expect(again.status).toBe('unchanged')
    expect(mutations(repo)).toHaveLength(1)
    await change(repo, { manifests: [file('t-small'), file('t-large'), file('t-xl')] })
    expect(sandbox.commits(OWNER, repo, 'main').at(-1)!.changes).toEqual(
      new Map([['tests/t-xl.yaml', 't-xl\n']])
    )
    const conflict = { ...file('t-small'), content: 'other\n', isSame: () => false }
    await expect(change(repo, { manifests: [file('t-xl'), conflict] })).rejects.toThrow(
      'tests/t-small.yaml already exists'
    )
  })

  it("branch '' commits to the default branch", async () => {
    const repo = newRepo(undefined, 'trunk')
    expect(await change(repo, { branch: '' })).toMatchObject({ status: 'created', branch: 'trunk' })
    expect(sandbox.readFile(OWNER, repo, 'trunk', PATH)).toBe(CONTENT)
  })

  it('deletions land in the same single commit as the manifest; absent ones are ignored', async () => {
    const repo = newRepo({
      'README.md': '# r\n',
      [`${DIR}/docker-v0.yaml`]: 'old: 0\n',
      [`${DIR}/docker-v1.yaml`]: 'old: 1\n',
      [`${DIR}/other.yaml`]: 'keep: me\n'
    })
    const before = sandbox.commits(OWNER, repo, 'main').length
    const gone = [
      judged(`${DIR}/docker-v0.yaml`, 'old: 0\n'),
      judged(`${DIR}/never-there.yaml`, 'x\n'),
      judged(`${DIR}/docker-v1.yaml`, 'old: 1\n')
    ]
    const outcome = await change(repo, { deletions: gone })
    const deleted = [`${DIR}/docker-v0.yaml`, `${DIR}/docker-v1.yaml`]
    expect(outcome).toMatchObject({
      status: 'created',
      deleted,
      dropped: [{ path: `${DIR}/never-there.yaml`, reason: 'gone' }]
    })
    const commits = sandbox.commits(OWNER, repo, 'main')
    expect(commits).toHaveLength(before + 1)
    const changes = new Map<string, string | null>([
      [PATH, CONTENT],
      ...deleted.map((d): [string, null] => [d, null])
    ])
    expect(commits.at(-1)!.changes).toEqual(changes)
    expect(sandbox.readFile(OWNER, repo, 'main', `${DIR}/other.yaml`)).toBe('keep: me\n')
  })

  it('deletions alone, with the manifest already there, make one commit of deletions', async () => {
    const repo = newRepo({ [PATH]: CONTENT, [`${DIR}/docker-v1.yaml`]: 'old: 1\n' })
    const outcome = await change(repo, {
      deletions: [judged(`${DIR}/docker-v1.yaml`, 'old: 1\n')]
    })
    expect(outcome).toMatchObject({ status: 'created', deleted: [`${DIR}/docker-v1.yaml`] })
    expect(sandbox.commits(OWNER, repo, 'main').at(-1)!.changes).toEqual(
      new Map([[`${DIR}/docker-v1.yaml`, null]])
    )
  })

  it('a manifest at our path with another spec is a ManifestConflictError; nothing written', async () => {
    const repo = newRepo({ [PATH]: renderManifest(manifestOf('v2', 60)) })
    const head = sandbox.branchHead(OWNER, repo, 'main')
    const error = await change(repo, { deletions: [judged('README.md', '# r\n')] }).catch(
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(ManifestConflictError)
    expect((error as Error).message).toContain(`${PATH} already exists on branch main`)
    expect(sandbox.branchHead(OWNER, repo, 'main')).toBe(head)
    expect(requestsOf(repo).filter((r) => r.method !== 'GET')).toEqual([])
  })

  it('a missing branch with baseBranch is created from the base tip', async () => {
    const repo = newRepo()
    const base = sandbox.branchHead(OWNER, repo, 'main')!
    const branch = 'coder-template-gate/docker-v2'
    const outcome = await change(repo, { branch, baseBranch: 'main' })
    expect(outcome).toMatchObject({ status: 'created', branch })
    const commits = sandbox.commits(OWNER, repo, branch)
    expect(commits.at(-1)).toMatchObject({ sha: outcome.commitSha, parents: [base] })
    expect(sandbox.branchHead(OWNER, repo, 'main')).toBe(base)
    expect(sandbox.readFile(OWNER, repo, 'main', PATH)).toBeNull()
  })

  it('the manifest already on the base: the branch is created at the base tip, no commit', async () => {
    const repo = newRepo({ [PATH]: CONTENT })
    const base = sandbox.branchHead(OWNER, repo, 'main')
    const outcome = await change(repo, { branch: 'gate', baseBranch: 'main' })
    expect(outcome).toMatchObject({ status: 'unchanged', branch: 'gate' })
    expect(sandbox.branchHead(OWNER, repo, 'gate')).toBe(base)
  })

  it('a missing branch without a base, and a missing base, fail with the branch named', async () => {
    const repo = newRepo()
    await expect(change(repo, { branch: 'nope' })).rejects.toThrow(
      `Branch nope does not exist in ${OWNER}/${repo}.`
    )
    await expect(change(repo, { branch: 'nope', baseBranch: 'gone' })).rejects.toThrow(
      `Branch gone does not exist in ${OWNER}/${repo}.`
    )
  })

  it.each([
    ['a ruleset', 'Repository rule violations found'],
    ['classic protection', 'BRANCH_PROTECTION_RULE_VIOLATION']
  ])('%s requiring a pull request: BranchProtectedError at once, no retry', async (by, said) => {
    const repo = newRepo()
    if (by === 'a ruleset') sandbox.addRuleset(OWNER, repo, { requirePullRequest: true })
    else sandbox.protectBranch(OWNER, repo, 'main')
    const head = sandbox.branchHead(OWNER, repo, 'main')
    const error = await change(repo).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BranchProtectedError)
    expect((error as Error).message).toContain(said)
    expect((error as Error).message).toContain('gitops-mode: pull-request')
    // One mutation, refused: a ruleset's refusal (no type of its own) is told by the branch's rules.
    expect(answers(repo)).toEqual([by === 'a ruleset' ? 'UNPROCESSABLE' : said])
    expect(sandbox.branchHead(OWNER, repo, 'main')).toBe(head)
  })

  it("pull-request mode: a rule refusing the gate's branch, answered 409, is protection, not a race", async () => {
    const repo = newRepo()
    // guess: GitHub may send the ruleset text with 409 (it does on the contents API).
    const stop = sandbox.beforeRequest((method, path) => {
      if (method === 'POST' && path === `/repos/${OWNER}/${repo}/git/refs`)
        throw new HttpFailure(409, 'Repository rule violations found\n\nx\n\n', DOCS.createRef)
    })
    try {
      const error = await change(repo, { branch: 'gate', baseBranch: 'main' }).catch((e) => e)
      expect(error).toBeInstanceOf(BranchProtectedError)
      expect(requestsOf(repo, 'POST')).toHaveLength(1)
      expect(mutations(repo)).toEqual([])
    } finally {
      stop()
    }
  })

  it('a refusal of another type fails at once with what GitHub said, as data', async () => {
    const repo = newRepo()
    sandbox.createBranch(OWNER, repo, 'release')
    // The branch is deleted between the gate's read and its commit: NOT_FOUND, not a race.
    let deleted = 0
    const remove = () => {
      if (!deleted++) sandbox.deleteBranch(OWNER, repo, 'release')
    }
    await duringCommits(remove, async () => {
      const error = (await change(repo, { branch: 'release', ...fakeClock().options }).catch(
        (e: unknown) => e
      )) as Error
      expect(error).not.toBeInstanceOf(BranchProtectedError)
      expect(error.message).toBe(
        `GitHub refused the commit to branch release of ${OWNER}/${repo} (NOT_FOUND: Branch 'release' not found).`
      )
      expect(answers(repo)).toEqual(['NOT_FOUND'])
    })
  })

  it('a token that may not write fails at once, naming the permission', async () => {
    const repo = newRepo()
    const readOnly = `ghs_read_only_${repo}`
    sandbox.addReadOnlyToken(readOnly)
    const reader = getOctokit(readOnly, { baseUrl: sandbox.url })
    await expect(change(repo, { octokit: reader })).rejects.toThrow(
      `GitHub refused the commit to branch main of ${OWNER}/${repo} (FORBIDDEN: Resource not accessible by integration). gitops-token needs \`contents: write\` there.`
    )
    expect(answers(repo)).toEqual(['FORBIDDEN'])
  })

  it('another writer moving the branch before the commit: STALE_DATA, re-read, retried', async () => {
    const repo = newRepo()
    let raced = 0
    const race = () => {
      if (!raced++) sandbox.writeFile(OWNER, repo, 'main', 'other.txt', 'by someone else\n')
    }
    await duringCommits(race, async () => {
      const outcome = await change(repo)
      expect(outcome).toMatchObject({ status: 'created', lostRaces: 1 })
      expect(answers(repo)).toEqual(['STALE_DATA', 'ok'])
      const commits = sandbox.commits(OWNER, repo, 'main')
      expect(commits.at(-1)!.sha).toBe(outcome.commitSha)
      // Built again on top of the other writer's commit: both changes are kept.
      expect(commits.at(-2)!.message).toBe('Update other.txt')
      expect(sandbox.readFile(OWNER, repo, 'main', 'other.txt')).toBe('by someone else\n')
      expect(sandbox.readFile(OWNER, repo, 'main', PATH)).toBe(CONTENT)
      // Each attempt pinned the head it was judged at.
      const pinned = mutations(repo).map(
        (r) => JSON.parse(String(r.body)).variables.input.expectedHeadOid
      )
      expect(pinned[1]).toBe(commits.at(-2)!.sha)
      expect(pinned[0]).not.toBe(pinned[1])
    })
  })

  it('lost races are retried past 5, with no real pause, until the deadline; one content request each', async () => {
    const repo = newRepo()
    let n = 0
    const race = () => {
      if (n < 12) void sandbox.writeFile(OWNER, repo, 'main', 'other.txt', `write ${++n}\n`)
    }
    const clock = fakeClock()
    await duringCommits(race, async () => {
      const outcome = await change(repo, { ...clock.options, deadline: 600_000 })
      expect(outcome).toMatchObject({ status: 'created', lostRaces: 12 })
      expect(answers(repo)).toEqual([...Array(12).fill('STALE_DATA'), 'ok'])
      // A lost race costs one content-creating request (the Git Data API took three).
      expect(contentRequests(repo)).toBe(12 + 1)
      // Each attempt re-read the head: the last commit sits on the 12th write of the other writer.
      expect(sandbox.commits(OWNER, repo, 'main').at(-2)!.message).toBe('Update other.txt')
      expect(sandbox.readFile(OWNER, repo, 'main', 'other.txt')).toBe('write 12\n')
      // Jittered and growing, capped at 5 s.
      expect(clock.pauses.slice(0, 4)).toEqual([50, 100, 200, 400])
      expect(Math.max(...clock.pauses)).toBe(2500)
    })
  })

  it('a branch that keeps moving fails at the deadline with what to do; never forced', async () => {
    const repo = newRepo()
    let n = 0
    const race = () => void sandbox.writeFile(OWNER, repo, 'main', 'other.txt', `write ${++n}\n`)
    const clock = fakeClock()
    await duringCommits(race, async () => {
      // Pauses 50, 100, 200 (t = 350); the 4th (400) would end past the deadline of 700.
      await expect(change(repo, { ...clock.options, deadline: 700 })).rejects.toThrow(
        `Branch main of ${OWNER}/${repo} kept moving while the gate committed to it (4 writes of others came first, until the deadline); run the job again.`
      )
      expect(answers(repo)).toEqual(Array(4).fill('STALE_DATA'))
      // Never a ref write: the only writes were the compare-and-set mutations.
      expect(requestsOf(repo).filter((r) => r.method !== 'GET')).toEqual([])
      expect(sandbox.readFile(OWNER, repo, 'main', PATH)).toBeNull()
    })
  })

  it('a file put at a pruned path during the commit is not removed; the removal is dropped', async () => {
    const old = `${DIR}/docker-v1.yaml`
    const repo = newRepo({ 'README.md': '# r\n', [old]: 'old: 1\n' })
    let raced = 0
    const replace = () => {
      if (!raced++) sandbox.writeFile(OWNER, repo, 'main', old, 'someone else: 1\n')
    }
    await duringCommits(replace, async () => {
      const outcome = await change(repo, { deletions: [judged(old, 'old: 1\n')] })
      expect(outcome).toMatchObject({
        status: 'created',
        deleted: [],
        dropped: [{ path: old, reason: 'replaced' }],
        lostRaces: 1
      })
    })
    expect(sandbox.readFile(OWNER, repo, 'main', old)).toBe('someone else: 1\n')
    expect(sandbox.readFile(OWNER, repo, 'main', PATH)).toBe(CONTENT)
  })

  it('a file that differs from the judged blob at the first read is kept too', async () => {
    const old = `${DIR}/docker-v1.yaml`
    const repo = newRepo({ [PATH]: CONTENT, [old]: 'not what was judged\n' })
    const head = sandbox.branchHead(OWNER, repo, 'main')
    const outcome = await change(repo, { deletions: [judged(old, 'old: 1\n')] })
    expect(outcome).toMatchObject({
      status: 'unchanged',
      deleted: [],
      dropped: [{ path: old, reason: 'replaced' }]
    })
    expect(sandbox.branchHead(OWNER, repo, 'main')).toBe(head)
  })

  it('a protection refusal after lost races still fails at once', async () => {
    const repo = newRepo()
    let n = 0
    const raceThenRefuse = () => {
      if (++n <= 2) return void sandbox.writeFile(OWNER, repo, 'main', 'other.txt', `w ${n}\n`)
      if (n === 3) sandbox.protectBranch(OWNER, repo, 'main')
    }
    const clock = fakeClock()
    await duringCommits(raceThenRefuse, async () => {
      await expect(change(repo, clock.options)).rejects.toBeInstanceOf(BranchProtectedError)
      expect(answers(repo)).toEqual([
        'STALE_DATA',
        'STALE_DATA',
        'BRANCH_PROTECTION_RULE_VIOLATION'
      ])
    })
  })

  it('a commit answered 502 after it was stored is not sent again: the branch tells', async () => {
    const repo = newRepo()
    const gitops = retrying()
    sandbox.failAfterStoring(1, (method, path) => method === 'POST' && path === '/graphql')
    const outcome = await change(repo, { octokit: gitops, ...fakeClock().options })
    expect(outcome).toMatchObject({ status: 'created', lostRaces: 0 })
    expect(outcome.commitSha).toBe(sandbox.branchHead(OWNER, repo, 'main'))
    expect(outcome.commitUrl).toContain(`/${OWNER}/${repo}/commit/${outcome.commitSha}`)
    expect(answers(repo)).toEqual([502])
    expect(
      sandbox.commits(OWNER, repo, 'main').filter((c) => c.sha === outcome.commitSha)
    ).toHaveLength(1)
  })

  it('a commit answered 502 before it was stored is sent again, still compare-and-set', async () => {
    const repo = newRepo()
    const gitops = retrying()
    let failed = 0
    const fail = () => {
      if (!failed++) throw new HttpFailure(502, 'Server Error', DOCS.rest)
    }
    await duringCommits(fail, async () => {
      const outcome = await change(repo, { octokit: gitops, ...fakeClock().options })
      expect(outcome).toMatchObject({ status: 'created', lostRaces: 0 })
      expect(answers(repo)).toEqual([502, 'ok'])
      const pinned = mutations(repo).map(
        (r) => JSON.parse(String(r.body)).variables.input.expectedHeadOid
      )
      expect(pinned[0]).toBe(pinned[1])
      expect(sandbox.commits(OWNER, repo, 'main').at(-1)!.sha).toBe(outcome.commitSha)
    })
  })

  it('a lost answer while another writer moved the branch is a lost race, built again', async () => {
    const repo = newRepo()
    const gitops = retrying()
    let n = 0
    const failThenRace = () => {
      n += 1
      if (n === 1) throw new HttpFailure(502, 'Server Error', DOCS.rest)
      if (n === 2) void sandbox.writeFile(OWNER, repo, 'main', 'other.txt', 'w\n')
    }
    // The other writer lands during the gate's pause after the lost answer (before its compare).
    const stop = sandbox.beforeRequest((method, path) => {
      if (method === 'GET' && path.includes(`/${repo}/compare/`)) failThenRace()
    })
    await duringCommits(failThenRace, async () => {
      const outcome = await change(repo, { octokit: gitops, ...fakeClock().options })
      expect(outcome).toMatchObject({ status: 'created', lostRaces: 1 })
      expect(answers(repo)).toEqual([502, 'ok'])
      expect(sandbox.readFile(OWNER, repo, 'main', 'other.txt')).toBe('w\n')
      expect(sandbox.readFile(OWNER, repo, 'main', PATH)).toBe(CONTENT)
    }).finally(() => stop())
  })

  it('a new branch whose create was answered 502 after it was stored counts as created', async () => {
    const repo = newRepo()
    const gitops = retrying()
    sandbox.failAfterStoring(
      1,
      (method, path) => method === 'POST' && path.endsWith(`/${repo}/git/refs`)
    )
    const outcome = await change(repo, {
      octokit: gitops,
      branch: 'coder-template-gate/docker-v2',
      baseBranch: 'main',
      ...fakeClock().options
    })
    expect(outcome).toMatchObject({ status: 'created', lostRaces: 0 })
    expect(sandbox.branchHead(OWNER, repo, 'coder-template-gate/docker-v2')).toBe(outcome.commitSha)
    const creates = requestsOf(repo, 'POST').filter((r) => r.path.endsWith('/git/refs'))
    expect(creates.map((r) => r.status)).toEqual([502])
  })

  it('twelve writers racing for one branch all land, each on a re-read head, none forced', async () => {
    const repo = newRepo()
    const writers = Array.from({ length: 12 }, (_, i) => `${DIR}/docker-w${i}.yaml`)
    // Real pauses, shortened 20 times, so that the writers interleave without a real backoff.
    const clock = { ...systemClock, sleep: (ms: number) => sleep(ms / 20) }
    const outcomes = await Promise.all(
      writers.map((path) =>
        commitChange({
          octokit,
          owner: OWNER,
          repo,
          branch: 'main',
          manifests: [{ path, content: `${path}\n`, isSame: () => true }],
          deletions: [],
          message: `write ${path}`,
          clock
        })
      )
    )
    expect(outcomes.map((o) => o.status)).toEqual(writers.map(() => 'created'))
    for (const path of writers)
      expect(sandbox.readFile(OWNER, repo, 'main', path)).toBe(`${path}\n`)
    // One commit each on a linear history: every lost race was built again on the new head.
    expect(sandbox.commits(OWNER, repo, 'main')).toHaveLength(1 + writers.length)
    const lost = outcomes.reduce((sum, o) => sum + o.lostRaces, 0)
    expect(lost).toBe(answers(repo).filter((a) => a === 'STALE_DATA').length)
    // One content-creating request per attempt: a lost race costs one, never a ref write.
    expect(contentRequests(repo)).toBe(writers.length + lost)
    expect(requestsOf(repo).filter((r) => r.method !== 'GET')).toEqual([])
  })

  it('a request with no answer fails after requestTimeoutMs; a cancel stays the cancel', async () => {
    const repo = newRepo()
    // createGitOpsOctokit: its abort hook turns the time limit into a TimeoutError.
    const gitops = createGitOpsOctokit({ token: sandbox.token, baseUrl: sandbox.url, retries: 0 })
    sandbox.hangNextRequests(1)
    await expect(change(repo, { octokit: gitops, requestTimeoutMs: 200 })).rejects.toThrow(
      `GitHub did not answer in time while reading branch main in ${OWNER}/${repo}.`
    )
    const signal = AbortSignal.abort(new Error('cancelled by the test'))
    await expect(change(repo, { signal })).rejects.toThrow('cancelled by the test')
    expect(sandbox.readFile(OWNER, repo, 'main', PATH)).toBeNull()
  })
})

describe('listManifestFiles', () => {
  const list = (repo: string, folder: string, ref = 'main') =>
    listManifestFiles({ octokit, owner: OWNER, repo, ref, folder })

  it('lists the direct *.yaml and *.yml children of the folder with their content', async () => {
    const repo = newRepo({
      'README.md': '# r\n',
      'root.yaml': 'at: root\n',
      [`${DIR}/a.yaml`]: 'a: 1\n',
      [`${DIR}/b.yml`]: 'b: 2\n',
      [`${DIR}/notes.txt`]: 'not yaml\n',
      [`${DIR}/c.yaml.bak`]: 'backup\n',
      [`${DIR}/sub/d.yaml`]: 'nested\n',
      [`${DIR}-other/e.yaml`]: 'a sibling folder\n'
    })
    const file = (path: string, content: string) => ({
      path,
      content,
      sha: judged(path, content).blobSha
    })
    const expected = {
      files: [file(`${DIR}/a.yaml`, 'a: 1\n'), file(`${DIR}/b.yml`, 'b: 2\n')],
      cut: ''
    }
    expect(await list(repo, DIR)).toEqual(expected)
    expect(await list(repo, `${DIR}/`)).toEqual(expected)
    expect(await list(repo, '')).toEqual({ files: [file('root.yaml', 'at: root\n')], cut: '' })
  })

  it("reads the folder's own tree, not the whole repository's", async () => {
    const repo = newRepo({ [`a/${DIR}/x.yaml`]: 'x: 1\n', 'b/deep/y.yaml': 'y\n' })
    const before = requestsOf(repo, 'GET').length
    expect((await list(repo, `a/${DIR}`)).files.map((f) => f.path)).toEqual([`a/${DIR}/x.yaml`])
    const trees = requestsOf(repo, 'GET')
      .slice(before)
      .filter((r) => r.path.includes('/git/trees/'))
    expect(trees).toHaveLength(3)
    expect(trees.every((r) => !r.path.includes('recursive'))).toBe(true)
  })

  it('a tree that GitHub cut is said in the listing', async () => {
    const repo = newRepo({ [`${DIR}/a.yaml`]: 'a: 1\n', [`${DIR}/b.yaml`]: 'b: 2\n' })
    sandbox.truncateTrees(1)
    try {
      const listing = await list(repo, DIR)
      expect(listing.files.map((f) => f.path)).toEqual([`${DIR}/a.yaml`])
      expect(listing.cut).toBe(`GitHub cut the listing of ${DIR} (truncated)`)
    } finally {
      sandbox.truncateTrees(null)
    }
  })

  it('a read with no answer fails after requestTimeoutMs, naming what it read', async () => {
    const repo = newRepo({ [`${DIR}/a.yaml`]: 'a: 1\n' })
    const gitops = createGitOpsOctokit({ token: sandbox.token, baseUrl: sandbox.url, retries: 0 })
    const timed = { octokit: gitops, owner: OWNER, repo, ref: 'main', requestTimeoutMs: 200 }
    sandbox.hangNextRequests(1)
    await expect(listManifestFiles({ ...timed, folder: DIR })).rejects.toThrow(
      `GitHub did not answer in time while listing ${DIR} in ${OWNER}/${repo}.`
    )
    sandbox.hangNextRequests(1)
    await expect(readFileAt({ ...timed, path: `${DIR}/a.yaml` })).rejects.toThrow(
      `GitHub did not answer in time while reading ${DIR}/a.yaml in ${OWNER}/${repo}.`
    )
  })

  it('[] when the folder does not exist; a missing branch fails with what to check', async () => {
    const repo = newRepo()
    expect(await list(repo, DIR)).toEqual({ files: [], cut: '' })
    await expect(list(repo, DIR, 'no-such-branch')).rejects.toThrow(
      `GitHub refused listing ${DIR} in ${OWNER}/${repo} (404 Not Found)`
    )
  })
})
