// Pull requests: list, create, get (ETag/304 in the server), close, merge; mergeability computed
// as GitHub shows it over time (unknown -> blocked -> clean); merges make real commits on the base
// branch; auto-merge merges once the pull request is mergeable.
import { DOCS, HttpFailure, validationFailed } from './errors.js'
import { type CommitObject, gitDate } from './git-objects.js'
import { userJson } from './json.js'
import type { Route, RouteContext } from './router.js'
import { allowedMergeMethod, mergeRefusal, requiredApprovals, requiredChecks } from './rules.js'
import type { MergeMethod, SandboxState, StoredPull, StoredRepo } from './state.js'

export type MergeableState = 'unknown' | 'clean' | 'blocked' | 'dirty' | 'draft'

export interface Mergeability {
  mergeable: boolean | null
  state: MergeableState
  pendingChecks: string[]
  conflicts: string[]
}

export function headSha(repo: StoredRepo, pull: StoredPull): string {
  return repo.branches.get(pull.head) ?? pull.lastHeadSha
}

/**
 * What GitHub shows: while it computes (mergeabilityDelayMs after the pull request opened or its
 * head or base moved) null/'unknown'; then 'dirty' on conflicts, 'blocked' while a required review
 * is missing or a required check is still running (checksDurationMs after each push), else 'clean'.
 * `settled` skips the background delay (a merge request computes it at once).
 */
export function mergeability(
  state: SandboxState,
  repo: StoredRepo,
  pull: StoredPull,
  now = Date.now(),
  settled = false
): Mergeability {
  const none = { pendingChecks: [], conflicts: [] }
  // guess: closed pull requests show mergeable null and state unknown.
  if (pull.state !== 'open') return { mergeable: null, state: 'unknown', ...none }
  const headMoved = repo.branchMovedAt.get(pull.head) ?? pull.createdAtMs
  const baseMoved = repo.branchMovedAt.get(pull.base) ?? pull.createdAtMs
  const knownAt =
    Math.max(pull.createdAtMs, headMoved, baseMoved) + repo.settings.mergeabilityDelayMs
  if (!settled && now < knownAt) return { mergeable: null, state: 'unknown', ...none }
  const base = repo.branches.get(pull.base)
  const conflicts = base ? state.mergeFiles(repo, base, headSha(repo, pull)).conflicts : []
  if (conflicts.length > 0)
    return { mergeable: false, state: 'dirty', pendingChecks: [], conflicts }
  if (pull.draft) return { mergeable: true, state: 'draft', ...none }
  const checksDone = now >= Math.max(headMoved, pull.createdAtMs) + repo.settings.checksDurationMs
  const pendingChecks = checksDone ? [] : requiredChecks(repo, pull.base)
  const reviewMissing = pull.approvals.size < requiredApprovals(repo, pull.base)
  if (reviewMissing || pendingChecks.length > 0) {
    return { mergeable: true, state: 'blocked', pendingChecks, conflicts: [] }
  }
  return { mergeable: true, state: 'clean', ...none }
}

// ---- merging ----

// The committer of merges made on github.com (web-flow).
const GITHUB_COMMITTER = { name: 'GitHub', email: 'noreply@github.com' }

export interface MergeRequest {
  login: string
  method: MergeMethod
  commitTitle?: string
  commitMessage?: string
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
  const commits = repo.git.commitsBetween(base, head)
  let result: CommitObject
  if (request.method === 'merge') {
    const title =
      request.commitTitle ?? `Merge pull request #${pull.number} from ${repo.owner}/${pull.head}`
    result = repo.git.writeCommit({
      tree: repo.git.treeFromFiles(files),
      parents: [base, head],
      author: merger,
      committer,
      message: `${title}\n\n${request.commitMessage ?? pull.title}`
    })
  } else if (request.method === 'squash') {
    // GitHub's default squash title; guess: the body lists each commit message as a bullet.
    const title = request.commitTitle ?? `${pull.title} (#${pull.number})`
    const body = request.commitMessage ?? commits.map((c) => `* ${c.message}`).join('\n\n')
    result = repo.git.writeCommit({
      tree: repo.git.treeFromFiles(files),
      parents: [base],
      author: state.person(pull.user, at),
      committer,
      message: body === '' ? title : `${title}\n\n${body}`
    })
  } else {
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
    result = tip
  }
  state.moveRef(repo, pull.base, result.sha)
  const when = gitDate(at)
  pull.state = 'closed'
  pull.mergedAt = when
  pull.closedAt = when
  pull.updatedAt = when
  pull.mergedBy = request.login
  pull.closedBy = request.login
  pull.mergeCommitSha = result.sha
  pull.lastHeadSha = head
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

/** Opens a pull request (the API and the sandbox's scripted humans share this). */
export function openPull(
  state: SandboxState,
  repo: StoredRepo,
  input: {
    head: string
    base: string
    title: string
    body?: string | null
    draft?: boolean
    login: string
  }
): StoredPull {
  const number = repo.nextIssueNumber++
  const id = state.nextId('pull')
  const now = new Date()
  const when = gitDate(now)
  const pull: StoredPull = {
    number,
    id,
    nodeId: `PR_kwDO${Buffer.from(`${repo.id}:${number}`).toString('base64url')}`,
    title: input.title,
    body: input.body ?? null,
    head: input.head,
    base: input.base,
    lastHeadSha: repo.branches.get(input.head) ?? '',
    user: input.login,
    state: 'open',
    draft: input.draft ?? false,
    createdAt: when,
    createdAtMs: now.getTime(),
    updatedAt: when,
    closedAt: null,
    closedBy: null,
    mergedAt: null,
    mergedBy: null,
    mergeCommitSha: null,
    labels: [],
    autoMerge: null,
    approvals: new Set(),
    cleanSinceMs: null
  }
  state.user(input.login)
  repo.pulls.set(number, pull)
  return pull
}

// ---- JSON ----

export function labelJson(ctx: RouteContext, repo: StoredRepo, name: string) {
  const label = repo.labels.get(name.toLowerCase())!
  return {
    id: label.id,
    node_id: label.nodeId,
    url: `${ctx.apiRepoUrl(repo)}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color,
    default: false,
    description: label.description
  }
}

function branchRefJson(ctx: RouteContext, repo: StoredRepo, branch: string, sha: string) {
  return {
    label: `${repo.owner}:${branch}`,
    ref: branch,
    sha,
    user: userJson(ctx, repo.owner),
    repo: {
      id: repo.id,
      node_id: repo.nodeId,
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      private: true,
      html_url: ctx.htmlRepoUrl(repo),
      url: ctx.apiRepoUrl(repo),
      default_branch: repo.defaultBranch
    }
  }
}

export function pullJson(ctx: RouteContext, repo: StoredRepo, pull: StoredPull, full = true) {
  const api = ctx.apiRepoUrl(repo)
  const html = `${ctx.htmlRepoUrl(repo)}/pull/${pull.number}`
  const head = headSha(repo, pull)
  const base = repo.branches.get(pull.base) ?? ''
  const simple = {
    url: `${api}/pulls/${pull.number}`,
    id: pull.id,
    node_id: pull.nodeId,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${api}/issues/${pull.number}`,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: userJson(ctx, pull.user),
    body: pull.body,
    labels: pull.labels.map((name) => labelJson(ctx, repo, name)),
    created_at: pull.createdAt,
    updated_at: pull.updatedAt,
    closed_at: pull.closedAt,
    merged_at: pull.mergedAt,
    merge_commit_sha: pull.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    draft: pull.draft,
    head: branchRefJson(ctx, repo, pull.head, head),
    base: branchRefJson(ctx, repo, pull.base, base),
    author_association: 'MEMBER',
    auto_merge: pull.autoMerge
      ? {
          enabled_by: userJson(ctx, pull.autoMerge.enabledBy),
          merge_method: pull.autoMerge.mergeMethod,
          commit_title: pull.autoMerge.commitTitle,
          commit_message: pull.autoMerge.commitMessage
        }
      : null
  }
  // The list endpoint sends the "simple" form: no merged/mergeable fields.
  if (!full) return simple
  const status = mergeability(ctx.state, repo, pull)
  const ahead = base ? repo.git.commitsBetween(base, head).length : 0
  return {
    ...simple,
    merged: pull.mergedAt !== null,
    mergeable: status.mergeable,
    rebaseable: status.mergeable,
    mergeable_state: status.state,
    merged_by: pull.mergedBy ? userJson(ctx, pull.mergedBy) : null,
    comments: [...repo.comments.values()].filter((c) => c.issueNumber === pull.number).length,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: pull.state === 'open' ? ahead : repo.git.commitsBetween(base, pull.lastHeadSha).length,
    additions: 0,
    deletions: 0,
    changed_files: base ? ctx.state.diff(repo, repo.git.mergeBase(base, head), head).size : 0
  }
}

// ---- routes ----

function pullOf(ctx: RouteContext, repo: StoredRepo): StoredPull {
  const pull = repo.pulls.get(Number(ctx.params.pull_number))
  if (!pull) throw ctx.fail(404, 'Not Found')
  return pull
}

function listPulls(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('pullRequests', 'read')
  const wanted = ctx.query.get('state') ?? 'open'
  const headFilter = ctx.query.get('head')
  const baseFilter = ctx.query.get('base')
  let pulls = [...repo.pulls.values()].filter((p) => wanted === 'all' || p.state === wanted)
  if (headFilter) {
    // `user:ref-name`; the owner part must be this repository's owner (no forks here).
    const [owner, branch] = headFilter.includes(':')
      ? headFilter.split(':', 2)
      : [repo.owner, headFilter]
    pulls = pulls.filter(
      (p) => owner.toLowerCase() === repo.owner.toLowerCase() && p.head === branch
    )
  }
  if (baseFilter) pulls = pulls.filter((p) => p.base === baseFilter)
  const direction = ctx.query.get('direction') ?? 'desc'
  pulls.sort((a, b) => (direction === 'asc' ? a.number - b.number : b.number - a.number))
  const perPage = Math.min(Number(ctx.query.get('per_page') ?? 30) || 30, 100)
  const page = Math.max(Number(ctx.query.get('page') ?? 1) || 1, 1)
  const slice = pulls.slice((page - 1) * perPage, page * perPage)
  return { status: 200, json: slice.map((p) => pullJson(ctx, repo, p, false)) }
}

function createPull(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('pullRequests', 'write')
  const input = ctx.input()
  const invalid = (field: string, code = 'invalid') =>
    validationFailed(ctx.route.docs, [{ resource: 'PullRequest', field, code }])
  // guess: the errors for a missing title or base (measured for an invalid head:
  // spdx/spdx-online-tools#425).
  if (typeof input.title !== 'string' || input.title === '') throw invalid('title', 'missing_field')
  if (typeof input.base !== 'string' || !repo.branches.has(input.base)) throw invalid('base')
  if (typeof input.head !== 'string') throw invalid('head', 'missing_field')
  const [owner, head] = input.head.includes(':')
    ? input.head.split(':', 2)
    : [repo.owner, input.head]
  if (owner.toLowerCase() !== repo.owner.toLowerCase() || !repo.branches.has(head))
    throw invalid('head')
  const custom = (message: string) =>
    validationFailed(ctx.route.docs, [{ resource: 'PullRequest', code: 'custom', message }])
  for (const pull of repo.pulls.values()) {
    if (pull.state === 'open' && pull.head === head && pull.base === input.base) {
      // Measured (vsoch/pull-request-action#86).
      throw custom(`A pull request already exists for ${repo.owner}:${head}.`)
    }
  }
  if (
    repo.git.commitsBetween(repo.branches.get(input.base)!, repo.branches.get(head)!).length === 0
  ) {
    // Measured (tgymnich/fork-sync#112).
    throw custom(`No commits between ${input.base} and ${head}`)
  }
  const pull = openPull(ctx.state, repo, {
    head,
    base: input.base,
    title: input.title,
    body: typeof input.body === 'string' ? input.body : null,
    draft: input.draft === true,
    login: ctx.grant.login
  })
  const json = pullJson(ctx, repo, pull)
  return { status: 201, json, headers: { location: json.url } }
}

function updatePull(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('pullRequests', 'write')
  const pull = pullOf(ctx, repo)
  const input = ctx.input()
  if (typeof input.title === 'string') pull.title = input.title
  if (typeof input.body === 'string') pull.body = input.body
  if (input.state === 'closed' && pull.state === 'open') closePull(pull, ctx.grant.login)
  if (input.state === 'open' && pull.state === 'closed') {
    if (pull.mergedAt !== null || !repo.branches.has(pull.head)) {
      // guess: the refusal to reopen a merged pull request or one whose head is gone.
      throw validationFailed(ctx.route.docs, [
        {
          resource: 'PullRequest',
          code: 'custom',
          field: 'state',
          message: 'state cannot be changed.'
        }
      ])
    }
    pull.state = 'open'
    pull.closedAt = null
    pull.closedBy = null
  }
  pull.updatedAt = gitDate()
  return { status: 200, json: pullJson(ctx, repo, pull) }
}

const METHOD_NOT_ALLOWED: Record<MergeMethod, string> = {
  // Measured: "Merge commits are not allowed on this repository." and the same sentence for
  // squash and rebase merges (Mergifyio/mergify#1812).
  merge: 'Merge commits are not allowed on this repository.',
  squash: 'Squash merges are not allowed on this repository.',
  rebase: 'Rebase merges are not allowed on this repository.'
}

function mergePull(ctx: RouteContext) {
  const repo = ctx.repo()
  // Merging writes the base branch (guess: contents write, as the docs list for fine-grained tokens).
  ctx.require('contents', 'write')
  const pull = pullOf(ctx, repo)
  const input = ctx.input()
  const method = (input.merge_method ?? 'merge') as MergeMethod
  if (!['merge', 'squash', 'rebase'].includes(method)) {
    // guess: the error for an unknown merge_method.
    throw validationFailed(ctx.route.docs, [
      { resource: 'PullRequest', field: 'merge_method', code: 'invalid' }
    ])
  }
  // Measured: 405 "Pull Request is not mergeable" (guess: also for a closed one).
  if (pull.state !== 'open') throw ctx.fail(405, 'Pull Request is not mergeable')
  if (!allowedMergeMethod(repo, method)) throw ctx.fail(405, METHOD_NOT_ALLOWED[method])
  if (typeof input.sha === 'string' && input.sha !== headSha(repo, pull)) {
    // Measured (dlang/dlang-bot#77).
    throw ctx.fail(409, 'Head branch was modified. Review and try the merge again.')
  }
  const status = mergeability(ctx.state, repo, pull, Date.now(), true)
  if (status.state === 'dirty' || status.state === 'draft') {
    throw ctx.fail(405, 'Pull Request is not mergeable')
  }
  const refusal = mergeRefusal(repo, pull.base, pull.approvals.size, status.pendingChecks)
  if (refusal) throw new HttpFailure(405, refusal.message, refusal.docs)
  const sha = performMerge(ctx.state, repo, pull, {
    login: ctx.grant.login,
    method,
    commitTitle: typeof input.commit_title === 'string' ? input.commit_title : undefined,
    commitMessage: typeof input.commit_message === 'string' ? input.commit_message : undefined
  })
  // The documented answer.
  return { status: 200, json: { sha, merged: true, message: 'Pull Request successfully merged' } }
}

export const pullRoutes: Route[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/pulls',
    docs: DOCS.listPulls,
    handle: listPulls
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/pulls',
    docs: DOCS.createPull,
    handle: createPull
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/pulls/{pull_number}',
    docs: DOCS.getPull,
    handle(ctx) {
      const repo = ctx.repo()
      ctx.require('pullRequests', 'read')
      return { status: 200, json: pullJson(ctx, repo, pullOf(ctx, repo)) }
    }
  },
  {
    method: 'PATCH',
    template: '/repos/{owner}/{repo}/pulls/{pull_number}',
    docs: DOCS.updatePull,
    handle: updatePull
  },
  {
    method: 'PUT',
    template: '/repos/{owner}/{repo}/pulls/{pull_number}/merge',
    docs: DOCS.mergePull,
    handle: mergePull
  }
]
