// run(): the mission in order, one step per line. Every decision lives in a pure module, every
// conversation with another system in an adapter, every step in src/steps/. The report is built
// from the step results at the end, and written on every path: success, failure, timeout, cancel.
import * as core from '@actions/core'
import { maskCredentialsWith } from './kube/request.js'
import { recordDeployments } from './deployments.js'
import { actionsLog } from './log/log.js'
import { buildReport } from './report/build.js'
import { publishReport } from './report/publish.js'
import type { RunReport } from './report/report.js'
import { reportWriters } from './report-writers.js'
import { type Committed, commitManifest } from './steps/commit.js'
import { validateInputs } from './steps/inputs.js'
import { Journal, StepStopped } from './steps/journal.js'
import { locateTested } from './steps/locate.js'
import { observeActiveVersion } from './steps/observe.js'
import { type Preflight, runPreflight } from './steps/preflight.js'
import { promoteTested } from './steps/promote.js'
import { AUTO_MERGE_OFF_MS, mergeGatePullRequest } from './steps/merge.js'
import { openGatePullRequest, type PullRequestInput } from './steps/pull-request.js'
import { PUSH_CANCEL_GRACE_MS, pushVersion } from './steps/push.js'
import { planPresetTests } from './steps/presets.js'
import { refreshEngines } from './steps/refresh.js'
import { tidyVersions, tidyWanted } from './steps/tidy.js'
import { verifyLive } from './steps/verify.js'
import { waitForVerdict } from './steps/wait.js'
import { systemClock } from './timing/clock.js'
import { StepInputs } from './wiring.js'

type Env = Record<string, string | undefined>

export async function run(
  signal: AbortSignal = new AbortController().signal,
  env: Env = process.env
): Promise<RunReport> {
  const journal = new Journal({ signal, log: actionsLog, ...systemClock })
  const clock = journal.context
  const startedAt = clock.now()
  maskCredentialsWith(core.setSecret)
  let gate: StepInputs | null = null
  try {
    const read = (name: string): string => core.getInput(name)
    const inputs = await journal.run('inputs', async () =>
      validateInputs({ read, env, mask: core.setSecret })
    )
    const g = (gate = new StepInputs(inputs, signal, actionsLog, env))
    const preflight = await journal.run('preflight', (c) => runPreflight(g.preflight(), c))
    if (g.settings.mode === 'promote') {
      await promoteJob(journal, g, preflight, startedAt)
    } else if (g.settings.mode === 'verify') {
      await verifyJob(journal, g, preflight, startedAt)
    } else {
      await gateJob(journal, g, preflight, startedAt)
    }
  } catch (error) {
    journal.stopped(error)
  }
  await tidyJob(journal, gate)
  return finish(journal, gate, startedAt, env)
}

/** mode: gate and mode: test: push, commit (and merge), wait, promote (off in mode: test). */
async function gateJob(
  journal: Journal,
  g: StepInputs,
  preflight: Preflight,
  startedAt: number
): Promise<void> {
  const pushed = await journal.run('push', (c) => pushVersion(g.push(preflight), c), {
    cancelGraceMs: PUSH_CANCEL_GRACE_MS
  })
  // test-presets: the version's presets read and chosen before anything is committed.
  const plan =
    g.settings.test.presets.kind === 'none'
      ? undefined
      : await journal.run('presets', (c) => planPresetTests(g.presets(pushed), c))
  const committed = await journal.run('commit', (c) =>
    commitManifest(g.commit(preflight, pushed, plan), c)
  )
  const { syncFrom, landed } = await deliver(journal, g, preflight, pushed, committed)
  const tested = await journal.run(
    'wait',
    (c) => waitForVerdict(g.wait(pushed, committed, syncFrom, startedAt, landed), c),
    // The wait ends at once on a cancel; the grace only lets it hand over what it saw.
    { group: `Wait for CoderTemplateTest ${g.testName}`, cancelGraceMs: 1000 }
  )
  await journal.run('promote', (c) => promoteTested(g.promote(preflight, pushed, tested), c))
}

/**
 * The commit reaches gitops-branch: at once, or through the gate's pull request and its merge
 * (gitops-mode: pull-request); then the engines are asked to reconcile (a warning at worst).
 * Returns when the change landed (the sync clock's start) and whether this run landed it.
 */
async function deliver(
  journal: Journal,
  g: StepInputs,
  preflight: Preflight,
  pushed: PullRequestInput['pushed'],
  committed: Committed
): Promise<{ syncFrom: number; landed: boolean }> {
  let syncFrom = journal.context.now()
  let landed = committed.commitSha !== ''
  if (!committed.onBase) {
    const input = g.pullRequest(preflight, pushed, committed)
    const pullRequest = await journal.run('pull-request', (c) => openGatePullRequest(input, c))
    // The grace lets a cancel turn auto-merge off before the run ends.
    await journal.run('merge', (c) => mergeGatePullRequest({ ...input, pullRequest }, c), {
      cancelGraceMs: AUTO_MERGE_OFF_MS + 500
    })
    syncFrom = journal.context.now()
    landed = true
  }
  if (preflight.refresh.length > 0)
    await journal.run('refresh', (c) => refreshEngines(g.refresh(preflight), c))
  return { syncFrom, landed }
}

/**
 * mode: promote, the second job of a release with a person in the loop (action.yml, `mode`):
 * locate what the test job left, wait as the gate waits, promote behind the guard. No push, no commit.
 */
async function promoteJob(
  journal: Journal,
  g: StepInputs,
  preflight: Preflight,
  startedAt: number
): Promise<void> {
  const located = await journal.run('locate', (c) => locateTested(g.locate(preflight), c))
  const tested = await journal.run(
    'wait',
    (c) => waitForVerdict(g.wait(located, located, c.now(), startedAt), c),
    { group: `Wait for CoderTemplateTest ${g.testName}`, cancelGraceMs: 1000 }
  )
  await journal.run('promote', (c) =>
    promoteTested(g.promoteLocated(preflight, located, tested), c)
  )
}

/**
 * mode: verify (docs/how-to/live.md): a new test of the active version, the
 * same wait and one-read checks, then the decision and the guarded rollback. No push.
 */
async function verifyJob(
  journal: Journal,
  g: StepInputs,
  preflight: Preflight,
  startedAt: number
): Promise<void> {
  const committed = await journal.run('commit', (c) => commitManifest(g.commitLive(preflight), c))
  const live = { template: preflight.template, versionName: '', versionId: '' }
  const { syncFrom, landed } = await deliver(journal, g, preflight, live, committed)
  const tested = await journal.run(
    'wait',
    (c) =>
      waitForVerdict({ ...g.wait(live, committed, syncFrom, startedAt, landed), live: true }, c),
    { group: `Wait for CoderTemplateTest ${g.testName}`, cancelGraceMs: 1000 }
  )
  await journal.run('verify', (c) => verifyLive(g.verify(preflight, tested), c))
}

/**
 * The tidy step, once the outcome is known, on success and failure alike, after the preflight has
 * named the template; never after a cancel, and not in mode: verify (it pushes no version).
 */
async function tidyJob(journal: Journal, g: StepInputs | null): Promise<void> {
  const preflight = journal.value('preflight')
  if (!g || !preflight || g.settings.mode === 'verify' || journal.context.signal.aborted) return
  const testFailed = testEndedFailed(journal)
  if (!tidyWanted(g.settings.tidy, testFailed)) return
  const located = journal.value('locate')
  const input = g.tidy(preflight, journal.value('push') ?? located, testFailed, located)
  try {
    // The grace lets a cancelled tidy hand over what stayed.
    await journal.run('tidy', (c) => tidyVersions(input, c), { cancelGraceMs: 1000 })
  } catch (error) {
    // Tidy never fails; a cancel past the grace stops it, and the journal holds that entry.
    if (!(error instanceof StepStopped)) throw error
  }
}

/** This run's test ended Failed (not a timeout, nor an integrity failure: that object is not ours). */
function testEndedFailed(journal: Journal): boolean {
  const wait = journal.entry('wait')?.result
  if (wait === undefined || wait.ok) return false
  return wait.failure.kind === 'test-failed' && wait.facts?.last?.phase === 'Failed'
}

/** Reads the world once more, then builds and writes the report. Never throws. */
async function finish(
  journal: Journal,
  gate: StepInputs | null,
  startedAt: number,
  env: Env
): Promise<RunReport> {
  const preflight = journal.value('preflight')
  const template = journal.value('push')?.template ?? preflight?.template ?? ''
  const observed = await observeActiveVersion(
    gate?.clients.observer ?? null,
    preflight?.organization ?? '',
    template
  )
  const deployment = await recordDeployments(journal, gate?.settings ?? null, env, actionsLog)
  const report = buildReport(journal, {
    startedAt,
    deployment,
    observed,
    actionRepository: env.GITHUB_ACTION_REPOSITORY,
    actionRef: env.GITHUB_ACTION_REF,
    serverUrl: env.GITHUB_SERVER_URL,
    repository: env.GITHUB_REPOSITORY,
    runId: env.GITHUB_RUN_ID,
    runAttempt: env.GITHUB_RUN_ATTEMPT
  })
  await publishReport(report, reportWriters(gate?.settings ?? null, env))
  return report
}
