// What a run that did not promote leaves in Coder, Git and the cluster, and how to clean each up, one
// sentence each. The same facts on every failure kind (docs/troubleshooting.md, "What changed").
import { pullRequestBranch } from '../verdict/manifest.js'
import type { Journal } from '../steps/journal.js'
import type { RunReport } from './report.js'

export const NOTHING_LEFT = 'Nothing: the run changed nothing in Coder, Git or the cluster.'

export function leftBehind(report: RunReport, journal: Journal): string[] {
  if (report.outcome === 'promoted') return []
  const lines = [
    ...inCoder(report, journal),
    ...inGit(report, journal),
    ...inCluster(report, journal)
  ]
  if (lines.length === 0 && report.outcome !== 'passed' && report.outcome !== 'would-promote')
    return [NOTHING_LEFT]
  return lines
}

function inCoder(report: RunReport, journal: Journal): string[] {
  // A promote job pushes nothing: the version it located is the one its promote request named.
  const located = journal.value('locate')
  const pushed = journal.value('push') ?? located
  const at = report.organization ? ` -O ${report.organization}` : ''
  if (pushed) {
    if (report.activeVersionId === pushed.versionId) return []
    if (report.promotionRequested && report.outcome === 'cancelled')
      return [
        `Version ${pushed.versionName} (${pushed.versionId}) may be active: the promote request was sent before the cancel, and Coder may apply it even after the run ended. Check which version is active with \`${activeVersionCheck(report)}\` before you run the job again.`
      ]
    if (report.activeVersionId === '' && report.promotionRequested)
      return [
        `Version ${pushed.versionName} (${pushed.versionId}) may be active: the promote request was sent and the active version could not be read afterwards. Check it with \`${activeVersionCheck(report)}\` before you run the job again.`
      ]
    // The located version is the test job's, which says what stays behind; nothing new here.
    if (!journal.value('push')) return []
    // guess: `coder templates versions archive` is from Coder's docs; coder-cli.md does not cover it.
    return [
      `Version ${pushed.versionName} (${pushed.versionId}) stays in Coder, inactive; a re-run of this commit reuses it. When it is not needed: \`coder templates versions archive ${pushed.template} ${pushed.versionName}${at} --yes\`.`
    ]
  }
  const push = journal.entry('push')
  if (!push || push.result.ok) return []
  // coder-cli.md §1.7: a failed import keeps its version, inactive, with its name taken.
  return [
    `Coder may hold a version named ${report.versionName} whose import failed or was cancelled: Coder keeps such versions, inactive, and their name stays taken. Push under a new version name; list them with \`coder templates versions list ${report.template}${at} --include-archived\`.`
  ]
}

/** The command that shows which version of the template is active (coder-cli.md §3, the CLI equivalents). */
export function activeVersionCheck(report: Pick<RunReport, 'template' | 'organization'>): string {
  const at = report.organization ? ` -O ${report.organization}` : ''
  return `coder templates versions list ${report.template}${at}`
}

function inGit(report: RunReport, journal: Journal): string[] {
  const settings = journal.value('inputs')?.settings
  const base = journal.value('preflight')?.branch ?? settings?.gitops.branch ?? ''
  const where = `${report.gitopsRepository}@${base}`
  const commit = journal.entry('commit')
  if (!commit) return []
  if (!commit.result.ok) {
    if (commit.result.failure.status === 'cancelled')
      return [
        `The commit to ${where} may have landed before the cancel: check the branch; a re-run finds its own manifest and does not commit it twice.`
      ]
    return settings?.gitops.mode === 'pull-request'
      ? [
          `Nothing reached ${where}; the branch ${pullRequestBranch(report.testName)} may exist: delete it when the version is not needed.`
        ]
      : [
          `Nothing was committed to ${where}: the manifest and any keep-tests deletions are one commit.`
        ]
  }
  const committed = commit.result.value
  const viaPullRequest = settings?.gitops.mode === 'pull-request' && !committed.onBase
  if (viaPullRequest && !journal.value('merge')) {
    const url = journal.value('pull-request')?.url ?? ''
    return [pullRequestLine(report, journal, url, committed.branch, base)]
  }
  if (report.phase === 'Failed') {
    return [
      `The manifest ${committed.manifestPath} stays in ${where}, and with it the failed test: Argo CD shows the application Degraded and Flux's health check fails until the manifest is removed. Remove the file, or set keep-tests so that later runs remove it.`
    ]
  }
  return [
    `The manifest ${committed.manifestPath} stays in ${where}; remove it (or use keep-tests) when the version is not needed.`
  ]
}

function pullRequestLine(
  report: RunReport,
  journal: Journal,
  url: string,
  branch: string,
  base: string
): string {
  if (!url)
    return `The manifest is only on the branch ${branch}, not on ${base}: delete the branch when the version is not needed.`
  const merge = journal.entry('merge')?.result
  const failure = merge && !merge.ok ? merge.failure : null
  const open = !failure || failure.status === 'timed out' || failure.status === 'cancelled'
  const state = open ? 'stays open' : 'is not merged'
  return `Pull request #${report.pullRequestNumber} ${state}: ${url}.${autoMergeClause(journal, failure?.status)} Merge it and run the job again, or close it and delete the branch ${branch} when the version is not needed.`
}

/** auto: whether the gate turned auto-merge off again, so that nothing merges unwatched. */
function autoMergeClause(journal: Journal, status: string | undefined): string {
  if (journal.value('inputs')?.settings.gitops.merge !== 'auto' || status === undefined) return ''
  const merge = journal.entry('merge')?.result
  const off = merge && !merge.ok ? merge.facts?.autoMergeOff : undefined
  if (off === true)
    return ' The gate turned its auto-merge off: nothing merges while no run watches.'
  // A cancel keeps no facts: the log says whether turning it off worked.
  if (status === 'cancelled')
    return ' The gate asked GitHub to turn its auto-merge off on the cancel (the log says whether it did): check it before you merge.'
  if (off === false) return ' Its auto-merge may still be on: turn it off, or it merges unwatched.'
  return ''
}

function inCluster(report: RunReport, journal: Journal): string[] {
  const wait = journal.entry('wait')?.result
  if (!wait) return []
  const facts = wait.ok ? wait.value : wait.facts
  const test = `${report.namespace}/${report.testName}`
  if (!facts?.syncedAt) {
    if (!wait.ok && wait.failure.kind === 'sync-timeout')
      return [
        `No test ${test} appeared in the cluster yet: once Argo CD or Flux applies the manifest, the test runs; a re-run waits for it again.`
      ]
    return []
  }
  return [
    `The test ${test} stays in the cluster while its manifest is in Git (with pruning on, Argo CD or Flux delete it once the file is gone)${workspaceClause(report.workspaceName, report.workspaceDeleted)}.`
  ]
}

/**
 * The test workspace after the run, from the WorkspaceDeleted condition (coder-k8s-api.md §1.5, and
 * §1.10: the finalizer is released on True, Retained and ControlPlaneGone, so then nobody deletes it).
 */
const WORKSPACE_AFTER: Record<string, (name: string) => string> = {
  'True/Deleted': (name) => `; its workspace ${name} is deleted`,
  'True/DeletedExternally': (name) => `; its workspace ${name} was deleted outside the controller`,
  'True/NotCreated': (name) => `; no workspace ${name} was created`,
  'False/Retained': (name) =>
    `; its workspace ${name} is kept (coder.com/deletion-policy: retain): delete it in Coder when done`,
  'Unknown/ControlPlaneGone': (name) =>
    `; its workspace ${name} may still exist and nobody deletes it now that the CoderControlPlane is gone: delete it in Coder`,
  'Unknown/CreateOutcomeUnknown': (name) =>
    `; whether its workspace ${name} exists is unknown: check Coder for it`,
  'Unknown/OwnershipUnknown': (name) =>
    `; a workspace ${name} may exist that the controller cannot prove is its own: check Coder for it`,
  'False/CoderAnswerMismatch': (name) =>
    `; Coder answered unexpectedly about its workspace ${name}: check Coder for it`
}

/** Pure: what becomes of the test workspace, from its name and WorkspaceDeleted `<status>/<reason>`. */
export function workspaceClause(name: string, deleted: string): string {
  if (!name) return ''
  const known = Object.hasOwn(WORKSPACE_AFTER, deleted) ? WORKSPACE_AFTER[deleted] : undefined
  if (known) return known(name)
  if (deleted)
    return `; its workspace ${name} may still exist (WorkspaceDeleted ${deleted}), and the controller deletes it`
  return `; its workspace ${name} may still exist while the test runs`
}
