// A lost answer to the commit mutation is looked for on the branch, always: after a 5xx, after
// GitHub's GraphQL timeout (HTTP 200, data null, an error without `type`), with or without the
// retry plugin, and after the last attempt. "Nothing was committed" only when the branch proves it.
// commitChange against the GitHub sandbox over real HTTP.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { getOctokit } from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import {
  type CommitChangeInput,
  commitChange
} from '../../../../src/gitops/github/commit/change.js'
import { CommitOutcomeUnknown } from '../../../../src/gitops/github/commit/commit-on-branch.js'
import type { GitOpsOctokit } from '../../../../src/gitops/github/client/octokit.js'
import {
  buildTestManifest,
  parseManifest,
  renderManifest,
  sameTest
} from '../../../../src/objects/manifest.js'
import { DOCS, HttpFailure } from '../../../sandbox/github/errors.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.js'
import { FakeClock } from '../../../timing/fake-clock.js'

const OWNER = 'acme'
const PATH = 'coder-template-tests/docker-v2.yaml'
const MUTATION = 'createCommitOnBranch'

let sandbox: GitHubSandbox
let repoCounter = 0

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
})
afterAll(() => sandbox.close())

const wanted = buildTestManifest({
  organization: 'acme',
  template: 'docker',
  version: 'v2',
  testName: 'docker-v2',
  namespace: 'coder-tests',
  controlPlane: 'coder',
  parameters: [],
  timeoutSeconds: 600
})

function newRepo(): string {
  repoCounter += 1
  const repo = `lost-${repoCounter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch: 'main', files: { 'README.md': '# r\n' } })
  return repo
}

/** With the retry plugin (as the bundle), or without it: the outcome must not depend on it. */
const octokits: [string, () => GitOpsOctokit][] = [
  [
    'with the retry plugin',
    () =>
      getOctokit(sandbox.token, { baseUrl: sandbox.url, retry: { retryAfterBaseValue: 1 } }, retry)
  ],
  ['without the retry plugin', () => getOctokit(sandbox.token, { baseUrl: sandbox.url })]
]

function change(repo: string, octokit: GitOpsOctokit, more: Partial<CommitChangeInput> = {}) {
  return commitChange({
    octokit,
    owner: OWNER,
    repo,
    branch: 'main',
    manifests: [
      {
        path: PATH,
        content: renderManifest(wanted),
        isSame: (existing: string) => sameTest(parseManifest(existing), wanted)
      }
    ],
    deletions: [],
    message: 'Test acme.docker version v2',
    clock: new FakeClock(),
    random: () => 0.5,
    ...more
  })
}

const mutations = (repo: string) =>
  sandbox.requests.filter(
    (r) =>
      r.method === 'POST' && r.path === '/graphql' && String(r.body).includes(`"${OWNER}/${repo}"`)
  )
const commitsOf = (repo: string) => sandbox.commits(OWNER, repo, 'main')

describe.each(octokits)('a lost commit answer, %s', (_, octokitOf) => {
  it.each([
    ["GitHub's GraphQL timeout", undefined],
    ['another error without a type', 'Timeout on validation of query']
  ])('%s at the first attempt, stored: found on the branch, one commit', async (_, text) => {
    const repo = newRepo()
    const before = commitsOf(repo).length
    sandbox.timeOutAfterStoring(1, MUTATION, text)
    const outcome = await change(repo, octokitOf())
    expect(outcome).toMatchObject({ status: 'created', lostRaces: 0 })
    expect(commitsOf(repo)).toHaveLength(before + 1)
    expect(commitsOf(repo).at(-1)!.sha).toBe(outcome.commitSha)
    expect(mutations(repo)).toHaveLength(1)
  })

  it('a GraphQL timeout at the last attempt, stored: looked for, one commit', async () => {
    const repo = newRepo()
    const before = commitsOf(repo).length
    sandbox.failGraphqlUnstored(2, MUTATION)
    sandbox.timeOutAfterStoring(1, MUTATION)
    const outcome = await change(repo, octokitOf())
    expect(outcome).toMatchObject({ status: 'created' })
    expect(commitsOf(repo)).toHaveLength(before + 1)
    expect(mutations(repo)).toHaveLength(3)
  })

  it('no clear answer at any attempt, nothing stored: the branch proves nothing was committed', async () => {
    const repo = newRepo()
    const head = sandbox.branchHead(OWNER, repo, 'main')!
    sandbox.failGraphqlUnstored(3, MUTATION)
    const error = await change(repo, octokitOf()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain(
      `3 times (last: GitHub answered 502 Server Error while committing to branch main in ${OWNER}/${repo}.); the branch is still at ${head.slice(0, 7)}, so nothing was committed.`
    )
    expect(sandbox.branchHead(OWNER, repo, 'main')).toBe(head)
    expect(mutations(repo)).toHaveLength(3)
  })

  it('a lost answer, and another writer’s commit with our message: not ours, our change is committed', async () => {
    const repo = newRepo()
    const before = commitsOf(repo).length
    sandbox.failGraphqlUnstored(1, MUTATION)
    let forged = ''
    const stop = sandbox.beforeRequest((method, path) => {
      if (!forged && method === 'POST' && path === '/graphql')
        forged = sandbox.writeFile(
          OWNER,
          repo,
          'main',
          'apps/prod.yaml',
          'x\n',
          'Test acme.docker version v2'
        )
    })
    const outcome = await change(repo, octokitOf()).finally(() => stop())
    expect(forged).not.toBe('')
    expect(outcome).toMatchObject({ status: 'created' })
    expect(outcome.commitSha).not.toBe(forged)
    expect(commitsOf(repo)).toHaveLength(before + 2)
    expect(sandbox.readFile(OWNER, repo, 'main', PATH)).toBe(renderManifest(wanted))
  })

  it('a timeout, stored, and the commit’s diff cannot be read: not claimed, judged again, one commit', async () => {
    const repo = newRepo()
    const before = commitsOf(repo).length
    sandbox.timeOutAfterStoring(1, MUTATION)
    const stop = sandbox.beforeRequest((method, path) => {
      if (method === 'GET' && new RegExp(`/${repo}/commits/[0-9a-f]{40}`).test(path))
        throw new HttpFailure(502, 'Server Error', DOCS.rest)
    })
    const outcome = await change(repo, octokitOf()).finally(() => stop())
    // The manifest is on the branch; this run cannot prove the commit its own, so it names none.
    expect(outcome).toMatchObject({ status: 'unchanged', commitSha: '' })
    expect(commitsOf(repo)).toHaveLength(before + 1)
    expect(sandbox.readFile(OWNER, repo, 'main', PATH)).toBe(renderManifest(wanted))
    expect(mutations(repo)).toHaveLength(1)
  })

  it('a timeout, and the branch cannot be read: the outcome is unknown, never "nothing"', async () => {
    const repo = newRepo()
    sandbox.timeOutAfterStoring(1, MUTATION)
    const stop = sandbox.beforeRequest((method, path) => {
      if (method === 'GET' && path.includes(`/${repo}/compare/`))
        throw new HttpFailure(502, 'Server Error', DOCS.rest)
    })
    const error = await change(repo, octokitOf())
      .catch((e: unknown) => e)
      .finally(() => stop())
    expect(error).toBeInstanceOf(CommitOutcomeUnknown)
    expect((error as Error).message).toContain('could not be read to tell whether it landed')
    expect((error as Error).message).not.toContain('nothing was committed')
    // It did land: only the branch can tell, and the gate said so.
    expect(sandbox.readFile(OWNER, repo, 'main', PATH)).not.toBeNull()
  })
})
