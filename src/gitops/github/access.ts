// The preflight's read of the GitOps repository: does it exist for gitops-token, does the branch
// exist, may the token write, and do the branch's rules require a pull request. Read-only.
// Rulesets and classic protection are two APIs (https://docs.github.com/en/rest/repos/rules);
// whatever cannot be read counts as "cannot tell", and the run goes on.
// The commit is a GraphQL mutation (createCommitOnBranch), which needs the same `contents: write`
// as the REST writes did (a GITHUB_TOKEN with it may commit so), so these reads still find what a
// commit would lack; a GraphQL refusal of type FORBIDDEN names the permission (commit-on-branch.ts).
import { type GitHubCall, githubError, requestOptions } from './client/call.js'
import type { CommitRule, GitOpsExpectations, GitOpsFacts, GitOpsProblem } from '../host.js'

export async function inspectGitOpsRepository(
  input: GitHubCall & { branch: string }
): Promise<GitOpsFacts> {
  const { octokit, owner, repo } = input
  const facts: GitOpsFacts = {
    repository: 'found',
    branch: input.branch,
    branchExists: false,
    canWrite: undefined,
    pullRequestRequiredBy: null,
    rulesKnown: false,
    allowAutoMerge: undefined
  }
  let repository
  try {
    repository = (await octokit.rest.repos.get({ owner, repo, request: requestOptions(input) }))
      .data
  } catch (error) {
    const status = answeredStatus(error, input)
    if (status === 401) return { ...facts, repository: 'bad-token' }
    if (status === 403) return { ...facts, repository: 'forbidden' }
    if (status === 404) return { ...facts, repository: 'missing' }
    throw error
  }
  facts.branch ||= repository.default_branch
  facts.allowAutoMerge = repository.allow_auto_merge
  facts.canWrite = canWrite(repository.permissions)
  try {
    await octokit.rest.repos.getBranch({
      owner,
      repo,
      branch: facts.branch,
      request: requestOptions(input)
    })
    facts.branchExists = true
  } catch (error) {
    if (answeredStatus(error, input) === 404) return facts
    throw error
  }
  const admin = repository.permissions?.admin === true
  const [byRuleset, byProtection] = await Promise.all([
    rulesetCommitRules(input, facts.branch),
    protectionCommitRules(input, facts.branch, admin)
  ])
  facts.rulesKnown = byRuleset !== undefined && byProtection !== undefined
  const requiresPullRequest = (rules: CommitRule[] | undefined) =>
    rules?.some((r) => r.rule === 'pull_request') ?? false
  facts.pullRequestRequiredBy = requiresPullRequest(byRuleset)
    ? 'a repository ruleset'
    : requiresPullRequest(byProtection)
      ? 'classic branch protection'
      : null
  facts.commitRules = [...(byRuleset ?? []), ...(byProtection ?? [])]
  return facts
}

/**
 * permissions.push is the token's user's right; fine-grained and app tokens may be narrower. App
 * installation tokens were seen with every flag false (lindell/multi-gitter#224): no `pull` for a
 * repository we just read means the field does not describe this token, so we cannot tell.
 */
function canWrite(
  permissions: { push?: boolean; pull?: boolean } | undefined
): boolean | undefined {
  if (!permissions || permissions.pull === false) return undefined
  return permissions.push === true
}

// Ruleset rule types that refuse a direct commit (GitHub's "Available rules for rulesets",
// https://docs.github.com/en/repositories/configuring-branches-and-merges-in-your-repository/managing-rulesets/available-rules-for-rulesets).
// guess: required_deployments and merge_queue refuse a direct commit too; metadata and file rules
// depend on the commit and are left to the commit's own refusal.
const BLOCKS_DIRECT_COMMIT = new Set([
  'pull_request',
  'required_status_checks',
  'update',
  'required_deployments',
  'merge_queue'
])

/**
 * The branch's active ruleset rules that refuse a direct commit (readable with read access), each
 * with the token's bypass from its ruleset. Undefined: cannot tell.
 */
async function rulesetCommitRules(
  input: GitHubCall,
  branch: string
): Promise<CommitRule[] | undefined> {
  let rules
  try {
    const { data } = await input.octokit.rest.repos.getBranchRules({
      owner: input.owner,
      repo: input.repo,
      branch,
      per_page: 100,
      request: requestOptions(input)
    })
    rules = data.filter((rule) => BLOCKS_DIRECT_COMMIT.has(rule.type))
  } catch (error) {
    answeredStatus(error, input)
    return undefined
  }
  const rulesets = new Map<number, { name: string; bypass: boolean }>()
  for (const id of new Set(rules.map((rule) => rule.ruleset_id ?? 0)))
    rulesets.set(id, await rulesetBypass(input, id))
  return rules.map((rule) => {
    const ruleset = rulesets.get(rule.ruleset_id ?? 0)!
    const id = rule.ruleset_id ?? 0
    const by = ruleset.name ? `ruleset "${ruleset.name}" (id ${id})` : `ruleset ${id}`
    return { rule: rule.type, by, bypass: ruleset.bypass }
  })
}

/**
 * "Get a repository ruleset": current_user_can_bypass is 'always', 'pull_requests_only', 'never'
 * or 'exempt' (@octokit/openapi, repository-ruleset). A direct commit bypasses with 'always' or
 * 'exempt' only. A read that fails counts as no bypass: the rule stands.
 */
async function rulesetBypass(
  input: GitHubCall,
  id: number
): Promise<{ name: string; bypass: boolean }> {
  if (!id) return { name: '', bypass: false }
  try {
    const { data } = await input.octokit.rest.repos.getRepoRuleset({
      owner: input.owner,
      repo: input.repo,
      ruleset_id: id,
      request: requestOptions(input)
    })
    const can = data.current_user_can_bypass
    return { name: data.name, bypass: can === 'always' || can === 'exempt' }
  } catch (error) {
    answeredStatus(error, input)
    return { name: '', bypass: false }
  }
}

/**
 * Classic protection needs administration read; 404 "Branch not protected" means none. Required
 * reviews, required status checks, push restrictions and a locked branch refuse a direct commit.
 * guess: an admin bypasses them unless enforce_admins is on ("Do not allow bypassing the above
 * settings"); an actor listed in the push restrictions is not detected, and counts as refused.
 */
async function protectionCommitRules(
  input: GitHubCall,
  branch: string,
  admin: boolean
): Promise<CommitRule[] | undefined> {
  let data
  try {
    data = (
      await input.octokit.rest.repos.getBranchProtection({
        owner: input.owner,
        repo: input.repo,
        branch,
        request: requestOptions(input)
      })
    ).data
  } catch (error) {
    const answer = githubError(error)
    if (input.signal?.aborted) throw input.signal.reason
    // A 404 for an existing branch is "Branch not protected" (measured, sigmavirus24/github3.py#973).
    // guess: any other 404 (e.g. "Not Found" for a token without admin rights) tells nothing.
    if (answer?.answered && answer.status === 404)
      return /^Branch not protected/i.test(answer.message) ? [] : undefined
    return undefined
  }
  const bypass = admin && data.enforce_admins?.enabled !== true
  const by = 'classic branch protection'
  const rules: CommitRule[] = []
  if (data.required_pull_request_reviews) rules.push({ rule: 'pull_request', by, bypass })
  if (data.required_status_checks) rules.push({ rule: 'required_status_checks', by, bypass })
  if (data.restrictions) rules.push({ rule: 'push restrictions', by, bypass })
  if (data.lock_branch?.enabled) rules.push({ rule: 'lock_branch', by, bypass: false })
  return rules
}

/** The HTTP status of an answer; a cancel stays a cancel. undefined when no answer came. */
function answeredStatus(error: unknown, input: GitHubCall): number | undefined {
  if (input.signal?.aborted) throw input.signal.reason
  const answer = githubError(error)
  return answer?.answered ? answer.status : undefined
}

/** What the run cannot do in this repository, each with the fix. Pure. */
export function gitOpsProblems(facts: GitOpsFacts, want: GitOpsExpectations): GitOpsProblem[] {
  const name = `${want.owner}/${want.repo}`
  switch (facts.repository) {
    case 'bad-token':
      return [
        {
          problem: 'gitops-token was refused (401).',
          fix: 'Store a valid token with `contents: write` on the GitOps repository in the secret that gitops-token reads.'
        }
      ]
    case 'forbidden':
      return [
        {
          problem: `gitops-token may not read ${name} (403).`,
          fix: 'Give the token access to the repository (`contents: write`, and `pull-requests: write` in pull-request mode).'
        }
      ]
    case 'missing':
      return [
        {
          problem: `${name} does not exist, or gitops-token cannot see it (404).`,
          fix: 'Check gitops-repository, and give the token access to that repository.'
        }
      ]
  }
  const problems: GitOpsProblem[] = []
  if (!facts.branchExists)
    problems.push({
      problem: `the branch "${facts.branch}" does not exist in ${name}.`,
      fix: 'Create it, or set gitops-branch to an existing branch.'
    })
  if (facts.canWrite === false)
    problems.push({
      problem: `gitops-token may not write to ${name}.`,
      fix:
        want.delivery === 'pull-request'
          ? 'Grant `contents: write` and `pull-requests: write` on the repository.'
          : 'Grant `contents: write` on the repository.'
    })
  if (want.delivery === 'commit') problems.push(...commitRuleProblems(facts))
  if (want.delivery === 'pull-request' && want.merge === 'auto' && facts.allowAutoMerge === false)
    problems.push({
      problem: `${name} does not allow auto-merge, which pull-request-merge: auto needs.`,
      fix: 'Turn on "Allow auto-merge" in the repository settings (General → Pull Requests), or set pull-request-merge to immediate or manual.'
    })
  return problems
}

const PULL_REQUEST_FIX =
  'Set `gitops-mode: pull-request`: the gate then opens a pull request and waits for its merge.'

/** Commit mode: every rule that refuses a direct commit and that the token may not bypass. Pure. */
function commitRuleProblems(facts: GitOpsFacts): GitOpsProblem[] {
  if (facts.commitRules === undefined) {
    if (!facts.pullRequestRequiredBy) return []
    return [
      {
        problem: `${facts.pullRequestRequiredBy} requires a pull request for changes to ${facts.branch}.`,
        fix: PULL_REQUEST_FIX
      }
    ]
  }
  return facts.commitRules
    .filter((rule) => !rule.bypass)
    .map((rule) => ({
      problem: `${rule.by} refuses direct commits to ${facts.branch} (rule ${rule.rule}), and gitops-token may not bypass it.`,
      fix: PULL_REQUEST_FIX
    }))
}
