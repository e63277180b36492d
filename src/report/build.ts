// The report, built from the journal of step results and the active version observed at the end.
// Pure: the same journal gives the same report, so every path has a table test.
import { manifestPathOf } from '../verdict/manifest.js'
import type { Journal } from '../steps/journal.js'
import type { Failure } from '../steps/step.js'
import type { VersionFacts } from '../promotion/guard.js'
import { activeVersionCheck, leftBehind } from './left-behind.js'
import {
  coderVersionUrl,
  commitUrlOf,
  type RunRef,
  runLabelOf,
  runUrlOf,
  serverOfPullRequest,
  troubleshootingUrlOf
} from './links.js'
import { emptyReport, type Outcome, type RunReport } from './report.js'
import { stepRows } from './rows.js'
import { fillTidy } from './tidy-facts.js'

export interface BuildContext {
  startedAt: number
  /** The active version read from Coder at the end; null when the read failed or was not possible. */
  observed: VersionFacts | null
  /** GITHUB_ACTION_REPOSITORY and GITHUB_ACTION_REF: where docs/troubleshooting.md is. */
  actionRepository?: string
  actionRef?: string
  serverUrl?: string
  /** GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT: the run link when the inputs were invalid. */
  repository?: string
  runId?: string
  runAttempt?: string
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
  fillTidy(report, journal)
  return report
}

/** The workflow run: from the run context the inputs step read, else from the environment. */
function fillRun(report: RunReport, journal: Journal, context: BuildContext): void {
  const known = journal.value('inputs')?.context
  const run: RunRef = known ?? {
    serverUrl: context.serverUrl ?? '',
    repository: context.repository ?? '',
    runId: context.runId ?? '',
    runAttempt: context.runAttempt ?? ''
  }
  report.runUrl = runUrlOf(run)
  report.runLabel = report.runUrl ? runLabelOf(run) : ''
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
    report.mode = settings.mode
    report.gitopsRepository = `${settings.gitops.owner}/${settings.gitops.repo}`
    report.manifestPath = manifestPathOf(settings.gitops.path, settings.test.name)
    // The order of the issue and of docs/troubleshooting.md: get <kind> -n <ns> <name> -o yaml.
    report.inspectCommand = `kubectl get codertemplatetest -n ${settings.test.namespace} ${settings.test.name} -o yaml`
  }
  fillRun(report, journal, context)
  const preflight = journal.value('preflight')
  if (preflight) {
    report.organization = preflight.organization
    report.template = preflight.template
    report.previousActiveVersionId = preflight.startingActive?.id ?? ''
    report.previousActiveVersionName = preflight.startingActive?.name ?? ''
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
  fillLocated(report, journal)
  fillGitOps(report, journal, context)
  fillWait(report, journal)
  fillPromotion(report, journal)
  report.activeVersionId = context.observed?.id ?? ''
  report.activeVersionName = context.observed?.name ?? ''
  fillVersionLinks(report, journal)
}

function fillGitOps(report: RunReport, journal: Journal, context: BuildContext): void {
  const committed = journal.value('commit')
  if (committed) {
    report.commitSha = committed.commitSha
    report.commitUrl = committed.commitUrl
    report.commitBranch = committed.branch
    report.prunedManifests = committed.pruned
    report.prunedKept = (committed.prunedDropped ?? [])
      .filter((d) => d.reason === 'replaced')
      .map((d) => d.path)
  }
  const opened = journal.value('pull-request')
  if (opened) {
    report.pullRequestNumber = String(opened.number)
    report.pullRequestUrl = opened.url
  }
  // Pull-request mode: the commit that reached gitops-branch is the merge commit.
  const merged = journal.value('merge')
  if (merged) {
    report.commitSha = merged.mergeCommitSha
    report.commitBranch = journal.value('preflight')?.branch ?? ''
    const [owner = '', repo = ''] = report.gitopsRepository.split('/')
    // The server that gave the pull request's html_url, else GITHUB_SERVER_URL.
    const server = serverOfPullRequest(report.pullRequestUrl) || context.serverUrl || ''
    report.commitUrl = commitUrlOf(server, owner, repo, merged.mergeCommitSha)
  }
}

/** The promote job: the version and the manifest commit that the test job left. */
function fillLocated(report: RunReport, journal: Journal): void {
  const located = journal.value('locate')
  if (!located) return
  report.versionId = located.versionId
  report.versionName = located.versionName
  report.template = located.template
  report.commitSha = located.commitSha
  report.commitUrl = located.commitUrl
  report.commitBranch = located.branch
  // previous-active-version-id stays the preflight's read: the active version when this job
  // started (interface.md, outputs), not expected-active-version-id.
}

function fillWait(report: RunReport, journal: Journal): void {
  const wait = journal.entry('wait')?.result
  report.testLookedFor = wait !== undefined
  const waitFacts = wait ? (wait.ok ? wait.value : wait.facts) : undefined
  if (!waitFacts) return
  report.testExists = waitFacts.syncedAt !== null
  report.timeline = waitFacts.timeline
  report.controllerClock = waitFacts.clock ?? null
  report.phase = waitFacts.last?.phase ?? ''
  report.reason = waitFacts.last?.reason ?? ''
  report.message = waitFacts.last?.message ?? ''
  const workspace = waitFacts.workspace ?? null
  report.workspaceName = workspace?.name ?? ''
  report.workspaceOwnerId = workspace?.ownerId ?? ''
  report.workspaceDeleted = workspace?.deleted ?? ''
}

/** The tested, previous and active versions in the Coder dashboard. */
function fillVersionLinks(report: RunReport, journal: Journal): void {
  // Before the preflight, the organization is the input as written (maybe an alias): no link then.
  const coderUrl = journal.value('preflight')
    ? (journal.value('inputs')?.settings.coder.url ?? '')
    : ''
  const link = (name: string): string =>
    coderVersionUrl(coderUrl, report.organization, report.template, name)
  if (journal.value('push') || journal.value('locate')) report.versionUrl = link(report.versionName)
  report.previousActiveVersionUrl = link(report.previousActiveVersionName)
  report.activeVersionUrl = link(report.activeVersionName)
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
  report.troubleshootingUrl = troubleshootingUrlOf(failure.kind, {
    serverUrl: context.serverUrl,
    repository: context.actionRepository,
    ref: context.actionRef
  })
  report.troubleshootingRef = `docs/troubleshooting.md#${failure.kind}`
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
        ? cancelledAfterRequest(report)
        : 'The run was cancelled. Nothing was promoted.'
      : failure.message
}

/** A cancel cut the promote request: the final read says what is known, never "nothing". */
function cancelledAfterRequest(report: RunReport): string {
  const ours = `${report.versionName} (${report.versionId})`
  const check = activeVersionCheck(report)
  if (report.versionId && report.activeVersionId === report.versionId)
    return `The run was cancelled after the promote request was sent, and the version read at the end is the tested one: ${ours} is active. Check which version is active now: ${check}`
  return `The run was cancelled while the promote request was in flight: the tested version ${ours} may be active, now or once Coder applies the request. Check which version is active: ${check}`
}

function successOutcome(journal: Journal): Outcome {
  const promotion = journal.value('promote')
  const mode = journal.value('inputs')?.settings.promote
  if (!promotion) return 'failed'
  if (promotion.result === 'Skipped') return 'passed'
  if (promotion.result === 'WouldPromote' || mode === 'dry-run') return 'would-promote'
  return 'promoted'
}
