// The report, assembled once from the journal of step results and the active version observed at
// the end: each part from the steps it is about (parts.ts), the outcome and the failure from the
// step that stopped the run, and what stays behind from the report itself (left-behind.ts).
// Pure: the same journal gives the same report, so every path has a table test.
import type { VersionFacts } from '../promotion/guard.js'
import type { Journal } from '../steps/journal.js'
import type { Failure } from '../steps/step.js'
import { activeVersionCheck, leftBehind } from './left-behind.js'
import { troubleshootingUrlOf } from './links.js'
import {
  gitopsPart,
  type PartsContext,
  promotionPart,
  runPart,
  templatePart,
  testPart,
  tidyPart,
  warningsOf
} from './parts.js'
import {
  type FailurePart,
  known,
  type Outcome,
  type PromotionPart,
  type RunReport,
  type TemplatePart,
  type VerificationPart,
  type VersionPart
} from './report.js'
import { stepRows } from './rows.js'
import { testResultsOf } from './test-results.js'
import { rollbackPromotion, verificationPart, verificationWarnings } from './verification.js'

export interface BuildContext extends PartsContext {
  startedAt: number
  /** The active version read from Coder at the end; null when the read failed or was not possible. */
  observed: VersionFacts | null
  /** The GitHub deployment that recorded the run (deployment-environment). */
  deployment?: { id: string; environment: string }
  /** GITHUB_ACTION_REPOSITORY and GITHUB_ACTION_REF: where docs/troubleshooting.md is. */
  actionRepository?: string
  actionRef?: string
}

export function buildReport(journal: Journal, context: BuildContext): RunReport {
  const template = templatePart(journal, context.observed)
  const promotion = rollbackPromotion(journal) ?? promotionPart(journal)
  const verification = verificationPart(journal)
  const failure = failurePart(journal, context, template, promotion, verification)
  const facts: Omit<RunReport, 'leftBehind'> = {
    startedAt: context.startedAt,
    mode: journal.value('inputs')?.settings.mode ?? 'gate',
    outcome: outcomeOf(journal),
    run: runPart(journal, context),
    template,
    gitops: gitopsPart(journal, context),
    test: testPart(journal),
    tests: testResultsOf(journal),
    promotion,
    tidy: tidyPart(journal),
    ...(verification ? { verification } : {}),
    ...(context.deployment ? { deployment: context.deployment } : {}),
    ...(failure ? { failure } : {}),
    warnings: [...warningsOf(journal), ...verificationWarnings(journal)],
    rows: stepRows(journal)
  }
  return { ...facts, leftBehind: leftBehind(facts) }
}

const OUTCOME_OF_STATUS: Record<Failure['status'], Outcome> = {
  failed: 'failed',
  'timed out': 'timed-out',
  cancelled: 'cancelled',
  refused: 'refused'
}

function outcomeOf(journal: Journal): Outcome {
  const entry = journal.failedEntry()
  if (entry && !entry.result.ok) {
    const { failure } = entry.result
    return failure.kind === 'invalid-input' && failure.status === 'failed'
      ? 'invalid-input'
      : OUTCOME_OF_STATUS[failure.status]
  }
  if (journal.crashed !== null) return 'failed'
  return successOutcome(journal)
}

function failurePart(
  journal: Journal,
  context: BuildContext,
  template: TemplatePart,
  promotion: PromotionPart,
  verification?: VerificationPart
): FailurePart | undefined {
  const entry = journal.failedEntry()
  if (entry && !entry.result.ok) {
    const { failure } = entry.result
    const url = troubleshootingUrlOf(failure.kind, {
      serverUrl: context.serverUrl,
      repository: context.actionRepository,
      ref: context.actionRef
    })
    return {
      kind: failure.kind,
      error:
        failure.status === 'cancelled'
          ? promotion.requested
            ? cancelledAfterRequest(template, rollbackSent(verification))
            : 'The run was cancelled. Nothing was promoted.'
          : failure.message,
      problems: failure.problems,
      advice: failure.advice,
      troubleshooting: { ref: `docs/troubleshooting.md#${failure.kind}`, url: known(url) }
    }
  }
  if (journal.crashed === null) return undefined
  return {
    error: `The action failed unexpectedly: ${journal.crashed}. Please report this.`,
    problems: [],
    advice: []
  }
}

/** mode: verify: the rollback target, when a cancel cut its request. */
function rollbackSent(verification: VerificationPart | undefined): VersionPart | undefined {
  const rollback = verification?.rollback
  return rollback?.outcome === 'sent' ? rollback.target : undefined
}

/** A cancel cut the promote (or rollback) request: the final read says what is known, never "nothing". */
function cancelledAfterRequest(template: TemplatePart, rollbackTarget?: VersionPart): string {
  const { active } = template
  const version = rollbackTarget ?? template.version
  const which = rollbackTarget ? 'the rollback target' : 'the tested version'
  const request = rollbackTarget ? 'rollback' : 'promote'
  const ours = `${version.name ?? ''} (${version.id ?? ''})`
  const check = activeVersionCheck(template)
  if (version.id && active?.id === version.id)
    return `The run was cancelled after the ${request} request was sent, and the version read at the end is ${rollbackTarget ? which : 'the tested one'}: ${ours} is active. Check which version is active now: ${check}`
  return `The run was cancelled while the ${request} request was in flight: ${which} ${ours} may be active, now or once Coder applies the request. Check which version is active: ${check}`
}

function successOutcome(journal: Journal): Outcome {
  // mode: verify: Passed and Inconclusive end the run with success (Failed is a failed step).
  if (journal.value('verify')) return 'passed'
  const promotion = journal.value('promote')
  const mode = journal.value('inputs')?.settings.promote
  if (!promotion) return 'failed'
  if (promotion.result === 'Skipped') return 'passed'
  if (promotion.result === 'WouldPromote' || mode === 'dry-run') return 'would-promote'
  return 'promoted'
}
