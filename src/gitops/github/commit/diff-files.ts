// The files of a diff as GitHub lists them (REST "diff-entry": compare and "Get a commit",
// https://docs.github.com/en/rest/commits/commits), in the host-neutral shape the guards judge.
import type { BranchFile } from '../../branch-guard.js'
import { type GitHubCall, githubCall, repoOf } from '../client/call.js'

const TOKEN = { input: 'gitops-token', needs: '`contents: read`' }

interface DiffEntry {
  filename: string
  status: string
  sha: string | null
  previous_filename?: string
}

export function branchFileOf(entry: DiffEntry): BranchFile {
  return {
    path: entry.filename,
    status: entry.status,
    ...(entry.sha ? { sha: entry.sha } : {}),
    ...(entry.previous_filename === undefined ? {} : { previousPath: entry.previous_filename })
  }
}

/** One commit's diff against its first parent (at most 300 files: more than the gate writes). */
export async function commitFiles(input: GitHubCall, sha: string): Promise<BranchFile[]> {
  const { data } = await githubCall(input, TOKEN, `reading commit ${sha}`, (request) =>
    input.octokit.rest.repos.getCommit({ ...repoOf(input), ref: sha, per_page: 100, request })
  )
  return (data.files ?? []).map(branchFileOf)
}
