// Step 5, wait: until Argo CD or Flux created the test and the controller finished it; then judge the
// one object read. The verdict and the integrity come from the same object: a pass needs Succeeded
// with Ready=True at the current generation, the whole committed spec, and our version ID.
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import { integrityProblems } from '../verdict/integrity.js'
import { TestDeletedError, waitForTest, WaitTimeoutError } from '../kube/wait.js'
import { controllerClockOf } from '../kube/controller-clock.js'
import { specDifferences } from '../objects/manifest.js'
import { observe, verdictOf } from '../verdict/verdict.js'
import {
  cancelled,
  clockOf,
  failed,
  messageOf,
  type StepContext,
  type StepResult,
  succeeded
} from './step.js'
import { ADVICE_AFTER_DELETION, adviceForFailure, adviceForWait } from '../verdict/wait-advice.js'
import { record, sightOf, workspaceOf } from './wait-record.js'
import { waitForTestSet } from './wait-set.js'
import type { TestFacts, Tested, WaitFacts, TestWaitInput } from './wait-types.js'

export type {
  TestFacts,
  Tested,
  TestWorkspace,
  TimelineEntry,
  WaitFacts,
  TestWaitInput as WaitInput
} from './wait-types.js'

export async function waitForVerdict(
  input: TestWaitInput,
  context: StepContext
): Promise<StepResult<Tested, WaitFacts>> {
  if ((input.committed.tests?.length ?? 1) > 1) return waitForTestSet(input, context)
  const only = input.committed.tests?.[0]
  // The one test: the default test, or the one preset test that test-presets chose.
  if (only) input = { ...input, test: { ...input.test, name: only.name } }
  const { test: settings, committed } = input
  const name = `${settings.namespace}/${settings.name}`
  const facts: WaitFacts = {
    syncedAt: null,
    timeline: [],
    last: null,
    notFoundSeen: false,
    workspace: null
  }
  const entry: TestFacts = {
    name: settings.name,
    preset: only?.preset ?? '',
    syncedAt: null,
    timeline: facts.timeline,
    last: null
  }
  facts.tests = [entry]
  facts.testName = settings.name
  context.log.info(
    `Waiting up to ${settings.syncTimeoutSeconds} s for Argo CD or Flux to create ${name}, then up to ${settings.waitTimeoutSeconds} s for its result.`
  )
  let test: CoderTemplateTest
  try {
    test = await waitForTest({
      kc: input.kc,
      namespace: settings.namespace,
      name: settings.name,
      signal: context.signal,
      syncDeadline: input.syncFrom + settings.syncTimeoutSeconds * 1000,
      waitTimeoutMs: settings.waitTimeoutSeconds * 1000,
      ...clockOf(context),
      // A spec that differs will never prove our version: stop waiting at once.
      isFinal: (seen) =>
        verdictOf(seen).state !== 'waiting' ||
        specDifferences(committed.manifest.spec, seen.spec).length > 0,
      onObserved: (seen) => {
        record(facts, seen, input, context)
        if (seen) Object.assign(entry, sightOf(facts, seen))
      }
    })
  } catch (error) {
    // Keep what was seen: the summary shows whether the test had synced before the cancel.
    if (context.signal.aborted)
      return cancelled('The run was cancelled. Nothing was promoted.', facts)
    return waitFailure(error, input, facts)
  }
  return judge(test, input, facts)
}

function waitFailure(
  error: unknown,
  input: TestWaitInput,
  facts: WaitFacts
): StepResult<never, WaitFacts> {
  const { test } = input
  const name = `${test.namespace}/${test.name}`
  if (error instanceof TestDeletedError) {
    const last = error.last ? observe(error.last) : facts.last
    return failed('wait-failed', `The test ${name} ended early: ${error.message}.`, {
      facts: { ...facts, last },
      advice: [ADVICE_AFTER_DELETION]
    })
  }
  if (!(error instanceof WaitTimeoutError)) {
    return failed('wait-failed', `Watching ${name} failed: ${messageOf(error)}`, {
      facts,
      advice: [
        'Check that the kubeconfig reaches the cluster, then run the job again: the test stays and is reused.'
      ]
    })
  }
  if (error.kind === 'sync') {
    return failed(
      'sync-timeout',
      `The test ${name} did not appear in the cluster within ${test.syncTimeoutSeconds} s (sync-timeout-seconds).`,
      {
        status: 'timed out',
        facts,
        advice: [
          'Check that Argo CD or Flux watches the GitOps path and that its sync succeeds (an immutable spec change is a sync error).'
        ]
      }
    )
  }
  const last = error.last ? observe(error.last) : facts.last
  const workspace = (error.last && workspaceOf(error.last)) ?? facts.workspace
  const shown = last
    ? `${last.phase || 'no status'}${last.reason ? ` / ${last.reason}` : ''}${last.message ? `: ${last.message}` : ''}`
    : 'no status'
  const advice = adviceForWait(last?.reason ?? '')
  return failed(
    'wait-timeout',
    `The test ${name} was not final within ${test.waitTimeoutSeconds} s (wait-timeout-seconds). Last: ${shown}.`,
    {
      status: 'timed out',
      facts: { ...facts, last, workspace },
      advice: [...(advice ? [advice] : []), stillRunning(name)]
    }
  )
}

function judge(
  test: CoderTemplateTest,
  input: TestWaitInput,
  facts: WaitFacts
): StepResult<Tested, WaitFacts> {
  const { test: settings, pushed } = input
  const name = `${settings.namespace}/${settings.name}`
  facts.last = observe(test)
  facts.workspace = workspaceOf(test) ?? facts.workspace
  facts.clock = controllerClockOf(test)
  if (facts.tests?.[0]) Object.assign(facts.tests[0], sightOf(facts, test))
  const problems = integrityProblems(
    test,
    input.committed.manifest.spec,
    input.live ? null : { id: pushed.versionId, name: pushed.versionName }
  )
  const what = input.live
    ? 'the active version'
    : `version ${pushed.versionName} (${pushed.versionId})`
  if (problems.length > 0) {
    return failed(
      'integrity',
      `The test ${name} in the cluster does not prove ${what}. Nothing was promoted.`,
      {
        facts,
        problems,
        advice: [
          'Another object may hold this name (created first with another spec, or a version that maps to the same test name): set test-name, or delete the foreign test.'
        ]
      }
    )
  }
  const verdict = verdictOf(test)
  const versionId = test.status?.templateVersionID ?? ''
  // Live: Succeeded and Failed are both results; the verify step decides from them.
  if (input.live && verdict.state !== 'waiting')
    return succeeded({ ...facts, test, versionId }, `${verdict.phase} / ${verdict.reason}`)
  if (verdict.state === 'failed') {
    const advice = adviceForFailure(verdict.reason, facts.workspace?.name ?? '')
    return failed(
      'test-failed',
      `The test failed: ${verdict.reason || 'no reason'}: ${(verdict.message || 'no message').replace(/\.$/, '')}. Nothing was promoted.`,
      { facts, advice: advice ? [advice] : [] }
    )
  }
  if (verdict.state !== 'passed') {
    return failed(
      'test-failed',
      `The test ended without passing (${verdict.phase || 'no phase'}). Nothing was promoted.`,
      { facts }
    )
  }
  return succeeded({ ...facts, test, versionId }, `${verdict.reason}: ${verdict.message}`)
}

export function stillRunning(name: string): string {
  return `The test ${name} stays in the cluster and the controller may still finish it: run the job again later, and a re-run promotes at once if it passed meanwhile.`
}

export { workspaceOf } from './wait-record.js'
