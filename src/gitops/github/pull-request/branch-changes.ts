// The gate's branch against its base, read through the compare API (REST "Compare two commits":
// `GET /repos/{o}/{r}/compare/{base}...{head}`, commits since the merge base, oldest first, at most
// 250, and the diff of merge base to head), and the one refusal that follows from it: a change the
// gate did not write. Also turns auto-merge off when no run watches any more.
import {
  describeForeign,
  type BranchChanges,
  ForeignChangeError,
  foreignChange,
  type GateWrites
} from '../../branch-guard.js'
import { type GitHubCall, githubCall, repoOf } from '../client/call.js'
import { GITOPS_TOKEN } from './wait-for-merge.js'

export interface GuardBranchInput extends GitHubCall {
  base: string
  /** The branch name, for the message. */
  branch: string
  /** The head commit that is about to be merged. */
  headSha: string
  gate: GateWrites
}

export async function readBranchChanges(
  input: GitHubCall & { base: string; head: string }
): Promise<BranchChanges> {
  const { data } = await githubCall(
    input,
    GITOPS_TOKEN,
    `comparing ${input.head} with ${input.base}`,
    (request) =>
      input.octokit.rest.repos.compareCommitsWithBasehead({
        ...repoOf(input),
        basehead: `${input.base}...${input.head}`,
        // At most 100 a page (REST docs); the gate writes far fewer, more fail as too many.
        per_page: 100,
        request
      })
  )
  return {
    commits: data.commits.map((commit) => ({
      sha: commit.sha,
      login: commit.author?.login ?? null,
      authorName: commit.commit.author?.name ?? '',
      message: commit.commit.message,
      parents: commit.parents.map((parent) => parent.sha)
    })),
    totalCommits: data.total_commits,
    files: (data.files ?? []).map((file) => ({ path: file.filename, status: file.status }))
  }
}

/** Throws ForeignChangeError when headSha holds anything the gate did not write. */
export async function guardGateBranch(input: GuardBranchInput): Promise<void> {
  const changes = await readBranchChanges({ ...input, head: input.headSha })
  const found = foreignChange(changes, input.gate)
  if (!found) return
  let paths: string[] | null = null
  const parent = found.reason === 'commit' ? found.commit.parents?.[0] : undefined
  if (found.reason === 'commit' && parent) {
    // The foreign commit's own paths: the compare of its first parent with it.
    const own = await readBranchChanges({ ...input, base: parent, head: found.commit.sha })
    paths = own.files.map((file) => file.path)
  }
  throw new ForeignChangeError(input.branch, describeForeign(found, paths))
}

const DISABLE_AUTO_MERGE = `mutation DisableAutoMerge($input: DisablePullRequestAutoMergeInput!) {
  disablePullRequestAutoMerge(input: $input) { pullRequest { number } }
}`

/**
 * Auto-merge off (GraphQL disablePullRequestAutoMerge), so nothing merges while no run watches.
 * Runs after a cancel too, so it has its own time limit instead of the run's signal.
 */
export async function disableAutoMerge(
  input: GitHubCall & { nodeId: string },
  timeoutMs = 5000
): Promise<boolean> {
  try {
    await input.octokit.graphql(DISABLE_AUTO_MERGE, {
      input: { pullRequestId: input.nodeId },
      request: { signal: AbortSignal.timeout(timeoutMs), retries: 0 }
    })
    return true
  } catch {
    return false
  }
}
