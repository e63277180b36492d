// What a run did, as the summary, the outputs, the log epilogue and the pull-request comment show
// it. Built once at the end from the journal of step results (build.ts), never mutated by a step.
import type { PromotionResult } from '../kube/objects.js'
import type { RunMode } from '../settings/settings.js'
import type { FailureKind } from '../steps/failure-kinds.js'
import type { StepStatus } from '../steps/step.js'
import type { ControllerClock } from '../kube/controller-clock.js'
import type { TimelineEntry } from '../steps/wait.js'

export type RowName =
  | 'preflight'
  | 'push'
  | 'locate'
  | 'commit'
  | 'pull-request'
  | 'merge'
  | 'sync'
  | 'test'
  | 'promote'
  | 'tidy'

export type RowResult = StepStatus | 'not run'

export interface StepRow {
  name: RowName
  result: RowResult
  startedAt?: number
  endedAt?: number
  detail: string
}

export type Outcome =
  | 'promoted' // passed and promoted (or already active)
  | 'would-promote' // passed; dry-run preview
  | 'passed' // passed; promotion skipped (promote: false)
  | 'refused' // passed; the promotion guard refused
  | 'failed'
  | 'timed-out'
  | 'cancelled'
  | 'invalid-input'

export type { TimelineEntry }

export interface RunReport {
  startedAt: number
  outcome: Outcome
  failureKind: FailureKind | null
  /** The one sentence that explains a failure. */
  error: string
  /** What to do next, one sentence each. */
  advice: string[]
  /** The items behind the error: invalid inputs, failed checks, integrity problems. */
  problems: string[]
  /** Things that went through but need attention (a template created untested). */
  warnings: string[]
  /** What the run leaves behind in Coder, Git and the cluster, and how to clean it up. */
  leftBehind: string[]
  /** How to look at the test: `kubectl get codertemplatetest -n <ns> <name> -o yaml`. */
  inspectCommand: string
  /** The test was seen in the cluster. */
  testExists: boolean
  /** The run waited for the test (its manifest reached the watched branch). */
  testLookedFor: boolean
  /** The section of docs/troubleshooting.md as a link; '' when the action's repository is unknown. */
  troubleshootingUrl: string
  /** The same section as text (`docs/troubleshooting.md#<kind>`), on every failure. */
  troubleshootingRef: string
  template: string
  organization: string
  namespace: string
  versionName: string
  versionId: string
  testName: string
  manifestPath: string
  commitSha: string
  commitUrl: string
  /** The branch the commit went to: gitops-branch, or the gate's branch of a pull request. */
  commitBranch: string
  /** owner/repo of the GitOps repository. */
  gitopsRepository: string
  /** The workflow run as a real link, or '' when the runner did not say which run it is. */
  runUrl: string
  runLabel: string
  pullRequestNumber: string
  pullRequestUrl: string
  prunedManifests: string[]
  /** Names archived by keep-versions or archive-failed (archived-versions). */
  archivedVersions: string[]
  /** promote: dry-run: the names keep-versions would archive. */
  wouldArchiveVersions: string[]
  /** `<name>: <why>` for each version the tidy step chose and left, or kept beyond the N newest. */
  tidyNotes: string[]
  /** keep-tests removals left out at commit time: another file was at the path by then. */
  prunedKept: string[]
  phase: string
  reason: string
  message: string
  timeline: TimelineEntry[]
  /** The test's milestones on the controller's clock, for the chart; null when never seen. */
  controllerClock: ControllerClock | null
  promotionResult: PromotionResult | 'Skipped' | 'Refused' | ''
  promotionConfirmedBy: 'answer' | 're-read' | ''
  /** A promote request was sent: a cancel after it leaves the outcome unknown. */
  promotionRequested: boolean
  previousActiveVersionId: string
  previousActiveVersionName: string
  /** Read from Coder at the end of the run; '' when that read failed. */
  activeVersionId: string
  activeVersionName: string
  /** The versions in the Coder dashboard; '' when unknown. */
  versionUrl: string
  previousActiveVersionUrl: string
  activeVersionUrl: string
  /** The test workspace as the test's status names it; '' until the status does. */
  workspaceName: string
  workspaceOwnerId: string
  /** The WorkspaceDeleted condition as `<status>/<reason>`. */
  workspaceDeleted: string
  rows: StepRow[]
  /** The mode input: a promote job pushes and commits nothing. */
  mode: RunMode
}

export function isSuccess(outcome: Outcome): boolean {
  return outcome === 'promoted' || outcome === 'would-promote' || outcome === 'passed'
}

export function emptyReport(startedAt: number): RunReport {
  return {
    startedAt,
    outcome: 'failed',
    failureKind: null,
    error: '',
    advice: [],
    problems: [],
    warnings: [],
    leftBehind: [],
    inspectCommand: '',
    testExists: false,
    testLookedFor: false,
    troubleshootingUrl: '',
    troubleshootingRef: '',
    template: '',
    organization: '',
    namespace: '',
    versionName: '',
    versionId: '',
    testName: '',
    manifestPath: '',
    commitSha: '',
    commitUrl: '',
    commitBranch: '',
    gitopsRepository: '',
    runUrl: '',
    runLabel: '',
    pullRequestNumber: '',
    pullRequestUrl: '',
    prunedManifests: [],
    archivedVersions: [],
    wouldArchiveVersions: [],
    tidyNotes: [],
    prunedKept: [],
    phase: '',
    reason: '',
    message: '',
    timeline: [],
    controllerClock: null,
    promotionResult: '',
    promotionConfirmedBy: '',
    promotionRequested: false,
    previousActiveVersionId: '',
    previousActiveVersionName: '',
    activeVersionId: '',
    activeVersionName: '',
    versionUrl: '',
    previousActiveVersionUrl: '',
    activeVersionUrl: '',
    workspaceName: '',
    workspaceOwnerId: '',
    workspaceDeleted: '',
    rows: [],
    mode: 'gate'
  }
}
