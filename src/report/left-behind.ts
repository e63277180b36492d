// What a run that did not promote leaves in Coder, Git and the cluster, and how to clean each up, one
// sentence each. The same facts on every failure kind (docs/troubleshooting.md, "What changed").
// Pure: it reads the report only, never the journal.
import { unarchiveCommand } from '../steps/tidy.js'
import { pullRequestBranch } from '../gitops/naming.js'
import type { GitOpsPart, MergePart, RunReport, TemplatePart } from './report.js'

export const NOTHING_LEFT = 'Nothing: the run changed nothing in Coder, Git or the cluster.'

/** The report as leftBehind reads it: everything but what it computes. */
export type LeftBehindFacts = Omit<RunReport, 'leftBehind'>

export function leftBehind(report: LeftBehindFacts): string[] {
  return [...beforeTidy(report), ...archivedByTidy(report)]
}

function beforeTidy(report: LeftBehindFacts): string[] {
  if (report.outcome === 'promoted') return []
  const lines = [...inCoder(report), ...inGit(report), ...inCluster(report)]
  if (lines.length === 0 && report.outcome !== 'passed' && report.outcome !== 'would-promote')
    return [NOTHING_LEFT]
  return lines
}

function inCoder(report: LeftBehindFacts): string[] {
  const { version, name: template = '', organization } = report.template
  const at = organization ? ` -O ${organization}` : ''
  // A promote job pushes nothing: the version it located is the one its promote request named.
  if (version.origin === 'pushed' || version.origin === 'located') {
    const ours = `${version.name ?? ''} (${version.id ?? ''})`
    if (report.template.active?.id === version.id) return []
    if (report.promotion.requested && report.outcome === 'cancelled')
      return [
        `Version ${ours} may be active: the promote request was sent before the cancel, and Coder may apply it even after the run ended. Check which version is active with \`${activeVersionCheck(report.template)}\` before you run the job again.`
      ]
    if (!report.template.active?.id && report.promotion.requested)
      return [
        `Version ${ours} may be active: the promote request was sent and the active version could not be read afterwards. Check it with \`${activeVersionCheck(report.template)}\` before you run the job again.`
      ]
    // The located version is the test job's, which says what stays behind; nothing new here.
    if (version.origin === 'located') return []
    // https://coder.com/docs/reference/cli/templates_versions_archive
    return [
      `Version ${ours} stays in Coder, inactive; a re-run of this commit reuses it. When it is not needed: \`coder templates versions archive ${template} ${version.name ?? ''}${at} --yes\`.`
    ]
  }
  if (version.origin !== 'import-failed') return []
  // A failed import keeps its version, inactive, with its name taken.
  return [
    `Coder may hold a version named ${version.name ?? ''} whose import failed or was cancelled: Coder keeps such versions, inactive, and their name stays taken. Push under a new version name; list them with \`coder templates versions list ${template}${at} --include-archived\`.`
  ]
}

/** The command that shows which version of the template is active (its `active` column). */
export function activeVersionCheck(template: Pick<TemplatePart, 'name' | 'organization'>): string {
  const at = template.organization ? ` -O ${template.organization}` : ''
  return `coder templates versions list ${template.name ?? ''}${at}`
}

function inGit(report: LeftBehindFacts): string[] {
  const { gitops } = report
  const base = gitops.base ?? ''
  const where = `${gitops.repository ?? ''}@${base}`
  const { commit } = gitops
  switch (commit.state) {
    case 'not run':
      return []
    case 'cancelled':
      return [
        `The commit to ${where} may have landed before the cancel: check the branch; a re-run finds its own manifest and does not commit it twice.`
      ]
    case 'failed':
      if (commit.outcomeUnknown)
        return [
          `The commit to ${gitops.delivery === 'pull-request' ? `the branch ${pullRequestBranch(report.test.name ?? '')}` : where} may have landed: GitHub's answer was lost and the branch could not be read. Check the branch; a re-run finds its own manifest and does not commit it twice.`
        ]
      return gitops.delivery === 'pull-request'
        ? [
            `Nothing reached ${where}; the branch ${pullRequestBranch(report.test.name ?? '')} may exist: delete it when the version is not needed.`
          ]
        : [
            `Nothing was committed to ${where}: the manifest and any keep-tests deletions are one commit.`
          ]
  }
  const viaPullRequest = gitops.delivery === 'pull-request' && !commit.onBase
  if (viaPullRequest && gitops.merge?.state !== 'merged')
    return [pullRequestLine(gitops, commit.branch, base)]
  if (report.test.phase === 'Failed') {
    return [
      `The manifest ${commit.manifestPath} stays in ${where}, and with it the failed test: Argo CD shows the application Degraded and Flux's health check fails until the manifest is removed. Remove the file, or set keep-tests so that later runs remove it.`
    ]
  }
  return [
    `The manifest ${commit.manifestPath} stays in ${where}; remove it (or use keep-tests) when the version is not needed.`
  ]
}

function pullRequestLine(gitops: GitOpsPart, branch: string, base: string): string {
  const url = gitops.pullRequest?.url
  if (!url)
    return `The manifest is only on the branch ${branch}, not on ${base}: delete the branch when the version is not needed.`
  const failure = gitops.merge?.state === 'not merged' ? gitops.merge : undefined
  const open = !failure || failure.status === 'timed out' || failure.status === 'cancelled'
  const state = open ? 'stays open' : 'is not merged'
  return `Pull request #${gitops.pullRequest?.number ?? ''} ${state}: ${url}.${autoMergeClause(gitops.autoMerge, failure, gitops.pullRequest?.number ?? '', gitops.repository ?? '')} Merge it and run the job again, or close it and delete the branch ${branch} when the version is not needed.`
}

/** auto: whether the gate turned auto-merge off again, so that nothing merges unwatched. */
function autoMergeClause(
  autoMerge: boolean,
  failure: Extract<MergePart, { state: 'not merged' }> | undefined,
  number: string,
  repository: string
): string {
  if (!autoMerge || failure === undefined || failure.autoMergeAsked === false) return ''
  if (failure.autoMergeOff === true)
    return ' The gate turned its auto-merge off: nothing merges while no run watches.'
  if (failure.autoMergeOff === false)
    return ` Its auto-merge is still on: the gate could not turn it off, so a later push merges with no run watching. Turn it off with \`gh pr merge ${number} --repo ${repository} --disable-auto\`.`
  // A cancel that cut the step before it said: the log tells whether turning it off worked.
  if (failure.status === 'cancelled')
    return ' The gate asked GitHub to turn its auto-merge off on the cancel (the log says whether it did): check it before you merge.'
  return ''
}

/** archive-failed archived this run's version: how to bring it back. */
function archivedByTidy(report: LeftBehindFacts): string[] {
  if (!report.tidy.oursArchived) return []
  const { organization = '', name = '', version } = report.template
  return [
    `Version ${version.name ?? ''} was archived because its test failed (archive-failed): nobody can promote or pick it by mistake. Bring it back with \`${unarchiveCommand(organization, name, version.name ?? '')}\`.`
  ]
}

function inCluster(report: LeftBehindFacts): string[] {
  const { test } = report
  if (!test.lookedFor) return []
  const where = `${test.namespace ?? ''}/${test.name ?? ''}`
  if (!test.exists) {
    if (test.syncTimedOut)
      return [
        `No test ${where} appeared in the cluster yet: once Argo CD or Flux applies the manifest, the test runs; a re-run waits for it again.`
      ]
    return []
  }
  return [
    `The test ${where} stays in the cluster while its manifest is in Git (with pruning on, Argo CD or Flux delete it once the file is gone)${workspaceClause(test.workspace?.name ?? '', test.workspace?.deleted ?? '')}.`
  ]
}

/**
 * The test workspace after the run, from the WorkspaceDeleted condition. The controller releases its
 * finalizer on True, Retained and ControlPlaneGone, so then nobody deletes the workspace.
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
