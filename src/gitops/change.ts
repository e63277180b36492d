// The GitOps change as ONE commit through the Git Data API (ref -> commit -> tree with base_tree ->
// commit -> fast-forward ref update): the manifest, plus the deletions of keep-tests. Create only:
// the test spec is immutable, so a manifest present with another spec is a conflict. Identical
// content and nothing to delete make no commit, so a re-run changes nothing.
import {
  type GitHubCall,
  githubCall,
  githubError,
  pauseFor,
  requestOptions
} from './github-call.js'

const TOKEN = { input: 'gitops-token', needs: '`contents: write`' }

export interface CommitChangeInput extends GitHubCall {
  /** The branch to commit to; '' = the default branch. */
  branch: string
  /** Pull-request mode: create `branch` from the head of this branch when it does not exist. */
  baseBranch?: string
  manifest: { path: string; content: string; isSame(existing: string): boolean }
  /** Paths to remove in the same commit; absent ones are ignored. */
  deletions: string[]
  message: string
  /** Attempts against concurrent writers. Default 5. */
  maxAttempts?: number
}

export interface CommitOutcome {
  status: 'created' | 'unchanged'
  /** '' when unchanged. */
  commitSha: string
  commitUrl: string
  branch: string
  deleted: string[]
}

/** The file exists with other content: the spec is immutable, a new version needs a new name. */
export class ManifestConflictError extends Error {
  override name = 'ManifestConflictError'
  constructor(repository: string, branch: string, path: string) {
    // coder-k8s-api.md §1.2: the API server refuses spec changes ("spec is immutable").
    super(
      `${path} already exists on branch ${branch} of ${repository} with a different spec. The CoderTemplateTest spec is immutable, so the file was left unchanged. A new template version needs a new test name: push it under a new version name, or set test-name.`
    )
  }
}

/** A ruleset or a classic protection refused the write: retrying cannot help. */
export class BranchProtectedError extends Error {
  override name = 'BranchProtectedError'
  constructor(repository: string, branch: string, said: string) {
    super(
      `GitHub refused the commit to branch ${branch} of ${repository}: the branch is protected (${said.replace(/\s+/g, ' ').trim()}). Changes must be made through a pull request: set gitops-mode: pull-request.`
    )
  }
}

export async function commitChange(input: CommitChangeInput): Promise<CommitOutcome> {
  const branch = input.branch || (await defaultBranch(input))
  const attempts = Math.max(1, input.maxAttempts ?? 5)
  for (let attempt = 1; ; attempt++) {
    input.signal?.throwIfAborted()
    try {
      return await commitOnce(input, branch)
    } catch (error) {
      if (!(error instanceof ConcurrentWrite) || attempt >= attempts)
        throw unwrap(error, input, branch)
      // A concurrent writer moved the branch: re-read and build the commit again.
      // pauseFor: a cancel during the pause rejects with the signal's reason, as everywhere else.
      await pauseFor(200 * attempt + Math.random() * 200, input.signal)
    }
  }
}

class ConcurrentWrite extends Error {}

function unwrap(error: unknown, input: CommitChangeInput, branch: string): unknown {
  if (error instanceof ConcurrentWrite)
    return new Error(
      `Branch ${branch} of ${input.owner}/${input.repo} kept moving while the gate committed to it; run the job again.`
    )
  return error
}

async function defaultBranch(input: CommitChangeInput): Promise<string> {
  const { data } = await githubCall(input, TOKEN, 'reading the repository', (request) =>
    input.octokit.rest.repos.get({ owner: input.owner, repo: input.repo, request })
  )
  return data.default_branch
}

async function commitOnce(input: CommitChangeInput, branch: string): Promise<CommitOutcome> {
  const repository = `${input.owner}/${input.repo}`
  let head = await headOf(input, branch)
  const creating = head === null
  if (head === null) {
    if (!input.baseBranch) throw new Error(`Branch ${branch} does not exist in ${repository}.`)
    head = await headOf(input, input.baseBranch)
    if (head === null)
      throw new Error(`Branch ${input.baseBranch} does not exist in ${repository}.`)
  }
  const existing = await readBlob(input, head, input.manifest.path)
  if (existing !== null && !input.manifest.isSame(existing))
    throw new ManifestConflictError(repository, branch, input.manifest.path)
  const present = []
  for (const path of input.deletions)
    if ((await readBlob(input, head, path)) !== null) present.push(path)
  const unchanged = {
    status: 'unchanged' as const,
    commitSha: '',
    commitUrl: '',
    branch,
    deleted: []
  }
  if (existing !== null && present.length === 0) {
    if (creating) await writeRef(input, branch, head, true)
    return unchanged
  }
  const commit = await writeCommit(input, head, existing === null, present)
  await writeRef(input, branch, commit.sha, creating)
  return {
    status: 'created',
    commitSha: commit.sha,
    commitUrl: commit.html_url,
    branch,
    deleted: present
  }
}

/** The tree (the manifest when new, the deletions) on top of `head`, and its commit. */
async function writeCommit(
  input: CommitChangeInput,
  head: string,
  withManifest: boolean,
  present: string[]
): Promise<{ sha: string; html_url: string }> {
  const { octokit, owner, repo } = input
  const { data: parent } = await githubCall(input, TOKEN, 'reading the branch head', (request) =>
    octokit.rest.git.getCommit({ owner, repo, commit_sha: head, request })
  )
  const tree = [
    ...(withManifest
      ? [
          {
            path: input.manifest.path,
            mode: '100644' as const,
            type: 'blob' as const,
            content: input.manifest.content
          }
        ]
      : []),
    ...present.map((path) => ({ path, mode: '100644' as const, type: 'blob' as const, sha: null }))
  ]
  const { data: newTree } = await githubCall(input, TOKEN, 'writing the tree', (request) =>
    octokit.rest.git.createTree({ owner, repo, base_tree: parent.tree.sha, tree, request })
  )
  const { data: commit } = await githubCall(input, TOKEN, 'writing the commit', (request) =>
    octokit.rest.git.createCommit({
      owner,
      repo,
      message: input.message,
      tree: newTree.sha,
      parents: [head],
      request
    })
  )
  return commit
}

async function headOf(input: CommitChangeInput, branch: string): Promise<string | null> {
  try {
    const { data } = await input.octokit.rest.git.getRef({
      owner: input.owner,
      repo: input.repo,
      ref: `heads/${branch}`,
      request: requestOptions(input)
    })
    return data.object.sha
  } catch (error) {
    if (githubError(error)?.status === 404) return null
    return githubCall(input, TOKEN, `reading branch ${branch}`, () => Promise.reject(error))
  }
}

async function readBlob(
  input: CommitChangeInput,
  ref: string,
  path: string
): Promise<string | null> {
  try {
    const { data } = await input.octokit.rest.repos.getContent({
      owner: input.owner,
      repo: input.repo,
      path,
      ref,
      request: requestOptions(input)
    })
    const file = data as { type?: string; content?: string }
    if (Array.isArray(data) || file.type !== 'file' || typeof file.content !== 'string') return null
    return Buffer.from(file.content, 'base64').toString('utf8')
  } catch (error) {
    if (githubError(error)?.status === 404) return null
    return githubCall(input, TOKEN, `reading ${path}`, () => Promise.reject(error))
  }
}

async function writeRef(
  input: CommitChangeInput,
  branch: string,
  sha: string,
  create: boolean
): Promise<void> {
  const { octokit, owner, repo } = input
  try {
    if (create)
      await octokit.rest.git.createRef({
        owner,
        repo,
        ref: `refs/heads/${branch}`,
        sha,
        request: requestOptions(input)
      })
    else
      await octokit.rest.git.updateRef({
        owner,
        repo,
        ref: `heads/${branch}`,
        sha,
        force: false,
        request: requestOptions(input)
      })
  } catch (error) {
    const answer = githubError(error)
    // Protection first: its texts may come with 409 too, which must not be retried as a race.
    if (answer && isProtection(answer.status, answer.message))
      throw new BranchProtectedError(`${owner}/${repo}`, branch, answer.message)
    if (answer && isConcurrentWrite(answer.status, answer.message))
      throw new ConcurrentWrite(answer.message)
    await githubCall(input, TOKEN, `updating branch ${branch}`, () => Promise.reject(error))
  }
}

/**
 * GitHub answers both a lost race and a protection refusal of a ref write with 422 and no
 * structured field that tells them apart, so the documented texts decide, anchored at the start.
 */
export function isConcurrentWrite(status: number, message: string): boolean {
  return (
    status === 409 ||
    (status === 422 && /^(Update is not a fast forward|Reference already exists)\b/.test(message))
  )
}

export function isProtection(status: number, message: string): boolean {
  return (
    (status === 422 || status === 409) &&
    /^(Repository rule violations found|Protected branch update failed for |Cannot (force-push to|delete) this protected branch)/.test(
      message
    )
  )
}
