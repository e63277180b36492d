// Merging pull requests: real commits on the base branch (merge, squash or rebase), closing,
// and auto-merge once the pull request has been mergeable long enough.
import { type CommitObject, type FileEntry, gitDate, type Person } from './git-objects.js'
import { headSha, mergeability } from './pull-state.js'
import type { MergeMethod, SandboxState, StoredPull, StoredRepo } from './state.js'

// The committer of merges made on github.com (web-flow).
const GITHUB_COMMITTER = { name: 'GitHub', email: 'noreply@github.com' }

export interface MergeRequest {
  login: string
  method: MergeMethod
  commitTitle?: string
  commitMessage?: string
}

/** What a merge of `head` into `base` writes with. */
interface MergeInput {
  state: SandboxState
  repo: StoredRepo
  pull: StoredPull
  request: MergeRequest
  base: string
  head: string
  files: Map<string, FileEntry>
  at: Date
  merger: Person
  committer: Person
}

function mergeCommit({ repo, pull, request, base, head, files, merger, committer }: MergeInput) {
  const title =
    request.commitTitle ?? `Merge pull request #${pull.number} from ${repo.owner}/${pull.head}`
  return repo.git.writeCommit({
    tree: repo.git.treeFromFiles(files),
    parents: [base, head],
    author: merger,
    committer,
    message: `${title}\n\n${request.commitMessage ?? pull.title}`
  })
}

function squashCommit(input: MergeInput, commits: CommitObject[]): CommitObject {
  const { repo, pull, request, base, files, state, at, committer } = input
  // GitHub's default squash title; guess: the body lists each commit message as a bullet.
  const title = request.commitTitle ?? `${pull.title} (#${pull.number})`
  const body = request.commitMessage ?? commits.map((c) => `* ${c.message}`).join('\n\n')
  return repo.git.writeCommit({
    tree: repo.git.treeFromFiles(files),
    parents: [base],
    author: state.person(pull.user, at),
    committer,
    message: body === '' ? title : `${title}\n\n${body}`
  })
}

function rebaseCommits(input: MergeInput, commits: CommitObject[]): CommitObject {
  const { repo, base, state, committer } = input
  // Rebase: each commit of the head replayed on the base, keeping its author.
  let tip = repo.git.commits.get(base)!
  for (const commit of commits.filter((c) => c.parents.length <= 1)) {
    const changes = state.diff(repo, commit.parents[0] ?? null, commit.sha)
    tip = repo.git.writeCommit({
      tree: state.treeWith(repo, tip, changes),
      parents: [tip.sha],
      author: commit.author,
      committer,
      message: commit.message
    })
  }
  return tip
}

function markMerged(pull: StoredPull, login: string, at: Date, sha: string, head: string): void {
  const when = gitDate(at)
  pull.state = 'closed'
  pull.mergedAt = when
  pull.closedAt = when
  pull.updatedAt = when
  pull.mergedBy = login
  pull.closedBy = login
  pull.mergeCommitSha = sha
  pull.lastHeadSha = head
}

/** Makes the merge on the base branch (fires onCommit for it) and closes the pull request. */
export function performMerge(
  state: SandboxState,
  repo: StoredRepo,
  pull: StoredPull,
  request: MergeRequest
): string {
  const base = repo.branches.get(pull.base)
  if (base === undefined) throw new Error(`sandbox: base branch ${pull.base} is gone`)
  const head = headSha(repo, pull)
  const { files, conflicts } = state.mergeFiles(repo, base, head)
  if (conflicts.length > 0) throw new Error(`sandbox: merge conflicts in ${conflicts.join(', ')}`)
  const at = new Date()
  const committer = { ...GITHUB_COMMITTER, date: gitDate(at) }
  const merger = state.person(request.login, at)
  const input: MergeInput = { state, repo, pull, request, base, head, files, at, merger, committer }
  const commits = repo.git.commitsBetween(base, head)
  const result =
    request.method === 'merge'
      ? mergeCommit(input)
      : request.method === 'squash'
        ? squashCommit(input, commits)
        : rebaseCommits(input, commits)
  state.moveRef(repo, pull.base, result.sha)
  markMerged(pull, request.login, at, result.sha, head)
  if (repo.settings.deleteBranchOnMerge && pull.head !== repo.defaultBranch) {
    state.deleteBranch(repo, pull.head)
  }
  return result.sha
}

export function closePull(pull: StoredPull, login: string): void {
  const when = gitDate()
  pull.state = 'closed'
  pull.closedAt = when
  pull.closedBy = login
  pull.updatedAt = when
}

/** Auto-merge: merges each pull request whose auto-merge is on once it has been clean long enough. */
export function autoMergeTick(state: SandboxState, now = Date.now()): void {
  for (const repo of state.repos.values()) {
    for (const pull of repo.pulls.values()) {
      if (pull.state !== 'open' || !pull.autoMerge) continue
      const status = mergeability(state, repo, pull, now)
      if (status.state !== 'clean') {
        pull.cleanSinceMs = null
        continue
      }
      pull.cleanSinceMs ??= now
      if (now - pull.cleanSinceMs < repo.settings.autoMergeDelayMs) continue
      try {
        // GitHub merges as the user who enabled auto-merge.
        performMerge(state, repo, pull, {
          login: pull.autoMerge.enabledBy,
          method: pull.autoMerge.mergeMethod,
          commitTitle: pull.autoMerge.commitTitle ?? undefined,
          commitMessage: pull.autoMerge.commitMessage ?? undefined
        })
      } catch (error) {
        // e.g. the base branch was deleted; the pull request stays open, as on GitHub.
        console.error('github sandbox: auto-merge failed', error)
      }
    }
  }
}
