// End to end: pull-request mode merges exactly the gate's change into exactly gitops-branch, decided
// from the pull request's base, its opener and its content at the head (never from commit authors
// or markers); auto-merge is off whenever no run watches; the PR comment is found with any token.
import { describe, expect, it } from '@jest/globals'
import {
  GITOPS_PATH,
  GITOPS_REPO,
  OWNER,
  TEMPLATES_REPO,
  type WorldOptions
} from '../sandbox/world.js'
import {
  afterAutoMerge,
  expectAutoMergeStillOnSaid,
  expectNothingPromoted,
  leaveBranchOpen,
  PR_MODE,
  startPullRequestWorld
} from './pull-request-world.js'
import { oneWorldPerTest } from './world-per-test.js'

const BRANCH = 'coder-template-gate/docker-v1-0-0'
const MANIFEST = `${GITOPS_PATH}/docker-v1-0-0.yaml`
const startOneWorld = oneWorldPerTest()

const prWorld = (options: WorldOptions = {}) => startPullRequestWorld(startOneWorld, options)

describe('a base changed to another branch during the wait', () => {
  it('immediate: never merged into the other branch', async () => {
    const w = await prWorld({
      gitopsRepoSettings: { mergeabilityDelayMs: 20, checksDurationMs: 600_000 }
    })
    w.github.addRuleset(OWNER, GITOPS_REPO, {
      requirePullRequest: true,
      requiredStatusChecks: ['ci'],
      include: ['refs/heads/main']
    })
    let changed = false
    w.github.beforeRequest((method, path) => {
      // After GitHub's first "not now" (405, the check is expected), a writer moves the base.
      if (!changed && method === 'PUT' && path.endsWith('/merge'))
        setTimeout(() => {
          changed = true
          w.github.changePullRequestBase(OWNER, GITOPS_REPO, 1, 'prod')
        }, 50)
    })
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'immediate' })
    expect(changed).toBe(true)
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('its base is "prod", not "main"')
    expect(run.summary).toContain('foreign-change')
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)).toMatchObject({ merged: false })
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'prod', MANIFEST)).toBeNull()
    expectNothingPromoted(w)
  })

  it('auto: the gate turns auto-merge off, which GitHub keeps on for a base change', async () => {
    const w = await prWorld()
    // Both branches need a review, so GitHub merges nothing before the gate looks again.
    w.github.addRuleset(OWNER, GITOPS_REPO, {
      requirePullRequest: { requiredApprovingReviewCount: 1 },
      include: ['refs/heads/main', 'refs/heads/prod']
    })
    afterAutoMerge(w, () => w.github.changePullRequestBase(OWNER, GITOPS_REPO, 1, 'prod'))
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'auto' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('its base is "prod", not "main"')
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)).toMatchObject({
      base: 'prod',
      merged: false,
      autoMerge: null
    })
    // A review after the run merges nothing into prod.
    w.github.approvePullRequest(OWNER, GITOPS_REPO, 1)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)!.merged).toBe(false)
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'prod', MANIFEST)).toBeNull()
    expectNothingPromoted(w)
  })
})

describe('auto-merge is off whenever no run watches', () => {
  it('a 502 on every pull-request read during the wait: the run fails and auto-merge ends off', async () => {
    const w = await prWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, {
      requirePullRequest: { requiredApprovingReviewCount: 1 }
    })
    let failing = false
    afterAutoMerge(w, () => (failing = true))
    w.github.beforeRequest((method, path) => {
      if (failing && method === 'GET' && /\/pulls\/1(\?|$)/.test(path))
        w.github.injectServerErrors(1, 502)
    })
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'auto' })
    expect(failing).toBe(true)
    expect(run.exitCode).toBe(1)
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)).toMatchObject({
      merged: false,
      autoMerge: null
    })
    expect(run.stdout).toContain('Turned auto-merge off')
    w.github.approvePullRequest(OWNER, GITOPS_REPO, 1)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)!.merged).toBe(false)
    expectNothingPromoted(w)
  })
})

describe('auto-merge still on is said, with the command that turns it off', () => {
  it('when turning auto-merge off fails too: the annotation, the summary and what stays behind say so', async () => {
    const w = await prWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, {
      requirePullRequest: { requiredApprovingReviewCount: 1 }
    })
    let failing = false
    afterAutoMerge(w, () => (failing = true))
    w.github.beforeRequest((method, path) => {
      // Every pull-request read and the disablePullRequestAutoMerge mutation answer 502.
      if (failing && method === 'GET' && /\/pulls\/1(\?|$)/.test(path))
        w.github.injectServerErrors(1, 502)
      if (failing && method === 'POST' && path.endsWith('/graphql'))
        w.github.injectServerErrors(1, 502)
    })
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'auto' })
    expect(failing).toBe(true)
    expect(run.exitCode).toBe(1)
    expectAutoMergeStillOnSaid(w, run)
  })

  it('a cancel, and turning auto-merge off fails: the summary says it is still on, with the command', async () => {
    const w = await prWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, {
      requirePullRequest: { requiredApprovingReviewCount: 1 }
    })
    let failing = false
    let watching: ReturnType<typeof setInterval> | undefined
    w.github.beforeRequest((method, path) => {
      // The disablePullRequestAutoMerge mutation answers 502.
      if (failing && method === 'POST' && path.endsWith('/graphql'))
        w.github.injectServerErrors(1, 502)
    })
    const run = await w.run(
      { ...PR_MODE, 'pull-request-merge': 'auto' },
      {},
      {
        onStdout: (_text, child) => {
          // Once GitHub shows auto-merge on, the run is cancelled.
          watching ??= setInterval(() => {
            if (!failing && w.github.pullRequest(OWNER, GITOPS_REPO, 1)?.autoMerge) {
              failing = true
              child.kill('SIGINT')
            }
          }, 10)
        }
      }
    )
    clearInterval(watching)
    expect(failing).toBe(true)
    expect(run.exitCode).not.toBe(0)
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)!.autoMerge).not.toBeNull()
    const command = `gh pr merge 1 --repo ${OWNER}/${GITOPS_REPO} --disable-auto`
    expect(run.summary).toContain('cancelled')
    expect(run.summary).toContain('Its auto-merge is still on')
    expect(run.summary).toContain(command)
    expectNothingPromoted(w)
  })
})

describe('decided from content, not from authors or markers', () => {
  it('a forged commit with the marker and the gate’s e-mail that rewrites the manifest is not merged', async () => {
    const w = await prWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    // A first run leaves the branch and its pull request open.
    await leaveBranchOpen(w)
    const rendered = w.github.readFile(OWNER, GITOPS_REPO, BRANCH, MANIFEST)!
    expect(rendered).toContain('  labels:\n')
    // The same test to the gate's eyes (name and spec), plus a label of someone else's choosing.
    const forged = rendered.replace('  labels:\n', '  labels:\n    team: mallory\n')
    w.github.writeFile(
      OWNER,
      GITOPS_REPO,
      BRANCH,
      MANIFEST,
      forged,
      'Test acme.docker version v1.0.0\n\nwritten by coder-template-gate.',
      'github-actions[bot]'
    )
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'immediate' }, { runId: '4243' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(
      `${MANIFEST} at its head holds other bytes than the manifest this run renders`
    )
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, 1)).toMatchObject({ merged: false })
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', MANIFEST)).toBeNull()
    expectNothingPromoted(w)
  })

  it('another team’s test removed on the gate’s branch, shown by GitHub as a rename onto the manifest, is not merged', async () => {
    const w = await prWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    await leaveBranchOpen(w)
    // Another team's test, much like ours, lives at the base of the gate's branch.
    const rendered = w.github.readFile(OWNER, GITOPS_REPO, BRANCH, MANIFEST)!
    const OTHER = `${GITOPS_PATH}/other-v2-0-0.yaml`
    w.github.writeFile(OWNER, GITOPS_REPO, 'main', OTHER, rendered.replaceAll('docker', 'other'))
    w.github.closePullRequest(OWNER, GITOPS_REPO, 1)
    w.github.deleteBranch(OWNER, GITOPS_REPO, BRANCH)
    await leaveBranchOpen(w, '4243')
    // Someone removes it on the gate's branch: GitHub pairs the removal with our manifest.
    w.github.writeFile(OWNER, GITOPS_REPO, BRANCH, OTHER, null)
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'immediate' }, { runId: '4244' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(`it changes ${OTHER}, which the gate did not write`)
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', OTHER)).not.toBeNull()
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', MANIFEST)).toBeNull()
    expectNothingPromoted(w)
  })

  it('a pull request that another account opened from the gate’s branch is named and never merged', async () => {
    const w = await prWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    await leaveBranchOpen(w)
    w.github.closePullRequest(OWNER, GITOPS_REPO, 1, 'mallory')
    const theirs = w.github.openPullRequest(OWNER, GITOPS_REPO, {
      head: BRANCH,
      base: 'main',
      login: 'mallory'
    })
    const run = await w.run({ ...PR_MODE, 'pull-request-merge': 'immediate' }, { runId: '4243' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(`pull request #${theirs} `)
    expect(run.stdout).toContain('it was opened by "mallory"')
    expect(run.summary).toContain('foreign-change')
    expect(w.github.pullRequest(OWNER, GITOPS_REPO, theirs)).toMatchObject({
      merged: false,
      labels: []
    })
    expectNothingPromoted(w)
  })
})

describe('one sticky comment with any token', () => {
  it('two runs that comment with a GitHub App token leave one comment', async () => {
    const w = await startOneWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const token = 'ghs_gate_app_installation_token'
    w.github.addToken(token, { login: 'gate-app[bot]', kind: 'installation' })
    const pr = w.openTemplatesPullRequest()
    const inputs = { 'comment-on-pr': 'true', promote: 'false', 'github-token': token }
    const first = await w.run(inputs, { ...pr.context, runId: '5001' })
    expect(first.exitCode).toBe(0)
    const second = await w.run(inputs, { ...pr.context, runId: '5002' })
    expect(second.exitCode).toBe(0)
    const comments = w.github.comments(OWNER, TEMPLATES_REPO, pr.number)
    expect(comments.map((c) => c.user)).toEqual(['gate-app[bot]'])
    expect(comments[0]!.body).toContain('actions/runs/5002')
  })
})
