// The record of a run: each step's result and timing, in order. run() calls one step per line
// through it; the report, the summary and the outputs are built from these entries, never mutated
// from inside a step. A failed step stops the run with StepStopped.
import { raceAbort } from '../timing/abort.js'
import type { FailureKind } from './failure-kinds.js'
import type { ValidInputs } from './inputs.js'
import type { Located } from './locate.js'
import type { Merged, MergeFacts } from './merge.js'
import type { OpenedPullRequest } from './pull-request.js'
import type { Preflight } from './preflight.js'
import type { PromoteFacts, Promotion } from './promote.js'
import type { Pushed } from './push.js'
import type { TestPlan } from './presets.js'
import type { Refreshed } from './refresh.js'
import type { Tidied } from './tidy.js'
import {
  cancelled,
  type FactSink,
  failed,
  messageOf,
  type StepContext,
  type StepResult
} from './step.js'
import type { Verification } from './verify.js'
import type { Tested, WaitFacts } from './wait.js'
import type { CommitFacts, Committed } from './commit.js'

export interface StepValues {
  inputs: ValidInputs
  preflight: Preflight
  push: Pushed
  presets: TestPlan
  locate: Located
  commit: Committed
  'pull-request': OpenedPullRequest
  merge: Merged
  refresh: Refreshed
  wait: Tested
  promote: Promotion
  verify: Verification
  tidy: Tidied
}

/**
 * What a step leaves when it does not succeed (published as it goes, kept on a cancel). On success
 * its value holds its facts; `Journal.factsOf` reads them on either path. The report's parts are
 * built from these two records only (src/report/parts.ts).
 */
export interface StepFacts {
  inputs: never
  preflight: never
  push: never
  presets: never
  locate: never
  commit: CommitFacts
  'pull-request': never
  merge: MergeFacts
  refresh: never
  wait: WaitFacts
  promote: PromoteFacts
  verify: Verification
  tidy: never
}

export type StepName = keyof StepValues

export type JournalEntry = {
  [K in StepName]: {
    name: K
    startedAt: number
    endedAt: number
    result: StepResult<StepValues[K], StepFacts[K]>
  }
}[StepName]

/** What an unexpected error of a step counts as. */
const UNEXPECTED_KIND: Record<StepName, FailureKind> = {
  inputs: 'invalid-input',
  preflight: 'preflight',
  push: 'push',
  presets: 'presets',
  locate: 'locate',
  commit: 'commit',
  'pull-request': 'pull-request',
  merge: 'pull-request',
  // Not reached: the refresh step turns every error into a warning.
  refresh: 'wait-failed',
  wait: 'wait-failed',
  promote: 'promote-failed',
  verify: 'test-failed',
  // Not reached: the tidy step turns every error into a warning.
  tidy: 'promote-failed'
}

export class StepStopped extends Error {
  override name = 'StepStopped'
  constructor(readonly step: StepName) {
    super(`the step ${step} did not succeed`)
  }
}

export class Journal {
  readonly entries: JournalEntry[] = []

  constructor(readonly context: StepContext) {}

  /** Runs one step; returns its value, or throws StepStopped after recording its failure. */
  async run<K extends StepName>(
    name: K,
    body: (
      context: StepContext & FactSink<StepFacts[K]>
    ) => Promise<StepResult<StepValues[K], StepFacts[K]>>,
    options: { cancelGraceMs?: number; group?: string } = {}
  ): Promise<StepValues[K]> {
    const { signal, now, log } = this.context
    const startedAt = now()
    // The facts the step published as it went: kept when a cancel or an error cuts it.
    let published: StepFacts[K] | undefined
    let open = true
    const publish = (facts: StepFacts[K]): void => {
      if (open) published = facts
    }
    const context = { ...this.context, publish }
    let result: StepResult<StepValues[K], StepFacts[K]>
    try {
      // No step starts after a cancel.
      if (signal.aborted) throw new CancelledWhileWaiting()
      const work = options.group ? log.group(options.group, () => body(context)) : body(context)
      // A cancel must not wait for work that cannot be interrupted (a rate-limit sleep, say).
      result = await raceAbort(work, signal, {
        graceMs: options.cancelGraceMs ?? 0,
        error: () => new CancelledWhileWaiting()
      })
    } catch (error) {
      result = signal.aborted
        ? cancelled('The run was cancelled.', published)
        : failed(UNEXPECTED_KIND[name], messageOf(error), { facts: published })
    }
    open = false // the entry is final: work that runs on after a cancel publishes nothing
    this.entries.push({ name, startedAt, endedAt: now(), result } as JournalEntry)
    // One line per step in the log; the failure itself goes to the annotation and the summary.
    log.info(result.ok ? `✓ ${name}: ${result.detail}` : `✗ ${name}: ${result.failure.status}`)
    if (!result.ok) throw new StepStopped(name)
    return result.value
  }

  entry<K extends StepName>(name: K): Extract<JournalEntry, { name: K }> | undefined {
    return this.entries.find((e): e is Extract<JournalEntry, { name: K }> => e.name === name)
  }

  value<K extends StepName>(name: K): StepValues[K] | undefined {
    const result = this.entry(name)?.result
    return result?.ok ? (result.value as StepValues[K]) : undefined
  }

  /**
   * What a step left on either path: its value when it succeeded, else the facts it published
   * (the wait's facts are its value's too: Tested extends WaitFacts).
   */
  factsOf<K extends StepName>(name: K): StepValues[K] | StepFacts[K] | undefined {
    const result = this.entry(name)?.result
    if (!result) return undefined
    return (result.ok ? result.value : result.facts) as StepValues[K] | StepFacts[K] | undefined
  }

  /** The step that stopped the run, if one did. */
  failedEntry(): JournalEntry | undefined {
    return this.entries.find((e) => !e.result.ok)
  }

  /** An error outside any step: a bug. It still ends in the summary, as a failure. */
  crashed: string | null = null

  stopped(error: unknown): void {
    if (!(error instanceof StepStopped)) this.crashed = messageOf(error)
  }
}

class CancelledWhileWaiting extends Error {
  override name = 'AbortError'
}
