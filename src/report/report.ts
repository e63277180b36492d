// What a run did, collected as it happens, so that the summary and the outputs are written from
// one record on every path: success, failure, timeout and cancel.
import type { PromotionResult } from '../api.js'

export type StepName = 'push' | 'commit' | 'sync' | 'test' | 'promote'
export const STEP_NAMES: readonly StepName[] = ['push', 'commit', 'sync', 'test', 'promote']

export type StepResult = 'succeeded' | 'failed' | 'skipped' | 'cancelled' | 'timed out' | 'not run'

export interface StepRecord {
  result: StepResult
  startedAt?: number
  endedAt?: number
  detail: string
}

export type Outcome =
  | 'promoted' // passed and promoted (or already active)
  | 'would-promote' // passed; dry-run preview
  | 'passed' // passed; promotion skipped (promote: false)
  | 'failed'
  | 'timed-out'
  | 'cancelled'
  | 'invalid-input'

export interface TimelineEntry {
  at: number
  phase: string
  reason: string
  message: string
}

export interface RunReport {
  startedAt: number
  outcome: Outcome | null
  /** The one sentence that explains a failure, with what to check. */
  error: string
  /** One line of advice for a known failure reason (coder-k8s-api.md §1.6). */
  advice: string
  inputErrors: string[]
  integrityProblems: string[]
  template: string
  organization: string
  namespace: string
  versionName: string
  versionId: string
  testName: string
  manifestPath: string
  commitSha: string
  commitUrl: string
  runUrl: string
  phase: string
  reason: string
  message: string
  timeline: TimelineEntry[]
  promotionResult: PromotionResult | 'Skipped' | ''
  promotionConfirmedBy: 'answer' | 're-read' | ''
  /** A promote request was sent: a cancel after it leaves the outcome unknown. */
  promotionRequested: boolean
  previousActiveVersionId: string
  activeVersionId: string
  steps: Record<StepName, StepRecord>
}

export function newReport(now: number): RunReport {
  const steps = Object.fromEntries(
    STEP_NAMES.map((name) => [name, { result: 'not run', detail: '' } satisfies StepRecord])
  ) as Record<StepName, StepRecord>
  return {
    startedAt: now,
    outcome: null,
    error: '',
    advice: '',
    inputErrors: [],
    integrityProblems: [],
    template: '',
    organization: '',
    namespace: '',
    versionName: '',
    versionId: '',
    testName: '',
    manifestPath: '',
    commitSha: '',
    commitUrl: '',
    runUrl: '',
    phase: '',
    reason: '',
    message: '',
    timeline: [],
    promotionResult: '',
    promotionConfirmedBy: '',
    promotionRequested: false,
    previousActiveVersionId: '',
    activeVersionId: '',
    steps
  }
}

/** Adds a timeline entry when phase or reason changed; returns whether it did. */
export function recordObservation(
  report: RunReport,
  at: number,
  observed: { phase: string; reason: string; message: string }
): boolean {
  report.phase = observed.phase
  report.reason = observed.reason
  report.message = observed.message
  const last = report.timeline[report.timeline.length - 1]
  if (last && last.phase === observed.phase && last.reason === observed.reason) return false
  report.timeline.push({ at, ...observed })
  return true
}

export function isSuccess(outcome: Outcome | null): boolean {
  return outcome === 'promoted' || outcome === 'would-promote' || outcome === 'passed'
}
