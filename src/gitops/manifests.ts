// The files directly in one folder of the GitOps repository, with their text: what keep-tests
// chooses from. One tree read and one blob read per YAML file, bounded.
import { type GitHubCall, githubCall } from './github-call.js'

const TOKEN = { input: 'gitops-token', needs: '`contents: read`' }
/** More files than this in the folder: only the first ones are considered (and said so). */
export const MAX_MANIFEST_FILES = 500

export interface ManifestFilesInput extends GitHubCall {
  ref: string
  folder: string
}

export async function listManifestFiles(
  input: ManifestFilesInput
): Promise<{ path: string; content: string }[]> {
  const { octokit, owner, repo } = input
  let entries: { path?: string; type?: string; sha?: string }[]
  try {
    // One recursive read of the branch's tree; the folder's own files are picked from it.
    const { data } = await octokit.rest.git.getTree({
      owner,
      repo,
      tree_sha: input.ref,
      recursive: 'true',
      request: { signal: input.signal }
    })
    entries = data.tree
  } catch (error) {
    return githubCall(input, TOKEN, `listing ${input.folder || '/'}`, () => Promise.reject(error))
  }
  const prefix = input.folder ? `${input.folder.replace(/\/+$/, '')}/` : ''
  const files = entries
    .filter((e) => e.type === 'blob' && e.sha && e.path?.startsWith(prefix))
    .filter((e) => /^[^/]+\.ya?ml$/.test(e.path!.slice(prefix.length)))
    .slice(0, MAX_MANIFEST_FILES)
  const out = []
  for (const file of files) {
    const { data } = await githubCall(input, TOKEN, `reading ${file.path}`, (request) =>
      octokit.rest.git.getBlob({ owner, repo, file_sha: file.sha!, request })
    )
    out.push({ path: file.path!, content: Buffer.from(data.content, 'base64').toString('utf8') })
  }
  return out
}
