// The preflight's read of the GitOps repository: does it exist for gitops-token, does the branch
// exist, may the token write, and do the branch's rules require a pull request. Read-only.
// Rulesets and classic protection are two APIs (https://docs.github.com/en/rest/repos/rules);
// whatever cannot be read counts as "cannot tell", and the run goes on.
// The commit is a GraphQL mutation (createCommitOnBranch), which needs the same `contents: write`
// as the REST writes did (a GITHUB_TOKEN with it may commit so), so these reads still find what a
// commit would lack; a GraphQL refusal of type FORBIDDEN names the permission (commit-on-branch.ts).
import { type GitHubCall, githubError, requestOptions } from './github-call.js'
import type { GitOpsExpectations, GitOpsFacts, GitOpsProblem } from './host.js'

export async function inspectGitOpsRepository(
  input: GitHubCall & { branch: string }
): Promise<GitOpsFacts> {
  const { octokit, owner, repo } = input
  const facts: GitOpsFacts = {
    repository: 'found',
    branch: input.branch,
    branchExists: false,
    canWrite: null,
    pullRequestRequiredBy: null,
    rulesKnown: false,
    allowAutoMerge: null
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
  facts.allowAutoMerge = repository.allow_auto_merge ?? null
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
  const [byRuleset, byProtection] = await Promise.all([
    rulesetRequiresPullRequest(input, facts.branch),
    protectionRequiresPullRequest(input, facts.branch)
  ])
  facts.rulesKnown = byRuleset !== null && byProtection !== null
  facts.pullRequestRequiredBy = byRuleset
    ? 'a repository ruleset'
    : byProtection
      ? 'classic branch protection'
      : null
  return facts
}

/**
 * permissions.push is the token's user's right; fine-grained and app tokens may be narrower. App
 * installation tokens were seen with every flag false (lindell/multi-gitter#224): no `pull` for a
 * repository we just read means the field does not describe this token, so we cannot tell.
 */
function canWrite(permissions: { push?: boolean; pull?: boolean } | undefined): boolean | null {
  if (!permissions || permissions.pull === false) return null
  return permissions.push === true
}

/** The branch's active ruleset rules (readable with read access). null: cannot tell. */
async function rulesetRequiresPullRequest(
  input: GitHubCall,
  branch: string
): Promise<boolean | null> {
  try {
    const { data } = await input.octokit.rest.repos.getBranchRules({
      owner: input.owner,
      repo: input.repo,
      branch,
      per_page: 100,
      request: requestOptions(input)
    })
    return data.some((rule) => rule.type === 'pull_request')
  } catch (error) {
    answeredStatus(error, input)
    return null
  }
}

/** Classic protection needs administration read; 404 "Branch not protected" means none. */
async function protectionRequiresPullRequest(
  input: GitHubCall,
  branch: string
): Promise<boolean | null> {
  try {
    const { data } = await input.octokit.rest.repos.getBranchProtection({
      owner: input.owner,
      repo: input.repo,
      branch,
      request: requestOptions(input)
    })
    return data.required_pull_request_reviews !== undefined
  } catch (error) {
    const answer = githubError(error)
    if (input.signal?.aborted) throw input.signal.reason
    // A 404 for an existing branch is "Branch not protected" (measured, sigmavirus24/github3.py#973).
    // guess: any other 404 (e.g. "Not Found" for a token without admin rights) tells nothing.
    if (answer?.answered && answer.status === 404)
      return /^Branch not protected/i.test(answer.message) ? false : null
    return null
  }
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
        want.mode === 'pull-request'
          ? 'Grant `contents: write` and `pull-requests: write` on the repository.'
          : 'Grant `contents: write` on the repository.'
    })
  if (want.mode === 'commit' && facts.pullRequestRequiredBy)
    problems.push({
      problem: `${facts.pullRequestRequiredBy} requires a pull request for changes to ${facts.branch}.`,
      fix: 'Set `gitops-mode: pull-request`: the gate then opens a pull request and waits for its merge.'
    })
  if (want.mode === 'pull-request' && want.merge === 'auto' && facts.allowAutoMerge === false)
    problems.push({
      problem: `${name} does not allow auto-merge, which pull-request-merge: auto needs.`,
      fix: 'Turn on "Allow auto-merge" in the repository settings (General → Pull Requests), or set pull-request-merge to immediate or manual.'
    })
  return problems
}
