// The types of the wait step (wait.ts) and of its wait for a set of tests (wait-set.ts), in a
// module of their own so that neither imports the other's.
import type { KubeConfig } from '@kubernetes/client-node'
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import type { ControllerClock } from '../kube/controller-clock.js'
import type { TestSettings } from '../settings/settings.js'
import type { Observed } from '../verdict/verdict.js'
import type { Committed } from './commit.js'
import type { Pushed } from './push.js'

export interface TimelineEntry extends Observed {
  at: number
}

/** The test workspace as the last status names it (coder-k8s's codertemplatetest_types.go). */
export interface TestWorkspace {
  /** status.workspaceName: deterministic, `ktt-<uid>`. */
  name: string
  /** status.ownerID: the Coder user (the tester) that owns it; absent until written. */
  ownerId?: string
  /** The WorkspaceDeleted condition as `<status>/<reason>`; absent without one. */
  deleted?: string
}

/** One test of the run as the wait saw it: the test-results entry, and its bar in the chart. */
export interface TestFacts {
  name: string
  /** '' for the default test. */
  preset: string
  syncedAt: number | null
  timeline: TimelineEntry[]
  last: Observed | null
  /** status.templateVersionID of the last read; absent when none. */
  versionId?: string
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
  /** Every test of the run, one per preset (test-presets); absent: the one test above. */
  tests?: TestFacts[]
  /** The test the facts above are of: the one test, or the one that decided the verdict. */
  testName?: string
}

export interface Tested extends WaitFacts {
  test: CoderTemplateTest
  /** status.templateVersionID of the object that passed: exactly the version to promote. */
  versionId: string
}

export interface TestWaitInput {
  test: TestSettings
  committed: Pick<Committed, 'manifest'> & Partial<Pick<Committed, 'tests'>>
  pushed: Pick<Pushed, 'versionId' | 'versionName'>
  kc: KubeConfig
  /** When the manifest reached the watched branch (the commit, or the merge). */
  syncFrom: number
  /** This run put the change on the branch (a commit or a merge), rather than finding it there. */
  landed?: boolean
  /** For the elapsed time in front of each log line. */
  runStartedAt: number
  /**
   * mode: verify: the test names no version (`version.active`), so the object proves whichever
   * version its status pins; a final Failed is a result to decide from, not the step's failure.
   */
  live?: boolean
}
