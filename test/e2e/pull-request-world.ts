// The world of the pull-request e2e files: auto-merge allowed, a seeded template, a `prod` branch;
// what "nothing promoted" means there, and a hook that runs once GitHub shows auto-merge on.
import { expect } from '@jest/globals'
import { GITOPS_REPO, OWNER, type World, type WorldOptions } from '../sandbox/world.js'
import { activeVersionName, promoteRequests } from './world-reads.js'

export const PR_MODE = { 'gitops-mode': 'pull-request' }

export async function startPullRequestWorld(
  start: (options: WorldOptions) => Promise<World>,
  options: WorldOptions = {}
): Promise<World> {
  const world = await start({
    gitopsRepoSettings: { allowAutoMerge: true, mergeabilityDelayMs: 20, autoMergeDelayMs: 20 },
    ...options
  })
  world.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
  world.github.createBranch(OWNER, GITOPS_REPO, 'prod', 'main')
  return world
}

export function expectNothingPromoted(w: World): void {
  expect(promoteRequests(w)).toBe(0)
  expect(activeVersionName(w)).toBe('v0.9.0')
}

/**
 * Auto-merge is still on, and the run says so with the command that turns it off: a warning in
 * the log, the summary and what stays behind. Nothing was promoted.
 */
export function expectAutoMergeStillOnSaid(
  w: World,
  run: { stdout: string; summary: string }
): void {
  expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)!.autoMerge).not.toBeNull()
  const command = `gh pr merge 1 --repo ${OWNER}/${GITOPS_REPO} --disable-auto`
  expect(run.stdout).toMatch(new RegExp(`::warning[^\n]*Auto-merge is still on[^\n]*${command}`))
  expect(run.summary).toContain('Its auto-merge is still on')
  expect(run.summary).toContain(command)
  expectNothingPromoted(w)
}

/** Once the gate has asked GitHub for auto-merge, `then` runs (once). */
export function afterAutoMerge(w: World, then: () => void): void {
  let done = false
  w.github.beforeRequest(() => {
    if (!done && w.github.pullRequest(OWNER, GITOPS_REPO, 1)?.autoMerge) {
      done = true
      then()
    }
  })
}

/** A first run that leaves the gate's branch and its pull request open (nobody merges it). */
export async function leaveBranchOpen(w: World, runId?: string): Promise<void> {
  const first = await w.run(
    { ...PR_MODE, 'pull-request-merge': 'manual', 'merge-timeout-seconds': '1' },
    runId ? { runId } : {}
  )
  expect(first.exitCode).toBe(1)
}
