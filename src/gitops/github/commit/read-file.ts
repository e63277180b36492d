// The one reader of a file of the GitOps repository at a ref: its text and blob SHA, null when it is
// not there. Every call goes through requestOptions(), so it has the per-call time limit too.
import { type GitHubCall, githubCall, githubError, requestOptions } from '../client/call.js'

const TOKEN = { input: 'gitops-token', needs: '`contents: read`' }

export interface FileAt {
  content: string
  /** The blob's git SHA: what keep-tests judged, compared again at commit time. */
  sha: string
}

export interface ReadFileInput extends GitHubCall {
  /** A branch name or a commit SHA. */
  ref: string
  path: string
}

export async function readBlobAt(input: ReadFileInput): Promise<FileAt | null> {
  const { octokit, owner, repo, ref, path } = input
  try {
    const { data } = await octokit.rest.repos.getContent({
      owner,
      repo,
      path,
      ref,
      request: requestOptions(input)
    })
    const file = data as { type?: string; content?: string; sha?: string }
    if (Array.isArray(data) || file.type !== 'file' || typeof file.content !== 'string') return null
    return { content: Buffer.from(file.content, 'base64').toString('utf8'), sha: file.sha ?? '' }
  } catch (error) {
    if (githubError(error)?.status === 404) return null
    return githubCall(input, TOKEN, `reading ${path}`, () => Promise.reject(error))
  }
}

/** The file's text alone. */
export async function readFileAt(input: ReadFileInput): Promise<string | null> {
  return (await readBlobAt(input))?.content ?? null
}
