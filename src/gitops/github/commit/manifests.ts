// The files directly in one folder of the GitOps repository, with their text and blob SHA: what
// keep-tests chooses from. The folder's own tree is read (one non-recursive read per path segment),
// not the whole repository's, and a listing that was cut is said, never silent.
import { type GitHubCall, githubCall, repoOf } from '../client/call.js'
import type { ManifestListing } from '../../host.js'

const TOKEN = { input: 'gitops-token', needs: '`contents: read`' }
/** More files than this in the folder: only the first ones are considered (and said so). */
export const MAX_MANIFEST_FILES = 500

export interface ManifestFilesInput extends GitHubCall {
  ref: string
  folder: string
}

export type { ManifestFile, ManifestListing } from '../../host.js'

type TreeEntry = { path?: string; type?: string; sha?: string }

export async function listManifestFiles(input: ManifestFilesInput): Promise<ManifestListing> {
  const folder = input.folder.replace(/^\/+|\/+$/g, '')
  const tree = await folderTree(input, folder)
  if (!tree) return { files: [], cut: '' }
  const yaml = tree.entries.filter(
    (e) => e.type === 'blob' && e.sha && /^[^/]+\.ya?ml$/.test(e.path ?? '')
  )
  const cuts = []
  // GitHub's documented flag: the tree array exceeded its maximum, some entries are missing.
  if (tree.truncated) cuts.push(`GitHub cut the listing of ${folder || '/'} (truncated)`)
  if (yaml.length > MAX_MANIFEST_FILES)
    cuts.push(`only the first ${MAX_MANIFEST_FILES} of ${yaml.length} YAML files were read`)
  const files = []
  for (const entry of yaml.slice(0, MAX_MANIFEST_FILES)) {
    const path = folder ? `${folder}/${entry.path!}` : entry.path!
    const { data } = await githubCall(input, TOKEN, `reading ${path}`, (request) =>
      input.octokit.rest.git.getBlob({ ...repoOf(input), file_sha: entry.sha!, request })
    )
    files.push({
      path,
      content: Buffer.from(data.content, 'base64').toString('utf8'),
      sha: entry.sha!
    })
  }
  return { files, cut: cuts.join('; ') }
}

/** The folder's own tree, segment by segment from the ref's root; null when the folder is not there. */
async function folderTree(
  input: ManifestFilesInput,
  folder: string
): Promise<{ entries: TreeEntry[]; truncated: boolean } | null> {
  // tree_sha takes a branch name too (GitHub's "Get a tree": "The SHA1 value or ref name of the tree").
  let treeSha = input.ref
  const segments = folder ? folder.split('/') : []
  for (let depth = 0; ; depth++) {
    const { data } = await githubCall(input, TOKEN, `listing ${folder || '/'}`, (request) =>
      input.octokit.rest.git.getTree({ ...repoOf(input), tree_sha: treeSha, request })
    )
    if (depth === segments.length) return { entries: data.tree, truncated: data.truncated }
    const next = data.tree.find((e) => e.type === 'tree' && e.path === segments[depth])
    if (!next?.sha) return null
    treeSha = next.sha
  }
}
