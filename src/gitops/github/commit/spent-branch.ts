// Pull-request mode: a gate branch whose every commit is already on gitops-branch (its pull request
// was merged with a merge commit, and the manifest left the base since) cannot carry a new pull
// request ("No commits between"). It is moved forward to the base, a fast forward that loses
// nothing, so that the commit step writes the manifest onto it again.
import { type GitHubCall, githubCall, githubError, repoOf, requestOptions } from '../client/call.js'

const TOKEN = { input: 'gitops-token', needs: '`contents: write`' }

/** Pure: only a branch that is behind its base (nothing of its own) is moved. */
export function isSpent(status: string): boolean {
  return status === 'behind'
}

/** true when the branch was moved to the base's head. */
export async function forwardSpentBranch(
  input: GitHubCall & { branch: string; base: string }
): Promise<boolean> {
  let compared
  try {
    compared = await input.octokit.rest.repos.compareCommitsWithBasehead({
      ...repoOf(input),
      basehead: `${input.base}...${input.branch}`,
      per_page: 1,
      request: requestOptions(input)
    })
  } catch (error) {
    // No such branch yet: the commit step creates it from the base.
    if (!input.signal?.aborted && githubError(error)?.status === 404) return false
    return githubCall(input, TOKEN, `comparing ${input.branch} with ${input.base}`, () =>
      Promise.reject(error)
    )
  }
  if (!isSpent(compared.data.status)) return false
  await githubCall(input, TOKEN, `moving ${input.branch} to ${input.base}`, (request) =>
    input.octokit.rest.git.updateRef({
      ...repoOf(input),
      ref: `heads/${input.branch}`,
      sha: compared.data.base_commit.sha,
      force: false,
      request
    })
  )
  return true
}
