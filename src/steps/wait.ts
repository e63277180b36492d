// Step 5, wait: until Argo CD or Flux created the test and the controller finished it; then judge the
// one object read. The verdict and the integrity come from the same object: a pass needs Succeeded
// with Ready=True at the current generation, the whole committed spec, and our version ID.
import type { KubeConfig } from '@kubernetes/client-node'
import type { CoderTemplateTest } from '../kube/objects.js'
import { integrityProblems } from '../verdict/integrity.js'
import { waitForTest, WaitTimeoutError } from '../kube/wait.js'
import { type ControllerClock, controllerClockOf } from '../kube/controller-clock.js'
import { specDifferences } from '../verdict/manifest.js'
import { CODER_NAME_MAX, CODER_NAME_PATTERN } from '../settings/naming.js'
import type { TestSettings } from '../settings/settings.js'
import { describeWaiting, type Observed, observe, verdictOf } from '../verdict/verdict.js'
import type { Committed } from './commit.js'
import type { Pushed } from './push.js'
import {
  cancelled,
  clockOf,
  failed,
  messageOf,
  type StepContext,
  type StepResult,
  succeeded
} from './step.js'
import { adviceForFailure, adviceForWait } from '../verdict/wait-advice.js'

export interface TimelineEntry extends Observed {
  at: number
}

/** The test workspace as the last status names it (coder-k8s-api.md §1.3, §1.5). */
export interface TestWorkspace {
  /** status.workspaceName: deterministic, `ktt-<uid>`. */
  name: string
  /** status.ownerID: the Coder user (the tester) that owns it; '' when not written yet. */
  ownerId: string
  /** The WorkspaceDeleted condition as `<status>/<reason>`; '' when absent. */
  deleted: string
}

export interface WaitFacts {
  /** When the test was first seen in the cluster; null if never. */
  syncedAt: number | null
  /**
   * sync-seconds: from the change landing on the branch to the first read of the test, one decimal;
   * null when never seen, or when the first read found it and this run landed no change.
   */
  syncSeconds?: number | null
  timeline: TimelineEntry[]
  last: Observed | null
  /** The test was looked for and not found at least once. */
  notFoundSeen: boolean
  /** null until a status names the workspace. */
  workspace: TestWorkspace | null
  /** The last status's milestones on the controller's clock; absent until a status is seen. */
  clock?: ControllerClock
}

export interface Tested extends WaitFacts {
  test: CoderTemplateTest
  /** status.templateVersionID of the object that passed: exactly the version to promote. */
  versionId: string
}

export interface WaitInput {
  test: TestSettings
  committed: Pick<Committed, 'manifest'>
  pushed: Pick<Pushed, 'versionId' | 'versionName'>
  kc: KubeConfig
  /** When the manifest reached the watched branch (the commit, or the merge). */
  syncFrom: number
  /** This run put the change on the branch (a commit or a merge), rather than finding it there. */
  landed?: boolean
  /** For the elapsed time in front of each log line. */
  runStartedAt: number
}

export async function waitForVerdict(
  input: WaitInput,
  context: StepContext
): Promise<StepResult<Tested, WaitFacts>> {
  const { test: settings, committed } = input
  const name = `${settings.namespace}/${settings.name}`
  const facts: WaitFacts = {
    syncedAt: null,
    timeline: [],
    last: null,
    notFoundSeen: false,
    workspace: null
  }
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
      onObserved: (seen) => record(facts, seen, input, context)
    })
  } catch (error) {
    // Keep what was seen: the summary shows whether the test had synced before the cancel.
    if (context.signal.aborted)
      return cancelled('The run was cancelled. Nothing was promoted.', facts)
    return waitFailure(error, input, facts)
  }
  return judge(test, input, facts)
}

function record(
  facts: WaitFacts,
  seen: CoderTemplateTest | null,
  input: Pick<WaitInput, 'runStartedAt' | 'syncFrom' | 'landed'>,
  context: StepContext
): void {
  const at = context.now()
  const elapsed = `[+${((at - input.runStartedAt) / 1000).toFixed(1)} s]`
  if (seen === null) {
    // Once: a test that is not there yet is the normal start of every wait.
    if (facts.syncedAt === null && !facts.notFoundSeen) {
      context.log.info(
        `${elapsed} The test does not exist yet: waiting for Argo CD or Flux to apply the change.`
      )
    }
    facts.notFoundSeen = true
    return
  }
  if (facts.syncedAt === null) {
    facts.syncedAt = at
    facts.syncSeconds = syncSecondsOf(at, input, facts.notFoundSeen)
  }
  const observed = observe(seen)
  facts.last = observed
  facts.workspace = workspaceOf(seen) ?? facts.workspace
  facts.clock = controllerClockOf(seen)
  const previous = facts.timeline[facts.timeline.length - 1]
  if (previous && previous.phase === observed.phase && previous.reason === observed.reason) return
  facts.timeline.push({ at, ...observed })
  const verdict = verdictOf(seen)
  const where = observed.phase
    ? `${observed.phase}${observed.reason ? ` / ${observed.reason}` : ''}`
    : describeWaiting(verdict.state === 'waiting' ? verdict.why : 'no-status')
  context.log.info(`${elapsed} ${where}${observed.message ? `: ${observed.message}` : ''}`)
}

/** One decimal; null when the test was already there (no change landed, found at the first read). */
export function syncSecondsOf(
  at: number,
  input: Pick<WaitInput, 'syncFrom' | 'landed'>,
  notFoundSeen: boolean
): number | null {
  if (!input.landed && !notFoundSeen) return null
  return Math.round(Math.max(0, at - input.syncFrom) / 100) / 10
}

function waitFailure(
  error: unknown,
  input: WaitInput,
  facts: WaitFacts
): StepResult<never, WaitFacts> {
  const { test } = input
  const name = `${test.namespace}/${test.name}`
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
  input: WaitInput,
  facts: WaitFacts
): StepResult<Tested, WaitFacts> {
  const { test: settings, pushed } = input
  const name = `${settings.namespace}/${settings.name}`
  facts.last = observe(test)
  facts.workspace = workspaceOf(test) ?? facts.workspace
  facts.clock = controllerClockOf(test)
  const problems = integrityProblems(test, input.committed.manifest.spec, {
    id: pushed.versionId,
    name: pushed.versionName
  })
  if (problems.length > 0) {
    return failed(
      'integrity',
      `The test ${name} in the cluster does not prove version ${pushed.versionName} (${pushed.versionId}). Nothing was promoted.`,
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
  const versionId = test.status?.templateVersionID ?? ''
  return succeeded({ ...facts, test, versionId }, `${verdict.reason}: ${verdict.message}`)
}

function stillRunning(name: string): string {
  return `The test ${name} stays in the cluster and the controller may still finish it: run the job again later, and a re-run promotes at once if it passed meanwhile.`
}

// The status is another system's text and these fields reach the advice and the summary: a value
// that breaks its documented shape is dropped, not shown (coder-k8s-api.md §1.3, §1.5, §1.9).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const CONDITION_WORD = /^[A-Za-z]{1,64}$/

/** The workspace fields of a status; null when the status names no (valid) workspace yet. */
export function workspaceOf(test: CoderTemplateTest): TestWorkspace | null {
  const status = test.status ?? {}
  const name = typeof status.workspaceName === 'string' ? status.workspaceName : ''
  // Workspace names follow codersdk NameValid, like template names (naming.ts).
  if (name.length > CODER_NAME_MAX || !CODER_NAME_PATTERN.test(name)) return null
  const ownerId =
    typeof status.ownerID === 'string' && UUID.test(status.ownerID) ? status.ownerID : ''
  const condition = status.conditions?.find((c) => c.type === 'WorkspaceDeleted')
  const deleted = condition
    ? [condition.status, condition.reason]
        .filter((part): part is string => typeof part === 'string' && CONDITION_WORD.test(part))
        .join('/')
    : ''
  return { name, ownerId, deleted }
}
