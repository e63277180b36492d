// Pull requests: list, create, get (ETag/304 in the server), close, merge. Their state over time
// is in pull-state.ts, merging and auto-merge in merge.ts.
import { DOCS, HttpFailure, validationFailed } from './errors.js'
import { gitDate } from './git-objects.js'
import { userJson } from './json.js'
import { closePull, performMerge } from './merge.js'
import { headSha, mergeability, openPull } from './pull-state.js'
import type { Route, RouteContext } from './router.js'
import { allowedMergeMethod, mergeRefusal } from './rules.js'
import type { MergeMethod, StoredPull, StoredRepo } from './state.js'

// Other modules import these from here.
export { headSha, mergeability, type MergeableState } from './pull-state.js'

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

function autoMergeJson(ctx: RouteContext, pull: StoredPull) {
  if (!pull.autoMerge) return null
  return {
    enabled_by: userJson(ctx, pull.autoMerge.enabledBy),
    merge_method: pull.autoMerge.mergeMethod,
    commit_title: pull.autoMerge.commitTitle,
    commit_message: pull.autoMerge.commitMessage
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
    auto_merge: autoMergeJson(ctx, pull)
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
