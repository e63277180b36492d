// The read endpoints of rulesets and classic branch protection (rules for a branch, classic
// protection) and their JSON. The stored form is in rules-model.ts, the refusals in
// rules-refusals.ts; both are re-exported here for the modules that import them from rules.js.
import { DOCS } from './errors.js'
import { activeRules } from './rules-model.js'
import type { Route, RouteContext } from './router.js'
import type { StoredRepo } from './state.js'

export {
  activeRules,
  allowedMergeMethod,
  makeProtection,
  makeRuleset,
  requiredApprovals,
  requiredChecks,
  rulesetApplies
} from './rules-model.js'
export type {
  ClassicProtection,
  ProtectionOptions,
  RuleDefinition,
  Ruleset,
  RulesetOptions
} from './rules-model.js'
export {
  checkContentsWrite,
  checkRefWrite,
  mergeRefusal,
  ruleViolationMessage
} from './rules-refusals.js'
export type { BranchWrite } from './rules-refusals.js'

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
    template: '/repos/{owner}/{repo}/rulesets/{ruleset_id}',
    docs: DOCS.branchRules,
    // "Get a repository ruleset": current_user_can_bypass is only returned by this repository-level
    // endpoint (@octokit/openapi, repository-ruleset). Here: 'always' for an admin token when the
    // ruleset makes admins bypass actors, else 'never'.
    handle(ctx) {
      const repo = ctx.repo()
      const ruleset = repo.rulesets.find((r) => String(r.id) === ctx.params.ruleset_id)
      if (!ruleset) throw ctx.fail(404, 'Not Found')
      const bypass = ruleset.bypassAdmins && ctx.grant.role === 'admin'
      return {
        status: 200,
        json: {
          id: ruleset.id,
          name: ruleset.name,
          target: 'branch',
          source_type: 'Repository',
          source: `${repo.owner}/${repo.name}`,
          enforcement: ruleset.enforcement,
          current_user_can_bypass: bypass ? 'always' : 'never',
          rules: ruleset.rules
        }
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
