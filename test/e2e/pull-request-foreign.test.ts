// End to end: pull-request mode merges only what the gate wrote, and a
// merged pull request is done only while its manifest is on the base branch.
import { describe, expect, it } from '@jest/globals'
import { GITOPS_PATH, GITOPS_REPO, OWNER, type World, type WorldOptions } from '../sandbox/world.js'
import { activeVersionName, manifestInGit, promoteRequests } from './world-reads.js'
import { oneWorldPerTest } from './world-per-test.js'

const BRANCH = 'coder-template-gate/docker-v1-0-0'
const PR_MODE = { 'gitops-mode': 'pull-request' }
const startOneWorld = oneWorldPerTest()

async function protectedWorld(options: WorldOptions = {}): Promise<World> {
  const world = await startOneWorld({
    gitopsRepoSettings: { allowAutoMerge: true, mergeabilityDelayMs: 20, autoMergeDelayMs: 20 },
    ...options
  })
  world.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
  return world
}

function expectNothingMerged(w: World): void {
  const [pr] = w.github.pullRequests(OWNER, GITOPS_REPO)
  expect(pr).toMatchObject({ state: 'open', merged: false, autoMerge: null })
  expect(manifestInGit(w, 'docker-v1-0-0')).toBeNull()
  expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', 'apps/prod.yaml')).toBeNull()
  expect(promoteRequests(w)).toBe(0)
  expect(activeVersionName(w)).toBe('v0.9.0')
}

describe('pull-request mode merges only what the gate wrote', () => {
  it('a commit pushed to the gate’s branch while GitHub refuses the merge for now is never merged', async () => {
    const w = await protectedWorld({
      gitopsRepoSettings: { mergeabilityDelayMs: 20, checksDurationMs: 600_000 }
    })
    w.github.addRuleset(OWNER, GITOPS_REPO, {
      requirePullRequest: true,
      requiredStatusChecks: ['ci']
    })
    let foreign = ''
    w.github.beforeRequest((method, path) => {
      // After GitHub's first "not now" (405, the check is expected), someone pushes.
      if (!foreign && method === 'PUT' && path.endsWith('/merge'))
        setTimeout(() => {
          foreign = w.github.writeFile(OWNER, GITOPS_REPO, BRANCH, 'apps/prod.yaml', 'x: 1\n')
        }, 50)
    })
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'immediate' })
    expect(foreign).not.toBe('')
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('it changes apps/prod.yaml, which the gate did not write')
    expect(run.stdout).toContain(BRANCH)
    expect(run.stdout).not.toContain('conflicts with its base branch')
    expect(run.summary).toContain('foreign-change')
    expectNothingMerged(w)
  })

  it('a leftover gate branch that already holds a foreign commit is not merged (auto)', async () => {
    const w = await protectedWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    w.github.createBranch(OWNER, GITOPS_REPO, BRANCH)
    const foreign = w.github.writeFile(OWNER, GITOPS_REPO, BRANCH, 'apps/prod.yaml', 'x: 1\n')
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'auto' })
    expect(run.exitCode).toBe(1)
    expect(foreign).not.toBe('')
    expect(run.stdout).toContain('it changes apps/prod.yaml, which the gate did not write')
    expect(run.stdout).toContain(`delete ${BRANCH}`)
    // The commit goes through GraphQL too (createCommitOnBranch); auto-merge never did.
    const auto = w.github.requests.filter(
      (r) => r.path.endsWith('/graphql') && String(r.body).includes('AutoMerge')
    )
    expect(auto).toHaveLength(0)
    expectNothingMerged(w)
  })
})

describe('nothing merges once no run watches', () => {
  it('a merge timeout turns auto-merge off again; the summary says so and that the pull request stays open', async () => {
    const w = await protectedWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, {
      requirePullRequest: { requiredApprovingReviewCount: 1 }
    })
    const run = await w.run({
      ...PR_MODE,
      'pull-request-merge': 'auto',
      'merge-timeout-seconds': '1'
    })
    expect(run.exitCode).toBe(1)
    const [pr] = w.github.pullRequests(OWNER, GITOPS_REPO)
    expect(pr).toMatchObject({ state: 'open', merged: false, autoMerge: null })
    expect(run.summary).toContain('stays open')
    expect(run.summary).toContain('turned its auto-merge off')
    // A review after the run merges nothing.
    w.github.approvePullRequest(OWNER, GITOPS_REPO, pr!.number)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, pr!.number)!.merged).toBe(false)
  })

  it('a cancel while auto-merge is on turns it off before the run ends', async () => {
    const w = await protectedWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, {
      requirePullRequest: { requiredApprovingReviewCount: 1 }
    })
    let watching: ReturnType<typeof setInterval> | undefined
    let killed = false
    const run = await w.run(
      { ...PR_MODE, 'pull-request-merge': 'auto' },
      {},
      {
        onStdout: (text, child) => {
          if (watching || !text.includes('pull request #1')) return
          // Once GitHub shows auto-merge on, the run is cancelled.
          watching = setInterval(() => {
            if (!killed && w.github.pullRequest(OWNER, GITOPS_REPO, 1)?.autoMerge) {
              killed = true
              child.kill('SIGINT')
            }
          }, 10)
        }
      }
    )
    clearInterval(watching)
    expect(killed).toBe(true)
    expect(run.exitCode).not.toBe(0)
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)).toMatchObject({
      state: 'open',
      autoMerge: null
    })
    expect(run.stdout).toContain('Turned auto-merge off')
    expect(run.summary).toContain('The gate turned its auto-merge off')
    expect(promoteRequests(w)).toBe(0)
  })
})

describe('a merged pull request is done only while its manifest is on the base branch', () => {
  it.each(['squash', 'merge'])(
    'a re-run after the manifest left main opens a new pull request and goes on (%s)',
    async (method) => {
      const w = await protectedWorld({ syncPrune: true })
      w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
      const inputs = {
        ...PR_MODE,
        'pull-request-merge': 'immediate',
        'pull-request-merge-method': method
      }
      const first = await w.run(inputs)
      expect(first.outputs['promotion-result']).toBe('Promoted')
      // A revert on main (another writer): the manifest, and with pruning the test, are gone.
      w.github.writeFile(OWNER, GITOPS_REPO, 'main', `${GITOPS_PATH}/docker-v1-0-0.yaml`, null)
      const again = await w.run({ ...inputs, 'sync-timeout-seconds': '60' }, { runId: '4243' })
      expect(again.stderr).toBe('')
      expect(again.exitCode).toBe(0)
      const pulls = w.github.pullRequests(OWNER, GITOPS_REPO)
      expect(pulls).toHaveLength(2)
      expect(pulls.every((pr) => pr.merged)).toBe(true)
      expect(again.outputs['pull-request-number']).toBe(
        String(Math.max(...pulls.map((p) => p.number)))
      )
      expect(manifestInGit(w, 'docker-v1-0-0')).not.toBeNull()
      expect(again.outputs['promotion-result']).toBe('AlreadyActive')
    }
  )
})
