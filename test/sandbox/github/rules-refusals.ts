// The refusals GitHub gives for writes to, and merges into, a branch that rulesets or classic
// protection guard, with the texts measured where noted.
import { DOCS, HttpFailure } from './errors.js'
import { activeRules, enforcedProtection, enforcedRules } from './rules-model.js'
import type { ActiveRule } from './rules-model.js'
import type { StoredRepo, TokenGrant } from './state.js'

// Texts of rule violations; GitHub lists each one between blank lines.
const RULE_TEXT: Record<string, string> = {
  // Measured on contents PUT and git pushes (e.g. yshavit/mdq#255).
  pull_request: 'Changes must be made through a pull request.',
  // Measured (release-please "pre_receive Repository rule violations found ...").
  creation: 'Cannot create ref due to creations being restricted.',
  // guess: texts of the update, deletion and non-fast-forward rules.
  update: 'Cannot update this protected ref.',
  deletion: 'Cannot delete this protected ref.',
  non_fast_forward: 'Cannot force-push to this branch.'
}

export type BranchWrite = 'create' | 'update' | 'force' | 'delete'

function statusCheckText(contexts: string[]): string {
  // Measured: 'Required status check "ci" is expected.' and "6 of 6 required status checks are
  // expected." (kevgo/prettifier#28).
  return contexts.length === 1
    ? `Required status check "${contexts[0]}" is expected.`
    : `${contexts.length} of ${contexts.length} required status checks are expected.`
}

function ruleViolations(rules: ActiveRule[], write: BranchWrite): string[] {
  const texts: string[] = []
  for (const rule of rules) {
    const applies =
      (rule.type === 'pull_request' && (write === 'update' || write === 'force')) ||
      (rule.type === 'update' && (write === 'update' || write === 'force')) ||
      (rule.type === 'non_fast_forward' && write === 'force') ||
      (rule.type === 'creation' && write === 'create') ||
      (rule.type === 'deletion' && write === 'delete')
    if (applies) texts.push(RULE_TEXT[rule.type])
    if (rule.type === 'required_status_checks' && (write === 'update' || write === 'force')) {
      const checks = (rule.parameters?.required_status_checks ?? []) as Array<{ context: string }>
      texts.push(statusCheckText(checks.map((c) => c.context)))
    }
  }
  return [...new Set(texts)]
}

/**
 * "Repository rule violations found" followed by each rule between blank lines, as GitHub sends it
 * (measured on 405 merge answers, e.g. "Repository rule violations found\n\nRequired status check
 * \"ci\" is failing.\n\n").
 */
export function ruleViolationMessage(violations: string[]): string {
  return `Repository rule violations found\n\n${violations.map((v) => `${v}\n\n`).join('')}`
}

/**
 * Refuses a contents API write (PUT or DELETE) to a protected branch. Measured: 409 "Repository rule
 * violations found\n\nChanges must be made through a pull request." for a ruleset, and 409 "Could
 * not create file: Changes must be made through a pull request." (documentation_url the protected
 * branches article) for classic protection.
 */
export function checkContentsWrite(
  repo: StoredRepo,
  branch: string,
  grant: TokenGrant,
  verb: 'create' | 'update' | 'delete',
  docs: string
): void {
  const violations = ruleViolations(enforcedRules(repo, branch, grant), 'update')
  if (violations.length > 0) throw new HttpFailure(409, ruleViolationMessage(violations), docs)
  const protection = enforcedProtection(repo, branch, grant)
  if (!protection) return
  let reason: string | null = null
  if (protection.requirePullRequest) reason = RULE_TEXT.pull_request
  else if (protection.requiredStatusChecks.length > 0) {
    reason = statusCheckText(protection.requiredStatusChecks)
  }
  if (reason) {
    // guess: "Could not delete file: ..." by analogy with the measured create/update texts.
    throw new HttpFailure(409, `Could not ${verb} file: ${reason}`, DOCS.protectedBranches)
  }
}

/**
 * Refuses a Git Data ref write. Rulesets: 422 "Repository rule violations found..." (status
 * reported in Mic92/gitea-mq#91 for a fast-forward ref update). Classic protection: guess: 422 with
 * the text a git push gets ("Protected branch update failed for refs/heads/<b>.", GH006).
 */
export function checkRefWrite(
  repo: StoredRepo,
  branch: string,
  grant: TokenGrant,
  write: BranchWrite,
  docs: string
): void {
  const violations = ruleViolations(enforcedRules(repo, branch, grant), write)
  if (violations.length > 0) throw new HttpFailure(422, ruleViolationMessage(violations), docs)
  const protection = enforcedProtection(repo, branch, grant)
  if (!protection) return
  if (write === 'delete') {
    // guess: the text for deleting a protected branch.
    if (!protection.allowDeletions) {
      throw new HttpFailure(422, 'Cannot delete this protected branch', docs)
    }
    return
  }
  if (write === 'create') return
  if (protection.requirePullRequest || protection.requiredStatusChecks.length > 0) {
    throw new HttpFailure(422, `Protected branch update failed for refs/heads/${branch}.`, docs)
  }
  if (write === 'force' && !protection.allowForcePushes) {
    // Text seen by dependabot-core#1911 when force pushing to a protected branch.
    throw new HttpFailure(422, 'Cannot force-push to this protected branch', docs)
  }
}

/**
 * Why a merge into `branch` is refused, or null. Measured 405 texts: "At least 1 approving review
 * is required by reviewers with write access." and 'Required status check "ci" is expected.'
 * (classic protection, documentation_url the protected branches article); rulesets wrap the same
 * texts in "Repository rule violations found" (guess for the review text inside it).
 */
export function mergeRefusal(
  repo: StoredRepo,
  branch: string,
  approvals: number,
  pendingChecks: string[]
): { message: string; docs: string } | null {
  const reviewText = (count: number) =>
    count === 1
      ? 'At least 1 approving review is required by reviewers with write access.'
      : // guess: the plural form.
        `At least ${count} approving reviews are required by reviewers with write access.`
  const violations: string[] = []
  for (const rule of activeRules(repo, branch)) {
    if (rule.type === 'pull_request') {
      const count = Number(rule.parameters?.required_approving_review_count ?? 0)
      if (approvals < count) violations.push(reviewText(count))
    }
    if (rule.type === 'required_status_checks') {
      const checks = (rule.parameters?.required_status_checks ?? []) as Array<{ context: string }>
      const pending = checks.map((c) => c.context).filter((c) => pendingChecks.includes(c))
      if (pending.length > 0) violations.push(statusCheckText(pending))
    }
  }
  if (violations.length > 0) {
    return { message: ruleViolationMessage([...new Set(violations)]), docs: DOCS.mergePull }
  }
  const protection = repo.protections.get(branch)
  if (protection?.requirePullRequest && approvals < protection.requiredApprovingReviewCount) {
    return {
      message: reviewText(protection.requiredApprovingReviewCount),
      docs: DOCS.protectedBranches
    }
  }
  const pending = (protection?.requiredStatusChecks ?? []).filter((c) => pendingChecks.includes(c))
  if (pending.length > 0) return { message: statusCheckText(pending), docs: DOCS.protectedBranches }
  return null
}
