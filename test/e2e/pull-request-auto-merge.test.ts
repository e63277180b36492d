// End to end: every way out of the merge wait after the gate asked for auto-merge leaves it off,
// or says that it is still on with the command that turns it off: a lost answer to the request, an
// expired token (401), a rate limit that ends after the deadline.
import { describe, expect, it } from '@jest/globals'
import { DOCS, HttpFailure } from '../sandbox/github/errors.js'
import { GITOPS_REPO, OWNER, type World } from '../sandbox/world.js'
import {
  afterAutoMerge,
  expectAutoMergeStillOnSaid,
  expectNothingPromoted,
  PR_MODE,
  startPullRequestWorld
} from './pull-request-world.js'
import { oneWorldPerTest } from './world-per-test.js'

const PR_AUTO = { ...PR_MODE, 'pull-request-merge': 'auto' }
const startOneWorld = oneWorldPerTest()

/** A pull request that needs a review, so GitHub merges nothing while the gate waits. */
async function reviewWorld(): Promise<World> {
  const world = await startPullRequestWorld(startOneWorld)
  world.github.addRuleset(OWNER, GITOPS_REPO, {
    requirePullRequest: { requiredApprovingReviewCount: 1 }
  })
  return world
}

describe('auto-merge is off, or said to be on, whenever no run watches', () => {
  it('a lost answer to enablePullRequestAutoMerge that landed: found on, waited for, off at the deadline', async () => {
    const w = await reviewWorld()
    w.github.timeOutAfterStoring(1, 'enablePullRequestAutoMerge')
    const run = await w.run({ ...PR_AUTO, 'merge-timeout-seconds': '3' })
    expect(run.exitCode).toBe(1)
    expect(run.summary).toContain('timed out')
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)).toMatchObject({
      merged: false,
      autoMerge: null
    })
    expect(run.summary).toContain('The gate turned its auto-merge off')
    expectNothingPromoted(w)
  })

  it('the token expires during the wait (401 on every request): auto-merge is said to be on, with the command', async () => {
    const w = await reviewWorld()
    let expired = false
    afterAutoMerge(w, () => (expired = true))
    w.github.beforeRequest(() => {
      if (expired) throw new HttpFailure(401, 'Bad credentials', DOCS.rest)
    })
    const run = await w.run(PR_AUTO)
    expect(expired).toBe(true)
    expect(run.exitCode).toBe(1)
    expectAutoMergeStillOnSaid(w, run)
  })

  it('a secondary rate limit that ends after merge-timeout-seconds: the run fails at once and auto-merge ends off', async () => {
    const w = await reviewWorld()
    afterAutoMerge(w, () => w.github.injectRateLimit(1, { kind: 'secondary', seconds: 600 }))
    const run = await w.run({ ...PR_AUTO, 'merge-timeout-seconds': '30' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('rate limit')
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)).toMatchObject({
      merged: false,
      autoMerge: null
    })
    expect(run.summary).toContain('The gate turned its auto-merge off')
    expectNothingPromoted(w)
  })
})
