// Repository rulesets and classic branch protection: their stored form, the read endpoints
// (rules for a branch, classic protection) and the refusals GitHub gives for writes and merges.
import { DOCS, HttpFailure } from './errors.js'
import type { Route, RouteContext } from './router.js'
import type { MergeMethod, StoredRepo, TokenGrant } from './state.js'

export interface RuleDefinition {
  type: string
  parameters?: Record<string, unknown>
}

export interface Ruleset {
  id: number
  name: string
  enforcement: 'active' | 'evaluate' | 'disabled'
  include: string[]
  exclude: string[]
  rules: RuleDefinition[]
  bypassAdmins: boolean
}

export interface RulesetOptions {
  name?: string
  /**
   * conditions.ref_name patterns: '~DEFAULT_BRANCH', '~ALL', 'refs/heads/main', 'refs/heads/release/*'
   * (a plain branch name is taken as refs/heads/<name>). Default ['~DEFAULT_BRANCH'].
   */
  include?: string[]
  exclude?: string[]
  enforcement?: 'active' | 'evaluate' | 'disabled'
  /** Adds a pull_request rule; true means 0 required approvals. */
  requirePullRequest?: boolean | { requiredApprovingReviewCount?: number }
  /** Adds a required_status_checks rule with these contexts. */
  requiredStatusChecks?: string[]
  /** More rules as the API shows them, e.g. {type: 'deletion'}, {type: 'non_fast_forward'}. */
  rules?: RuleDefinition[]
  /** Tokens with the admin role are bypass actors. Default false. */
  bypassAdmins?: boolean
}

export interface ClassicProtection {
  requirePullRequest: boolean
  requiredApprovingReviewCount: number
  requiredStatusChecks: string[]
  strict: boolean
  enforceAdmins: boolean
  allowForcePushes: boolean
  allowDeletions: boolean
}

export interface ProtectionOptions {
  /** Require a pull request before merging. Default true. */
  requirePullRequest?: boolean
  /** Default 1. */
  requiredApprovingReviewCount?: number
  requiredStatusChecks?: string[]
  strict?: boolean
  /** Default false: admins are not held to the protection, as on GitHub. */
  enforceAdmins?: boolean
  allowForcePushes?: boolean
  allowDeletions?: boolean
}

export function makeRuleset(id: number, options: RulesetOptions): Ruleset {
  const rules: RuleDefinition[] = []
  if (options.requirePullRequest) {
    const count =
      typeof options.requirePullRequest === 'object'
        ? (options.requirePullRequest.requiredApprovingReviewCount ?? 0)
        : 0
    // The parameters of a pull_request rule as GET /rules/branches/{branch} lists them.
    rules.push({
      type: 'pull_request',
      parameters: {
        required_approving_review_count: count,
        dismiss_stale_reviews_on_push: false,
        require_code_owner_review: false,
        require_last_push_approval: false,
        required_review_thread_resolution: false,
        allowed_merge_methods: ['merge', 'squash', 'rebase']
      }
    })
  }
  if (options.requiredStatusChecks && options.requiredStatusChecks.length > 0) {
    rules.push({
      type: 'required_status_checks',
      parameters: {
        strict_required_status_checks_policy: false,
        do_not_enforce_on_create: false,
        required_status_checks: options.requiredStatusChecks.map((context) => ({ context }))
      }
    })
  }
  rules.push(...(options.rules ?? []))
  return {
    id,
    name: options.name ?? `ruleset-${id}`,
    enforcement: options.enforcement ?? 'active',
    include: options.include ?? ['~DEFAULT_BRANCH'],
    exclude: options.exclude ?? [],
    rules,
    bypassAdmins: options.bypassAdmins ?? false
  }
}

export function makeProtection(options: ProtectionOptions): ClassicProtection {
  return {
    requirePullRequest: options.requirePullRequest ?? true,
    requiredApprovingReviewCount: options.requiredApprovingReviewCount ?? 1,
    requiredStatusChecks: options.requiredStatusChecks ?? [],
    strict: options.strict ?? false,
    enforceAdmins: options.enforceAdmins ?? false,
    allowForcePushes: options.allowForcePushes ?? false,
    allowDeletions: options.allowDeletions ?? false
  }
}

// fnmatch as rulesets use it: `*` stops at '/', `**` does not.
function refPatternMatches(pattern: string, repo: StoredRepo, branch: string): boolean {
  if (pattern === '~ALL') return true
  if (pattern === '~DEFAULT_BRANCH') return branch === repo.defaultBranch
  const full = pattern.startsWith('refs/') ? pattern : `refs/heads/${pattern}`
  const source = full
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*')
    )
    .join('.*')
  return new RegExp(`^${source}$`).test(`refs/heads/${branch}`)
}

export function rulesetApplies(ruleset: Ruleset, repo: StoredRepo, branch: string): boolean {
  return (
    ruleset.include.some((p) => refPatternMatches(p, repo, branch)) &&
    !ruleset.exclude.some((p) => refPatternMatches(p, repo, branch))
  )
}

interface ActiveRule extends RuleDefinition {
  ruleset: Ruleset
}

/** Rules of the active rulesets on a branch ("evaluate" rulesets only report, never enforce). */
export function activeRules(repo: StoredRepo, branch: string): ActiveRule[] {
  return repo.rulesets
    .filter((ruleset) => ruleset.enforcement === 'active' && rulesetApplies(ruleset, repo, branch))
    .flatMap((ruleset) => ruleset.rules.map((rule) => ({ ...rule, ruleset })))
}

function enforcedRules(repo: StoredRepo, branch: string, grant: TokenGrant | null): ActiveRule[] {
  return activeRules(repo, branch).filter(
    (rule) => !(rule.ruleset.bypassAdmins && grant?.role === 'admin')
  )
}

function enforcedProtection(
  repo: StoredRepo,
  branch: string,
  grant: TokenGrant | null
): ClassicProtection | undefined {
  const protection = repo.protections.get(branch)
  if (!protection) return undefined
  if (grant?.role === 'admin' && !protection.enforceAdmins) return undefined
  return protection
}

/** Approvals a merge into `branch` needs (the highest any ruleset or the protection asks for). */
export function requiredApprovals(repo: StoredRepo, branch: string): number {
  let count = 0
  for (const rule of activeRules(repo, branch)) {
    if (rule.type !== 'pull_request') continue
    count = Math.max(count, Number(rule.parameters?.required_approving_review_count ?? 0))
  }
  const protection = repo.protections.get(branch)
  if (protection?.requirePullRequest) {
    count = Math.max(count, protection.requiredApprovingReviewCount)
  }
  return count
}

/** Status check contexts a merge into `branch` needs. */
export function requiredChecks(repo: StoredRepo, branch: string): string[] {
  const contexts = new Set<string>(repo.protections.get(branch)?.requiredStatusChecks ?? [])
  for (const rule of activeRules(repo, branch)) {
    if (rule.type !== 'required_status_checks') continue
    const checks = (rule.parameters?.required_status_checks ?? []) as Array<{ context: string }>
    for (const check of checks) contexts.add(check.context)
  }
  return [...contexts].sort()
}

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

export function allowedMergeMethod(repo: StoredRepo, method: MergeMethod): boolean {
  if (method === 'merge') return repo.settings.allowMergeCommit
  if (method === 'squash') return repo.settings.allowSquashMerge
  return repo.settings.allowRebaseMerge
}

// ---- JSON ----

export function protectionJson(ctx: RouteContext, repo: StoredRepo, branch: string) {
  const protection = repo.protections.get(branch)!
  const url = `${ctx.apiRepoUrl(repo)}/branches/${branch}/protection`
  const flag = (enabled: boolean) => ({ enabled })
  return {
    url,
    ...(protection.requiredStatusChecks.length > 0
      ? {
          required_status_checks: {
            url: `${url}/required_status_checks`,
            strict: protection.strict,
            contexts: protection.requiredStatusChecks,
            contexts_url: `${url}/required_status_checks/contexts`,
            checks: protection.requiredStatusChecks.map((context) => ({ context, app_id: null }))
          }
        }
      : {}),
    ...(protection.requirePullRequest
      ? {
          required_pull_request_reviews: {
            url: `${url}/required_pull_request_reviews`,
            dismiss_stale_reviews: false,
            require_code_owner_reviews: false,
            require_last_push_approval: false,
            required_approving_review_count: protection.requiredApprovingReviewCount
          }
        }
      : {}),
    required_signatures: { url: `${url}/required_signatures`, enabled: false },
    enforce_admins: { url: `${url}/enforce_admins`, enabled: protection.enforceAdmins },
    required_linear_history: flag(false),
    allow_force_pushes: flag(protection.allowForcePushes),
    allow_deletions: flag(protection.allowDeletions),
    block_creations: flag(false),
    required_conversation_resolution: flag(false),
    lock_branch: flag(false),
    allow_fork_syncing: flag(false)
  }
}

/** The `protection` summary inside GET /branches/{branch}. */
export function protectionSummary(repo: StoredRepo, branch: string) {
  const protection = repo.protections.get(branch)
  const contexts = protection?.requiredStatusChecks ?? []
  return {
    enabled: protection !== undefined,
    required_status_checks: {
      enforcement_level:
        contexts.length === 0 ? 'off' : protection?.enforceAdmins ? 'everyone' : 'non_admins',
      contexts,
      checks: contexts.map((context) => ({ context, app_id: null }))
    }
  }
}

// ---- routes ----

export const ruleRoutes: Route[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/rules/branches/{branch+}',
    docs: DOCS.branchRules,
    // Readable with read access (the point of this endpoint: no admin rights needed).
    handle(ctx) {
      const repo = ctx.repo()
      const branch = ctx.params.branch
      return {
        status: 200,
        json: activeRules(repo, branch).map((rule) => ({
          type: rule.type,
          ...(rule.parameters ? { parameters: rule.parameters } : {}),
          ruleset_source_type: 'Repository',
          ruleset_source: `${repo.owner}/${repo.name}`,
          ruleset_id: rule.ruleset.id
        }))
      }
    }
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/branches/{branch+}/protection',
    docs: DOCS.getProtection,
    handle(ctx) {
      const repo = ctx.repo()
      // Without administration read: 403 "Resource not accessible by integration" for
      // GITHUB_TOKEN (measured, renovatebot/renovate#23885).
      ctx.require('administration', 'read')
      const branch = ctx.params.branch
      if (!repo.branches.has(branch)) throw ctx.fail(404, 'Branch not found')
      // Measured: 404 "Branch not protected" (sigmavirus24/github3.py#973).
      if (!repo.protections.has(branch)) throw ctx.fail(404, 'Branch not protected')
      return { status: 200, json: protectionJson(ctx, repo, branch) }
    }
  }
]
