// What a run did, as the summary, the outputs, the log epilogue and the pull-request comment show
// it. Built once at the end from the facts of the step results (build.ts), in one part per concern;
// never mutated by a step. A fact that is not known is absent (undefined), never ''; the outputs
// write an unknown as '' at the edge (outputs.ts).
import type { ControllerClock } from '../kube/controller-clock.js'
import type { PromotionResult } from '../objects/coder-k8s.js'
import type { Delivery, Mode } from '../settings/settings.js'
import type { FailureKind } from '../steps/failure-kinds.js'
import type { FailureStatus, StepStatus } from '../steps/step.js'
import type { Rollback } from '../steps/verify.js'
import type { TimelineEntry } from '../steps/wait.js'
import type { VerificationResult } from '../verdict/live.js'

export type RowName =
  | 'preflight'
  | 'push'
  | 'presets'
  | 'locate'
  | 'commit'
  | 'pull-request'
  | 'merge'
  | 'refresh'
  | 'sync'
  | 'test'
  | 'promote'
  | 'verify'
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

/** The workflow run; absent parts when the runner did not say which run it is. */
export interface RunPart {
  url?: string
  label?: string
}

/** A version of the template, with its page in the Coder dashboard when that is known. */
export interface VersionPart {
  name?: string
  id?: string
  url?: string
}

/**
 * Where the version under test comes from: pushed by this run, located (the promote job), named by
 * the input only (no push ran), or named by a push that failed (Coder may keep a failed import).
 */
export type VersionOrigin = 'pushed' | 'located' | 'named' | 'import-failed'

export interface TemplatePart {
  /** The template as Coder spells it once the preflight or the push read it, else the input. */
  name?: string
  organization?: string
  version: VersionPart & { origin: VersionOrigin }
  /** The active version when the run started (previous-active-version-id). */
  previousActive?: VersionPart
  /** Read from Coder at the end of the run; absent when that read failed. */
  active?: VersionPart
}

/** What the commit step did: the manifest, and the branch it went to. */
export type CommitPart =
  | { state: 'not run' }
  /** outcomeUnknown: the commit may have landed; only the branch can tell. */
  | { state: 'failed' | 'cancelled'; outcomeUnknown?: boolean }
  | { state: 'committed'; manifestPath: string; branch: string; onBase: boolean }

/** What the merge step did (pull-request mode). */
export type MergePart =
  | { state: 'merged' }
  | {
      state: 'not merged'
      status: FailureStatus
      /** false: the gate never asked for auto-merge; absent: not known. */
      autoMergeAsked?: boolean
      autoMergeOff?: boolean
    }

export interface GitOpsPart {
  /** owner/repo of the GitOps repository. */
  repository?: string
  delivery?: Delivery
  /** pull-request-merge: auto. */
  autoMerge: boolean
  /** gitops-branch, or the repository's default branch once the preflight read it. */
  base?: string
  manifestPath?: string
  commit: CommitPart
  /**
   * The commit that reached the watched branch: the commit step's, the merge commit in
   * pull-request mode, or the one the promote job located. Absent when Git already held it.
   */
  landed?: { sha: string; url?: string; branch?: string }
  pullRequest?: { number: string; url: string }
  /** Absent when the merge step did not run. */
  merge?: MergePart
  prunedManifests: string[]
  /** keep-tests removals left out at commit time: another file was at the path by then. */
  prunedKept: string[]
}

export interface TestPart {
  namespace?: string
  name?: string
  /** How to look at the test: `kubectl get codertemplatetest -n <ns> <name> -o yaml`. */
  inspectCommand?: string
  /** The run waited for the test (its manifest reached the watched branch). */
  lookedFor: boolean
  /** The test was seen in the cluster. */
  exists: boolean
  /** The wait gave up before the test appeared (sync-timeout). */
  syncTimedOut: boolean
  /** sync-seconds: from the change landing on the branch to the first read of the test. */
  syncSeconds?: number
  phase?: string
  reason?: string
  message?: string
  timeline: TimelineEntry[]
  /** The test's milestones on the controller's clock, for the chart; absent when never seen. */
  clock?: ControllerClock
  /** The test workspace as the test's status names it; absent until the status does. */
  workspace?: {
    name: string
    ownerId?: string
    /** The WorkspaceDeleted condition as `<status>/<reason>`. */
    deleted?: string
  }
}

/** One test of the run (test-results): the default test, or one per preset. */
export interface TestResultPart {
  name: string
  /** '' for the default test. */
  preset: string
  phase?: string
  reason?: string
  /** status.templateVersionID as last read. */
  versionId?: string
  /** On the runner's clock: first seen in the cluster, and final. */
  seenAt?: number
  finalAt?: number
  timeline: TimelineEntry[]
}

export interface PromotionPart {
  result?: PromotionResult | 'Skipped' | 'Refused'
  confirmedBy?: 'answer' | 're-read'
  /** A promote request was sent: a cancel after it leaves the outcome unknown. */
  requested: boolean
}

export interface TidyPart {
  /** Names archived by keep-versions or archive-failed (archived-versions). */
  archived: string[]
  /** promote: dry-run: the names keep-versions would archive. */
  wouldArchive: string[]
  /** `<name>: <why>` for each version the tidy step chose and left, or kept beyond the N newest. */
  notes: string[]
  /** This run's version was archived (archive-failed). */
  oursArchived: boolean
}

/** mode: verify: what ran live, the result, and the rollback with its guard. */
export interface VerificationPart {
  result?: VerificationResult
  /** The version the live test ran (status.templateVersionID). */
  ran?: VersionPart
  /** Inconclusive: why. */
  why?: string
  rollback?: {
    outcome: Rollback['outcome']
    target?: VersionPart
    detail: string
  }
}

/** Why the run did not succeed: a step's failure, or an error outside any step (no kind then). */
export interface FailurePart {
  kind?: FailureKind
  /** The one sentence that explains the failure. */
  error: string
  /** The items behind the error: invalid inputs, failed checks, integrity problems. */
  problems: string[]
  /** What to do next, one sentence each. */
  advice: string[]
  /** The section of docs/troubleshooting.md as text, and as a link when the action's repository is known. */
  troubleshooting?: { ref: string; url?: string }
}

export interface RunReport {
  startedAt: number
  /** The mode input: a promote job pushes and commits nothing. */
  mode: Mode
  outcome: Outcome
  run: RunPart
  template: TemplatePart
  gitops: GitOpsPart
  test: TestPart
  /** Every test of the run (one per preset with test-presets); empty until one was committed. */
  tests: TestResultPart[]
  promotion: PromotionPart
  tidy: TidyPart
  /** mode: verify only. */
  verification?: VerificationPart
  /** The GitHub deployment that recorded this run (deployment-environment). */
  deployment?: { id: string; environment: string }
  /** Absent when the run succeeded. */
  failure?: FailurePart
  /** Things that went through but need attention (a template created untested). */
  warnings: string[]
  /** What the run leaves behind in Coder, Git and the cluster, and how to clean it up. */
  leftBehind: string[]
  rows: StepRow[]
}

export function isSuccess(outcome: Outcome): boolean {
  return outcome === 'promoted' || outcome === 'would-promote' || outcome === 'passed'
}

/** A run of which nothing is known: the base of hand-made reports in tests. */
export function emptyReport(startedAt: number): RunReport {
  return {
    startedAt,
    mode: 'gate',
    outcome: 'failed',
    run: {},
    template: { version: { origin: 'named' } },
    gitops: { autoMerge: false, commit: { state: 'not run' }, prunedManifests: [], prunedKept: [] },
    test: { lookedFor: false, exists: false, syncTimedOut: false, timeline: [] },
    tests: [],
    promotion: { requested: false },
    tidy: { archived: [], wouldArchive: [], notes: [], oursArchived: false },
    warnings: [],
    leftBehind: [],
    rows: []
  }
}

/** '' as unknown: text that another part of the run gave as '' when it did not know. */
export function known(text: string | undefined | null): string | undefined {
  return text ? text : undefined
}
