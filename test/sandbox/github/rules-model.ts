// Repository rulesets and classic branch protection as stored, and what they ask of a branch:
// the active rules, the approvals and the status checks a merge needs.
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

export interface ActiveRule extends RuleDefinition {
  ruleset: Ruleset
}

/** Rules of the active rulesets on a branch ("evaluate" rulesets only report, never enforce). */
export function activeRules(repo: StoredRepo, branch: string): ActiveRule[] {
  return repo.rulesets
    .filter((ruleset) => ruleset.enforcement === 'active' && rulesetApplies(ruleset, repo, branch))
    .flatMap((ruleset) => ruleset.rules.map((rule) => ({ ...rule, ruleset })))
}

export function enforcedRules(
  repo: StoredRepo,
  branch: string,
  grant: TokenGrant | null
): ActiveRule[] {
  return activeRules(repo, branch).filter(
    (rule) => !(rule.ruleset.bypassAdmins && grant?.role === 'admin')
  )
}

export function enforcedProtection(
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

export function allowedMergeMethod(repo: StoredRepo, method: MergeMethod): boolean {
  if (method === 'merge') return repo.settings.allowMergeCommit
  if (method === 'squash') return repo.settings.allowSquashMerge
  return repo.settings.allowRebaseMerge
}
