// Test object -> waiting | passed | failed.
// The same rules as config/gitops (Argo CD Lua and Flux CEL), made stricter where they differ:
// the gate passes only where both tools say Healthy/Current and fails only where both say
// Degraded/Failed (test/config/gitops checks this over one fixture table).
// Facts: https://github.com/coder/coder-k8s/blob/main/docs/how-to/test-templates.md
import type { CoderTemplateTest, Condition } from '../objects/coder-k8s.js'

export type WaitingWhy =
  | 'no-status' // the controller has not written a status yet (the first reconcile writes none)
  | 'stale-generation' // status.observedGeneration != metadata.generation
  | 'deleting' // metadata.deletionTimestamp is set: a deleting object never passes
  | 'in-progress' // Pending or Running
  | 'succeeded-not-ready' // Succeeded without Ready=True: not a pass (the controller sets both together)
  | 'unknown-phase' // no phase, or one outside the CRD enum

export interface Observed {
  phase: string
  reason: string
  message: string
}

export type Verdict =
  | ({ state: 'waiting'; why: WaitingWhy } & Observed)
  | ({ state: 'passed' } & Observed)
  | ({ state: 'failed' } & Observed)

export function observe(test: CoderTemplateTest): Observed {
  const status = test.status ?? {}
  return {
    phase: stringOr(status.phase),
    reason: stringOr(status.reason),
    message: stringOr(status.message)
  }
}

export function verdictOf(test: CoderTemplateTest): Verdict {
  const observed = observe(test)
  const waiting = (why: WaitingWhy): Verdict => ({ state: 'waiting', why, ...observed })

  if (test.metadata.deletionTimestamp) return waiting('deleting')
  const status = test.status
  if (status === undefined || status === null) return waiting('no-status')
  if (
    typeof status.observedGeneration !== 'number' ||
    status.observedGeneration !== test.metadata.generation
  ) {
    return waiting('stale-generation')
  }
  switch (status.phase) {
    case 'Pending':
    case 'Running':
      return waiting('in-progress')
    case 'Succeeded':
      return isReadyAtGeneration(status.conditions, test.metadata.generation)
        ? { state: 'passed', ...observed }
        : waiting('succeeded-not-ready')
    case 'Failed':
      return { state: 'failed', ...observed }
    default:
      return waiting('unknown-phase')
  }
}

/**
 * Ready=True, and, where the condition carries its own observedGeneration, of this
 * generation. Stricter than the GitOps rules, which read only type and status.
 */
function isReadyAtGeneration(conditions: unknown, generation: number | undefined): boolean {
  if (!Array.isArray(conditions)) return false
  return conditions.some(
    (c: Partial<Condition> | null) =>
      c !== null &&
      c.type === 'Ready' &&
      c.status === 'True' &&
      (c.observedGeneration === undefined || c.observedGeneration === generation)
  )
}

/** One short line for logs: what the gate is waiting for. */
export function describeWaiting(why: WaitingWhy): string {
  switch (why) {
    case 'no-status':
      return 'waiting for the controller to write the first status'
    case 'stale-generation':
      return 'waiting for the controller to observe the current generation'
    case 'deleting':
      return 'the test is being deleted; a deleting test never passes'
    case 'in-progress':
      return 'the test is running'
    case 'succeeded-not-ready':
      return 'phase is Succeeded but the Ready condition is not True'
    case 'unknown-phase':
      return 'the status has no known phase'
  }
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
