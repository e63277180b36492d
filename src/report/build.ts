// The report, built from the journal of step results and the active version observed at the end.
// Pure: the same journal gives the same report, so every path has a table test.
import { manifestPathOf } from '../manifest.js'
import type { Journal } from '../steps/journal.js'
import type { Failure } from '../steps/step.js'
import type { VersionFacts } from '../promotion-guard.js'
import { emptyReport, type Outcome, type RunReport } from './report.js'
import { stepRows } from './rows.js'

export interface BuildContext {
  startedAt: number
  /** The active version read from Coder at the end; null when the read failed or was not possible. */
  observed: VersionFacts | null
  /** GITHUB_ACTION_REPOSITORY and GITHUB_ACTION_REF: where docs/troubleshooting.md is. */
  actionRepository?: string
  actionRef?: string
  serverUrl?: string
}

export function buildReport(journal: Journal, context: BuildContext): RunReport {
  const report = emptyReport(context.startedAt)
  fillFacts(report, journal, context)
  report.rows = stepRows(journal)
  const failure = journal.failedEntry()
  if (failure && !failure.result.ok) {
    fillFailure(report, failure.result.failure, context)
  } else if (journal.crashed !== null) {
    report.outcome = 'failed'
    report.error = `The action failed unexpectedly: ${journal.crashed}. Please report this.`
  } else {
    report.outcome = successOutcome(journal)
  }
  report.leftBehind = leftBehind(report, journal)
  return report
}

function fillFacts(report: RunReport, journal: Journal, context: BuildContext): void {
  const inputs = journal.value('inputs')
  if (inputs) {
    const { settings } = inputs
    report.template = settings.coder.template
    report.organization = settings.coder.organization
    report.namespace = settings.test.namespace
    report.versionName = settings.coder.version
    report.testName = settings.test.name
    report.runUrl = settings.runUrl
    report.manifestPath = manifestPathOf(settings.gitops.path, settings.test.name)
    report.inspectCommand = `kubectl -n ${settings.test.namespace} get codertemplatetest ${settings.test.name} -o yaml`
  }
  const preflight = journal.value('preflight')
  if (preflight) {
    report.organization = preflight.organization
    report.template = preflight.template
    report.previousActiveVersionId = preflight.startingActive?.id ?? ''
  }
  const pushed = journal.value('push')
  if (pushed) {
    report.versionId = pushed.versionId
    report.versionName = pushed.versionName
    report.template = pushed.template
    if (pushed.createdTemplate)
      report.warnings.push(
        `The push created template ${pushed.template}, and Coder made version ${pushed.versionName} its active version before any test (create-template: true).`
      )
  }
  const committed = journal.value('commit')
  if (committed) {
    report.commitSha = committed.commitSha
    report.commitUrl = committed.commitUrl
    report.prunedManifests = committed.pruned
  }
  const opened = journal.value('pull-request')
  if (opened) {
    report.pullRequestNumber = String(opened.number)
    report.pullRequestUrl = opened.url
  }
  // Pull-request mode: the commit that reached gitops-branch is the merge commit.
  const merged = journal.value('merge')
  if (merged) report.commitSha = merged.mergeCommitSha
  const wait = journal.entry('wait')?.result
  const waitFacts = wait ? (wait.ok ? wait.value : wait.facts) : undefined
  if (waitFacts) {
    report.timeline = waitFacts.timeline
    report.phase = waitFacts.last?.phase ?? ''
    report.reason = waitFacts.last?.reason ?? ''
    report.message = waitFacts.last?.message ?? ''
  }
  fillPromotion(report, journal)
  report.activeVersionId = context.observed?.id ?? ''
  report.activeVersionName = context.observed?.name ?? ''
}

function fillPromotion(report: RunReport, journal: Journal): void {
  const promote = journal.entry('promote')?.result
  if (!promote) return
  if (promote.ok) {
    report.promotionResult = promote.value.result
    report.promotionConfirmedBy = promote.value.confirmedBy
    return
  }
  report.promotionRequested = promote.facts?.requestSent ?? false
  if (promote.failure.kind === 'refused') report.promotionResult = 'Refused'
}

function fillFailure(report: RunReport, failure: Failure, context: BuildContext): void {
  report.failureKind = failure.kind
  report.problems = failure.problems
  report.advice = failure.advice
  report.troubleshootingUrl = troubleshootingUrl(failure.kind, context)
  const outcome: Record<Failure['status'], Outcome> = {
    failed: failure.kind === 'invalid-input' ? 'invalid-input' : 'failed',
    'timed out': 'timed-out',
    cancelled: 'cancelled',
    refused: 'refused'
  }
  report.outcome = outcome[failure.status]
  report.error =
    failure.status === 'cancelled'
      ? report.promotionRequested
        ? 'The run was cancelled after a promote request was sent: the tested version may or may not be active. Check the active version of the template.'
        : 'The run was cancelled. Nothing was promoted.'
      : failure.message
}

function successOutcome(journal: Journal): Outcome {
  const promotion = journal.value('promote')
  const mode = journal.value('inputs')?.settings.promote
  if (!promotion) return 'failed'
  if (promotion.result === 'Skipped') return 'passed'
  if (promotion.result === 'WouldPromote' || mode === 'dry-run') return 'would-promote'
  return 'promoted'
}

function troubleshootingUrl(kind: string, context: BuildContext): string {
  if (!context.actionRepository) return ''
  const server = (context.serverUrl || 'https://github.com').replace(/\/+$/, '')
  const ref = context.actionRef || 'main'
  return `${server}/${context.actionRepository}/blob/${ref}/docs/troubleshooting.md#${kind}`
}

/** What stays in Coder, Git and the cluster when the run did not promote. */
function leftBehind(report: RunReport, journal: Journal): string[] {
  if (report.outcome === 'promoted' || report.outcome === 'invalid-input') return []
  const lines: string[] = []
  const pushed = journal.value('push')
  if (pushed && report.activeVersionId !== pushed.versionId) {
    lines.push(
      `Version ${pushed.versionName} (${pushed.versionId}) stays in Coder, inactive; a re-run of this commit reuses it.`
    )
  }
  const committed = journal.value('commit')
  const merged = journal.value('merge')
  const opened = journal.value('pull-request')
  if (opened && !merged && !opened.merged) {
    lines.push(`Pull request #${opened.number} stays open: ${opened.url}`)
  } else if (committed && (committed.commitSha || !opened)) {
    lines.push(
      `The manifest ${committed.manifestPath} stays in Git; remove it (or use keep-tests) when the version is not needed.`
    )
  }
  const wait = journal.entry('wait')?.result
  const synced = wait ? (wait.ok ? wait.value.syncedAt : wait.facts?.syncedAt) : null
  if (synced) {
    lines.push(
      `The test ${report.namespace}/${report.testName} stays in the cluster while its manifest is in Git: ${report.inspectCommand}`
    )
  }
  return lines
}
