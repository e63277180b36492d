// The contract of a Git host (src/gitops/host.ts), as one table that runs against every
// implementation: the GitHub adapter on the GitHub sandbox (test/gitops/github/host.test.ts) and
// the in-memory host of the step tests (test/unit/gitops/memory-host.test.ts). A case that passes
// on one and fails on the other is drift of the fake.
import { describe, expect, it } from '@jest/globals'
import { ForeignChangeError } from '../../src/gitops/branch-guard.js'
import type { ChangeInput, GitHost, HostCall } from '../../src/gitops/host.js'
import { gitBlobSha } from '../sandbox/github/git-objects.js'
import { FakeClock } from '../timing/fake-clock.js'

export interface ContractWorld {
  host: GitHost
  /** The account the host links the gate's writes to. */
  gateLogin: string
  /** Another writer commits to the branch, rules ignored; returns the SHA. */
  push(branch: string, path: string, content: string): string
  /** The branch's rules refuse a direct write. */
  protect(branch: string): void
}

const PATH = 'tests/docker-v2.yaml'
// A pause (a merge not allowed yet) passes at once; deadlines are on Date.now().
const call = (): HostCall => ({
  signal: new AbortController().signal,
  clock: new FakeClock(Date.now())
})
const change = (content = 'kind: Test\n', more: Partial<ChangeInput> = {}): ChangeInput => ({
  branch: 'main',
  manifests: [{ path: PATH, content, isSame: (existing) => existing === content }],
  deletions: [],
  message: 'Test docker v2',
  ...more
})
const failureOf = async (host: GitHost, work: Promise<unknown>) =>
  host.failureOf(
    await work.then(
      () => new Error('no error'),
      (error: unknown) => error
    )
  )

/** The table; `newWorld` makes a fresh repository with main holding `files`. */
export function describeHostContract(
  name: string,
  newWorld: (files: Record<string, string>) => Promise<ContractWorld> | ContractWorld
): void {
  describe(`Git host contract: ${name}`, () => {
    it('inspect: the default branch for "", a missing branch as missing', async () => {
      const { host } = await newWorld({ 'README.md': '# r\n' })
      expect(await host.inspect('', call())).toMatchObject({
        repository: 'found',
        branch: 'main',
        branchExists: true,
        pullRequestRequiredBy: null
      })
      expect(await host.inspect('nope', call())).toMatchObject({ branchExists: false })
    })

    it('readFile: null when absent; the text at a branch and at a commit', async () => {
      const { host, push } = await newWorld({ 'a.yaml': 'a: 1\n' })
      expect(await host.readFile('main', 'missing.yaml', call())).toBeNull()
      const sha = push('main', 'a.yaml', 'a: 2\n')
      expect(await host.readFile('main', 'a.yaml', call())).toBe('a: 2\n')
      expect(await host.readFile(sha, 'a.yaml', call())).toBe('a: 2\n')
      expect((await host.branchHead('main', call())).sha).toBe(sha)
    })

    it('commit: created once, then unchanged; the link is the host link of the commit', async () => {
      const { host } = await newWorld({ 'README.md': '# r\n' })
      const first = await host.commit(change(), call())
      expect(first).toMatchObject({ status: 'created', branch: 'main', lostRaces: 0 })
      expect(first.commitUrl).toBe(host.links.commit(first.commitSha))
      expect((await host.branchHead('main', call())).sha).toBe(first.commitSha)
      const again = await host.commit(change(), call())
      expect(again).toMatchObject({ status: 'unchanged', commitSha: '' })
      expect(again.commitUrl).toBeUndefined()
    })

    it('commit: other content at the path is a manifest-conflict; a rule a branch-protected', async () => {
      const world = await newWorld({ [PATH]: 'kind: Other\n' })
      const conflict = await failureOf(world.host, world.host.commit(change(), call()))
      expect(conflict?.kind).toBe('manifest-conflict')
      const other = await newWorld({ 'README.md': '# r\n' })
      other.protect('main')
      const refused = await failureOf(other.host, other.host.commit(change(), call()))
      expect(refused?.kind).toBe('branch-protected')
      expect(other.host.failureOf(new Error('anything else'))).toBeNull()
    })

    it('commit: a new branch from its base; removals only of the blob judged', async () => {
      const files = { 'tests/a.yaml': 'a: 1\n', 'tests/b.yaml': 'b: 1\n' }
      const { host } = await newWorld(files)
      const deletions = [
        { path: 'tests/a.yaml', blobSha: gitBlobSha('a: 1\n') },
        { path: 'tests/b.yaml', blobSha: gitBlobSha('b: changed\n') }
      ]
      const outcome = await host.commit(
        change(undefined, { branch: 'gate/x', baseBranch: 'main', deletions }),
        call()
      )
      expect(outcome).toMatchObject({
        status: 'created',
        branch: 'gate/x',
        deleted: ['tests/a.yaml']
      })
      expect(outcome.dropped).toEqual([{ path: 'tests/b.yaml', reason: 'replaced' }])
      expect(await host.readFile('gate/x', 'tests/a.yaml', call())).toBeNull()
      expect(await host.readFile('main', 'tests/a.yaml', call())).toBe('a: 1\n')
    })

    it('listManifests: the YAML files directly in the folder, with their blob SHA', async () => {
      const { host } = await newWorld({
        'tests/a.yaml': 'a: 1\n',
        'tests/b.yml': 'b: 1\n',
        'tests/notes.txt': 'x\n',
        'tests/deeper/c.yaml': 'c: 1\n',
        'other/d.yaml': 'd: 1\n'
      })
      const listing = await host.listManifests('main', 'tests', call())
      expect(listing.cut).toBe('')
      expect(listing.files.map((f) => f.path).sort()).toEqual(['tests/a.yaml', 'tests/b.yml'])
      expect(listing.files.find((f) => f.path === 'tests/a.yaml')).toEqual({
        path: 'tests/a.yaml',
        content: 'a: 1\n',
        sha: gitBlobSha('a: 1\n')
      })
      expect((await host.listManifests('main', 'none', call())).files).toEqual([])
    })

    it('pull request: opened once, reused; merged at once (immediate); the wait sees it', async () => {
      const { host } = await newWorld({ 'README.md': '# r\n' })
      expect(await host.forwardSpentBranch('gate/x', 'main', call())).toBe(false)
      const committed = await host.commit(
        change(undefined, { branch: 'gate/x', baseBranch: 'main' }),
        call()
      )
      const open = { head: 'gate/x', base: 'main', title: 'Test', body: 'body', labels: ['gate'] }
      const pr = await host.openPullRequest(open, call())
      expect(pr).toMatchObject({
        state: 'open',
        merged: false,
        reused: false,
        headSha: committed.commitSha
      })
      const again = await host.openPullRequest(open, call())
      expect(again).toMatchObject({ number: pr.number, reused: true })
      const deadline = Date.now() + 30_000
      const requested = await host.requestMerge(
        { pullRequest: pr, strategy: 'immediate', method: 'squash', deadline },
        call()
      )
      expect(requested.kind).toBe('merged')
      const merged = await host.waitForMerge({ number: pr.number, deadline }, call())
      expect(merged.mergeCommitSha).toBe((await host.branchHead('main', call())).sha)
      expect(merged.headSha).toBe(committed.commitSha)
      expect(await host.readFile('main', PATH, call())).toBe('kind: Test\n')
      expect(
        await host.requestMerge(
          { pullRequest: pr, strategy: 'manual', method: 'squash', deadline },
          call()
        )
      ).toEqual({ kind: 'manual' })
    })

    it('the wait past its deadline is a merge-timeout; a foreign push fails the guard', async () => {
      const { host, push, gateLogin } = await newWorld({ 'README.md': '# r\n' })
      const committed = await host.commit(
        change(undefined, { branch: 'gate/x', baseBranch: 'main' }),
        call()
      )
      const pr = await host.openPullRequest(
        { head: 'gate/x', base: 'main', title: 'T', body: 'b', labels: [] },
        call()
      )
      const late = await failureOf(
        host,
        host.waitForMerge({ number: pr.number, deadline: Date.now() - 1 }, call())
      )
      expect(late?.kind).toBe('merge-timeout')
      const gate = {
        base: 'main',
        manifests: [
          { path: PATH, text: (await host.readFile(committed.commitSha, PATH, call()))! }
        ],
        removals: []
      }
      const guard = { number: pr.number, branch: 'gate/x', headSha: committed.commitSha, gate }
      await expect(host.guardBranch(guard, call())).resolves.toBeUndefined()
      void gateLogin
      const rewritten = push('gate/x', PATH, 'kind: Secret\n')
      const forged = await host
        .guardBranch({ ...guard, headSha: rewritten }, call())
        .catch((e: unknown) => e)
      expect((forged as Error).message).toContain(`${PATH} at its head holds other bytes`)
      const foreign = push('gate/x', 'apps/prod.yaml', 'replicas: 9\n')
      const refused = await host
        .guardBranch({ ...guard, headSha: foreign }, call())
        .catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(ForeignChangeError)
      expect((refused as Error).message).toContain('it changes apps/prod.yaml')
      const moved = await failureOf(
        host,
        host.waitForMerge(
          {
            number: pr.number,
            deadline: Date.now() + 30_000,
            expectedHeadSha: committed.commitSha
          },
          call()
        )
      )
      expect(moved?.kind).toBe('head-moved')
    })
  })
}
