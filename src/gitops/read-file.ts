// One file of the GitOps repository at a branch, as text; null when it is not there. Read-only.
import { type GitHubCall, githubCall, githubError } from './github-call.js'

const TOKEN = { input: 'gitops-token', needs: '`contents: read`' }

export async function readFileAt(
  input: GitHubCall & { ref: string; path: string }
): Promise<string | null> {
  const { octokit, owner, repo, ref, path } = input
  try {
    const { data } = await octokit.rest.repos.getContent({
      owner,
      repo,
      path,
      ref,
      request: { signal: input.signal }
    })
    const file = data as { type?: string; content?: string }
    if (Array.isArray(data) || file.type !== 'file' || typeof file.content !== 'string') return null
    return Buffer.from(file.content, 'base64').toString('utf8')
  } catch (error) {
    if (githubError(error)?.status === 404) return null
    return githubCall(input, TOKEN, `reading ${path}`, () => Promise.reject(error))
  }
}
