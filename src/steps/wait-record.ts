// What the wait step records of each object read: the timeline and log lines, the workspace the
// status names, and a test's entry in test-results.
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import { controllerClockOf } from '../kube/controller-clock.js'
import { CODER_NAME_MAX, CODER_NAME_PATTERN } from '../settings/naming.js'
import { describeWaiting, observe, verdictOf } from '../verdict/verdict.js'
import type { StepContext } from './step.js'
import type { TestFacts, TestWaitInput, TestWorkspace, WaitFacts } from './wait-types.js'
import { isUuid } from '../coder/version-identity.js'

export function record(
  facts: WaitFacts,
  seen: CoderTemplateTest | null,
  input: Pick<TestWaitInput, 'runStartedAt' | 'syncFrom' | 'landed'>,
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

/** What a read tells the test's entry in test-results. */
export function sightOf(
  facts: Pick<WaitFacts, 'syncedAt'>,
  seen: CoderTemplateTest
): Pick<TestFacts, 'syncedAt' | 'last' | 'versionId'> {
  const id = seen.status?.templateVersionID
  return {
    syncedAt: facts.syncedAt,
    last: observe(seen),
    versionId: isUuid(id) ? id : undefined
  }
}

// The status is another system's text and these fields reach the advice and the summary: a value
// that breaks its documented shape is dropped, not shown (https://github.com/coder/coder-k8s/blob/main/api/v1alpha1/codertemplatetest_types.go).
const CONDITION_WORD = /^[A-Za-z]{1,64}$/

/** The workspace fields of a status; null when the status names no (valid) workspace yet. */
export function workspaceOf(test: CoderTemplateTest): TestWorkspace | null {
  const status = test.status ?? {}
  const name = typeof status.workspaceName === 'string' ? status.workspaceName : ''
  // Workspace names follow codersdk NameValid, like template names (naming.ts).
  if (name.length > CODER_NAME_MAX || !CODER_NAME_PATTERN.test(name)) return null
  const ownerId = isUuid(status.ownerID) ? status.ownerID : undefined
  const condition = status.conditions?.find((c) => c.type === 'WorkspaceDeleted')
  const deleted = condition
    ? [condition.status, condition.reason]
        .filter((part): part is string => typeof part === 'string' && CONDITION_WORD.test(part))
        .join('/') || undefined
    : undefined
  return { name, ownerId, deleted }
}

/** One decimal; null when the test was already there (no change landed, found at the first read). */
export function syncSecondsOf(
  at: number,
  input: Pick<TestWaitInput, 'syncFrom' | 'landed'>,
  notFoundSeen: boolean
): number | null {
  if (!input.landed && !notFoundSeen) return null
  return Math.round(Math.max(0, at - input.syncFrom) / 100) / 10
}
