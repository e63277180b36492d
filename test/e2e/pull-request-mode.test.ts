// End to end, the issue "GitOps through pull requests": gitops-mode: pull-request with each merge
// setting, re-runs, a pull request closed without merging, a cancel while waiting for the merge,
// and keep-tests pruning in the same change.
import { describe, expect, it } from '@jest/globals'
import { seedOlderVersions } from './older-versions.js'
import {
  GITOPS_PATH,
  GITOPS_REPO,
  NAMESPACE,
  OWNER,
  type World,
  type WorldOptions
} from '../sandbox/world.js'
import { expectNoSecrets } from './expect.js'
import { activeVersionName, manifestInGit, promoteRequests } from './world-reads.js'
import { oneWorldPerTest, whenLogged } from './world-per-test.js'

const BRANCH = 'coder-template-gate/docker-v1-0-0'

/** A GitOps repository whose main branch requires a pull request, as most platform teams run it. */
const startOneWorld = oneWorldPerTest()

async function protectedWorld(options: WorldOptions = {}): Promise<World> {
  const world = await startOneWorld({
    gitopsRepoSettings: { allowAutoMerge: true, mergeabilityDelayMs: 20, autoMergeDelayMs: 20 },
    ...options
  })
  world.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
  world.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
  return world
}

const PR_MODE = { 'gitops-mode': 'pull-request', 'pull-request-labels': 'coder, gate' }

describe('gitops-mode: pull-request, end to end', () => {
  it.each(['auto', 'immediate'])(
    'opens a pull request, merges it (%s), waits for the test and promotes',
    async (merge) => {
      const w = await protectedWorld()
      const run = await w.run({ ...PR_MODE, 'pull-request-merge': merge })
      expect(run.stderr).toBe('')
      expect(run.exitCode).toBe(0)
      const [pr] = w.github.pullRequests(OWNER, GITOPS_REPO)
      expect(pr).toMatchObject({ head: BRANCH, base: 'main', merged: true })
      expect(pr!.title).toContain('acme.docker')
      expect(pr!.title).toContain('v1.0.0')
      expect(pr!.body).toContain('4242') // the run link
      expect(pr!.body).toContain(run.outputs['version-id'])
      expect(pr!.labels.sort()).toEqual(['coder', 'gate'])
      expect(run.outputs['pull-request-number']).toBe(String(pr!.number))
      expect(run.outputs['pull-request-url']).toContain(`/pull/${pr!.number}`)
      expect(run.outputs['commit-sha']).toBe(pr!.mergeCommitSha)
      expect(run.outputs['promotion-result']).toBe('Promoted')
      expect(manifestInGit(w, 'docker-v1-0-0')).not.toBeNull()
      expect(activeVersionName(w)).toBe('v1.0.0')
      expectNoSecrets(w, run)
    }
  )

  it('with manual, waits for someone to merge, then promotes; a re-run opens nothing new', async () => {
    const w = await protectedWorld()
    const merge = whenLogged('for someone to merge', () => {
      const [pr] = w.github.pullRequests(OWNER, GITOPS_REPO)
      w.github.mergePullRequest(OWNER, GITOPS_REPO, pr!.number, { login: 'reviewer' })
    })
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'manual' }, {}, merge)
    expect(merge.firedAt).toBeGreaterThan(0)
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    const commits = w.github.commits(OWNER, GITOPS_REPO, 'main').length
    const again = await w.run({ ...PR_MODE, 'pull-request-merge': 'manual' }, { runId: '4243' })
    expect(again.exitCode).toBe(0)
    expect(again.outputs['promotion-result']).toBe('AlreadyActive')
    expect(w.github.pullRequests(OWNER, GITOPS_REPO)).toHaveLength(1)
    expect(w.github.commits(OWNER, GITOPS_REPO, 'main')).toHaveLength(commits)
  })

  it('reuses the open pull request on a re-run instead of opening another', async () => {
    const w = await protectedWorld()
    const first = await w.run({
      ...PR_MODE,
      'pull-request-merge': 'manual',
      'merge-timeout-seconds': '1'
    })
    expect(first.exitCode).toBe(1)
    expect(first.summary).toContain('stays open')
    const [pr] = w.github.pullRequests(OWNER, GITOPS_REPO)
    expect(pr!.state).toBe('open')
    const headBefore = w.github.branchHead(OWNER, GITOPS_REPO, BRANCH)
    const second = await w.run({ ...PR_MODE, 'pull-request-merge': 'immediate' }, { runId: '4243' })
    expect(second.exitCode).toBe(0)
    expect(second.stdout).toContain(`reused pull request #${pr!.number}`)
    expect(w.github.pullRequests(OWNER, GITOPS_REPO)).toHaveLength(1)
    expect(w.github.branchHead(OWNER, GITOPS_REPO, BRANCH) ?? headBefore).toBe(headBefore)
    expect(second.outputs['promotion-result']).toBe('Promoted')
  })

  it('fails when the pull request is closed without merging, and says who closed it', async () => {
    const w = await protectedWorld()
    const close = whenLogged('for someone to merge', () => {
      const [pr] = w.github.pullRequests(OWNER, GITOPS_REPO)
      w.github.closePullRequest(OWNER, GITOPS_REPO, pr!.number, 'mallory')
    })
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'manual' }, {}, close)
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('mallory')
    expect(run.outputs['promotion-result']).toBe('')
    expect(w.kube.store.list(NAMESPACE)).toHaveLength(0)
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
  })

  it('stops promptly on SIGINT while waiting for the merge and leaves the pull request open', async () => {
    const w = await protectedWorld()
    const cancel = whenLogged('for someone to merge', (child) => child.kill('SIGINT'))
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'manual' }, {}, cancel)
    expect(cancel.firedAt).toBeGreaterThan(0)
    expect(run.exitCode).not.toBe(0)
    const [pr] = w.github.pullRequests(OWNER, GITOPS_REPO)
    expect(pr!.state).toBe('open')
    expect(run.summary).toContain(`/pull/${pr!.number}`)
    expect(run.summary).toContain('cancelled')
    expect(promoteRequests(w)).toBe(0)
  })

  it('fails before waiting when auto-merge is not allowed, and says how to allow it', async () => {
    const w = await protectedWorld({ gitopsRepoSettings: { allowAutoMerge: false } })
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'auto' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('Allow auto-merge')
    expect(w.coder.cliInvocations).toHaveLength(0)
  })
})

describe('keep-tests, end to end', () => {
  it('removes the older manifests beyond the N newest in the same commit, never the active one or a hand-written one', async () => {
    const w = await startOneWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.1.0' })
    seedOlderVersions(w, ['v0.2.0', 'v0.3.0', 'v0.4.0', 'v0.5.0'])
    // The active version is the oldest gate-written one: it stays.
    w.coder.activateVersion({ template: 'docker', version: 'v0.2.0' })
    const handWritten = `${GITOPS_PATH}/by-hand.yaml`
    w.github.writeFile(OWNER, GITOPS_REPO, 'main', handWritten, 'apiVersion: v1\nkind: ConfigMap\n')
    const commitsBefore = w.github.commits(OWNER, GITOPS_REPO, 'main').length
    w.github.injectConflicts(1, 422) // a race during the pruning commit
    const run = await w.run({ 'keep-tests': '2' })
    expect(run.exitCode).toBe(0)
    const pruned = run.outputs['pruned-manifests']!.split(',')
    expect(pruned.sort()).toEqual([
      `${GITOPS_PATH}/docker-v0-3-0.yaml`,
      `${GITOPS_PATH}/docker-v0-4-0.yaml`
    ])
    expect(run.summary).toContain('docker-v0-3-0.yaml')
    // One commit of the gate (the race added one of another writer): the manifest and the removals.
    const gate = w.github
      .commits(OWNER, GITOPS_REPO, 'main')
      .slice(commitsBefore)
      .filter((c) => c.author.name !== 'other-writer')
    expect(gate).toHaveLength(1)
    expect([...gate[0]!.changes.keys()].sort()).toEqual([
      `${GITOPS_PATH}/docker-v0-3-0.yaml`,
      `${GITOPS_PATH}/docker-v0-4-0.yaml`,
      `${GITOPS_PATH}/docker-v1-0-0.yaml`
    ])
    for (const kept of ['docker-v0-2-0', 'docker-v0-5-0', 'docker-v1-0-0'])
      expect(manifestInGit(w, kept)).not.toBeNull()
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', handWritten)).not.toBeNull()
    expectNoSecrets(w, run)
  })
})
