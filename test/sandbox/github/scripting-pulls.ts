// The scripting handle's pull request part: people open, approve, merge, close and comment on
// pull requests, and tests read them back (GitHubSandbox in types.ts).
import { addComment } from './issues.js'
import { closePull, performMerge } from './merge.js'
import { headSha, mergeability, openPull } from './pull-state.js'
import type { SandboxState, StoredPull, StoredRepo } from './state.js'
import type { GitHubSandbox, SandboxPullRequest } from './types.js'

const HUMAN = 'octocat'

function publicPull(state: SandboxState, repo: StoredRepo, pull: StoredPull): SandboxPullRequest {
  const status = mergeability(state, repo, pull)
  return {
    number: pull.number,
    nodeId: pull.nodeId,
    title: pull.title,
    body: pull.body,
    user: pull.user,
    head: pull.head,
    base: pull.base,
    headSha: headSha(repo, pull),
    state: pull.state,
    merged: pull.mergedAt !== null,
    mergedBy: pull.mergedBy,
    mergeCommitSha: pull.mergeCommitSha,
    closedBy: pull.closedBy,
    labels: [...pull.labels],
    autoMerge: pull.autoMerge
      ? { enabledBy: pull.autoMerge.enabledBy, mergeMethod: pull.autoMerge.mergeMethod }
      : null,
    approvals: [...pull.approvals],
    mergeable: status.mergeable,
    mergeableState: status.state
  }
}

type PullActions = Pick<
  GitHubSandbox,
  | 'openPullRequest'
  | 'approvePullRequest'
  | 'mergePullRequest'
  | 'closePullRequest'
  | 'changePullRequestBase'
  | 'commentOnPullRequest'
>

export function pullActions(state: SandboxState): PullActions {
  const repoOf = (owner: string, name: string) => state.mustRepo(owner, name)
  return {
    openPullRequest(owner, name, pullOptions) {
      const repo = repoOf(owner, name)
      if (!repo.branches.has(pullOptions.head))
        throw new Error(`sandbox: no branch ${pullOptions.head}`)
      return openPull(state, repo, {
        head: pullOptions.head,
        base: pullOptions.base ?? repo.defaultBranch,
        title: pullOptions.title ?? `Merge ${pullOptions.head}`,
        body: pullOptions.body ?? null,
        login: pullOptions.login ?? HUMAN
      }).number
    },
    approvePullRequest(owner, name, number, login = 'reviewer') {
      const repo = repoOf(owner, name)
      state.user(login)
      state.mustPull(repo, number).approvals.add(login)
    },
    mergePullRequest(owner, name, number, mergeOptions = {}) {
      const repo = repoOf(owner, name)
      const pull = state.mustPull(repo, number)
      if (pull.state !== 'open') throw new Error(`sandbox: pull request #${number} is not open`)
      const login = mergeOptions.login ?? HUMAN
      state.user(login)
      return performMerge(state, repo, pull, { login, method: mergeOptions.method ?? 'merge' })
    },
    changePullRequestBase(owner, name, number, base, login = HUMAN) {
      const repo = repoOf(owner, name)
      const pull = state.mustPull(repo, number)
      if (pull.state !== 'open') throw new Error(`sandbox: pull request #${number} is not open`)
      if (!repo.branches.has(base)) throw new Error(`sandbox: no branch ${base}`)
      state.user(login)
      pull.base = base
      pull.cleanSinceMs = null
    },
    closePullRequest(owner, name, number, login = HUMAN) {
      const pull = state.mustPull(repoOf(owner, name), number)
      if (pull.state !== 'open') throw new Error(`sandbox: pull request #${number} is not open`)
      state.user(login)
      closePull(pull, login)
    },
    commentOnPullRequest(owner, name, number, body, login = HUMAN) {
      const repo = repoOf(owner, name)
      return addComment({ state }, repo, state.mustPull(repo, number), body, login).id
    }
  }
}

export function pullReads(
  state: SandboxState
): Pick<GitHubSandbox, 'pullRequest' | 'pullRequests' | 'comments'> {
  const repoOf = (owner: string, name: string) => state.mustRepo(owner, name)
  return {
    pullRequest(owner, name, number) {
      const repo = repoOf(owner, name)
      const pull = repo.pulls.get(number)
      return pull ? publicPull(state, repo, pull) : null
    },
    pullRequests(owner, name) {
      const repo = repoOf(owner, name)
      return [...repo.pulls.values()].map((pull) => publicPull(state, repo, pull))
    },
    comments(owner, name, number) {
      const repo = repoOf(owner, name)
      return [...repo.comments.values()]
        .filter((comment) => comment.issueNumber === number)
        .sort((a, b) => a.id - b.id)
        .map((c) => ({
          id: c.id,
          body: c.body,
          user: c.user,
          createdAt: c.createdAt,
          updatedAt: c.updatedAt
        }))
    }
  }
}
