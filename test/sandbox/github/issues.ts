// The issue side of pull requests: the issue (closed_by), labels and comments. Every issue in the
// sandbox is a pull request's.
import { DOCS, validationFailed } from './errors.js'
import { gitDate } from './git-objects.js'
import { userJson } from './json.js'
import { labelJson } from './pulls.js'
import type { Route, RouteContext } from './router.js'
import type { StoredComment, StoredPull, StoredRepo } from './state.js'

/** Writes on a pull request's issue need issues or pull-requests write (either works for PRs). */
function requireIssueAccess(ctx: RouteContext, level: 'read' | 'write'): void {
  if (ctx.can('issues', level) || ctx.can('pullRequests', level)) return
  ctx.require('issues', level)
}

function issueOf(ctx: RouteContext, repo: StoredRepo): StoredPull {
  const pull = repo.pulls.get(Number(ctx.params.issue_number))
  if (!pull) throw ctx.fail(404, 'Not Found')
  return pull
}

function issueJson(ctx: RouteContext, repo: StoredRepo, pull: StoredPull) {
  const api = ctx.apiRepoUrl(repo)
  const html = `${ctx.htmlRepoUrl(repo)}/pull/${pull.number}`
  return {
    url: `${api}/issues/${pull.number}`,
    repository_url: api,
    labels_url: `${api}/issues/${pull.number}/labels{/name}`,
    comments_url: `${api}/issues/${pull.number}/comments`,
    events_url: `${api}/issues/${pull.number}/events`,
    html_url: html,
    id: pull.id + 500_000_000,
    node_id: pull.nodeId,
    number: pull.number,
    title: pull.title,
    user: userJson(ctx, pull.user),
    labels: pull.labels.map((name) => labelJson(ctx, repo, name)),
    state: pull.state,
    state_reason: null,
    locked: false,
    assignee: null,
    assignees: [],
    comments: commentsOf(repo, pull.number).length,
    created_at: pull.createdAt,
    updated_at: pull.updatedAt,
    closed_at: pull.closedAt,
    author_association: 'MEMBER',
    body: pull.body,
    closed_by: pull.closedBy ? userJson(ctx, pull.closedBy) : null,
    pull_request: {
      url: `${api}/pulls/${pull.number}`,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      merged_at: pull.mergedAt
    }
  }
}

function commentsOf(repo: StoredRepo, number: number): StoredComment[] {
  return [...repo.comments.values()]
    .filter((c) => c.issueNumber === number)
    .sort((a, b) => a.id - b.id)
}

export function commentJson(ctx: RouteContext, repo: StoredRepo, comment: StoredComment) {
  const api = ctx.apiRepoUrl(repo)
  return {
    id: comment.id,
    node_id: comment.nodeId,
    url: `${api}/issues/comments/${comment.id}`,
    html_url: `${ctx.htmlRepoUrl(repo)}/pull/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${api}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: userJson(ctx, comment.user),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: 'MEMBER'
  }
}

/**
 * The Link header of a paginated list: next and last while there are more pages, first and prev
 * after the first; none when everything fits on one page (docs.github.com, "Using pagination in the
 * REST API").
 */
export function pageLinks(url: string, perPage: number, page: number, pages: number): string {
  const at = (n: number, rel: string) => `<${url}?per_page=${perPage}&page=${n}>; rel="${rel}"`
  const links: string[] = []
  if (page > 1) links.push(at(page - 1, 'prev'))
  if (page < pages) links.push(at(page + 1, 'next'), at(pages, 'last'))
  if (page > 1) links.push(at(1, 'first'))
  return links.join(', ')
}

function labelNames(body: unknown): unknown[] | null {
  const list = Array.isArray(body) ? body : (body as { labels?: unknown } | undefined)?.labels
  if (!Array.isArray(list)) return null
  return list.map((item) =>
    item && typeof item === 'object' ? (item as { name?: unknown }).name : item
  )
}

function addLabels(ctx: RouteContext) {
  const repo = ctx.repo()
  requireIssueAccess(ctx, 'write')
  const pull = issueOf(ctx, repo)
  const names = labelNames(ctx.body)
  // guess: the answer for a body without labels.
  if (names === null) throw ctx.fail(422, 'Invalid request.\n\n"labels" wasn\'t supplied.')
  for (const name of names) {
    // GitHub creates an unknown label on the fly; a name it cannot take (over 50 characters,
    // or empty) is 422 Validation Failed with this error (measured for a too long name:
    // semantic-release/github#518).
    if (typeof name !== 'string' || name.trim() === '' || [...name].length > 50) {
      throw validationFailed(ctx.route.docs, [
        { value: name, resource: 'Label', field: 'name', code: 'invalid' }
      ])
    }
  }
  for (const name of names as string[]) {
    const key = name.toLowerCase()
    if (!repo.labels.has(key)) {
      const id = ctx.state.nextId('label')
      repo.labels.set(key, {
        id,
        nodeId: `LA_kwDO${Buffer.from(String(id)).toString('base64url')}`,
        name,
        // guess: the color of a label created through an issue.
        color: 'ededed',
        description: null
      })
    }
    const label = repo.labels.get(key)!.name
    if (!pull.labels.includes(label)) pull.labels.push(label)
  }
  pull.updatedAt = gitDate()
  return { status: 200, json: pull.labels.map((name) => labelJson(ctx, repo, name)) }
}

function createComment(ctx: RouteContext) {
  const repo = ctx.repo()
  requireIssueAccess(ctx, 'write')
  const pull = issueOf(ctx, repo)
  const input = ctx.input()
  if (typeof input.body !== 'string' || input.body === '') {
    // guess: the error for a missing body.
    throw validationFailed(ctx.route.docs, [
      { resource: 'IssueComment', code: 'missing_field', field: 'body' }
    ])
  }
  const comment = addComment(ctx, repo, pull, input.body, ctx.grant.login)
  const json = commentJson(ctx, repo, comment)
  return { status: 201, json, headers: { location: json.url } }
}

export function addComment(
  ctx: { state: RouteContext['state'] },
  repo: StoredRepo,
  pull: StoredPull,
  body: string,
  login: string
): StoredComment {
  const id = ctx.state.nextId('comment')
  const when = gitDate()
  const comment: StoredComment = {
    id,
    nodeId: `IC_kwDO${Buffer.from(String(id)).toString('base64url')}`,
    issueNumber: pull.number,
    body,
    user: login,
    createdAt: when,
    updatedAt: when
  }
  ctx.state.user(login)
  repo.comments.set(id, comment)
  return comment
}

function commentOf(ctx: RouteContext, repo: StoredRepo): StoredComment {
  const comment = repo.comments.get(Number(ctx.params.comment_id))
  if (!comment) throw ctx.fail(404, 'Not Found')
  return comment
}

export const issueRoutes: Route[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    docs: DOCS.getComment,
    handle(ctx) {
      const repo = ctx.repo()
      requireIssueAccess(ctx, 'read')
      return { status: 200, json: commentJson(ctx, repo, commentOf(ctx, repo)) }
    }
  },
  {
    method: 'PATCH',
    template: '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    docs: DOCS.updateComment,
    handle(ctx) {
      const repo = ctx.repo()
      requireIssueAccess(ctx, 'write')
      const comment = commentOf(ctx, repo)
      const input = ctx.input()
      if (typeof input.body !== 'string' || input.body === '') {
        throw validationFailed(ctx.route.docs, [
          { resource: 'IssueComment', code: 'missing_field', field: 'body' }
        ])
      }
      comment.body = input.body
      comment.updatedAt = gitDate()
      return { status: 200, json: commentJson(ctx, repo, comment) }
    }
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/issues/{issue_number}',
    docs: DOCS.getIssue,
    handle(ctx) {
      const repo = ctx.repo()
      requireIssueAccess(ctx, 'read')
      return { status: 200, json: issueJson(ctx, repo, issueOf(ctx, repo)) }
    }
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/issues/{issue_number}/labels',
    docs: DOCS.addLabels,
    handle: addLabels
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    docs: DOCS.listComments,
    handle(ctx) {
      const repo = ctx.repo()
      requireIssueAccess(ctx, 'read')
      const pull = issueOf(ctx, repo)
      const perPage = Math.min(Number(ctx.query.get('per_page') ?? 30) || 30, 100)
      const page = Math.max(Number(ctx.query.get('page') ?? 1) || 1, 1)
      const all = commentsOf(repo, pull.number)
      const comments = all.slice((page - 1) * perPage, page * perPage)
      const url = `${ctx.apiRepoUrl(repo)}/issues/${pull.number}/comments`
      const link = pageLinks(url, perPage, page, Math.ceil(all.length / perPage))
      return {
        status: 200,
        json: comments.map((c) => commentJson(ctx, repo, c)),
        ...(link ? { headers: { link } } : {})
      }
    }
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
    docs: DOCS.createComment,
    handle: createComment
  }
]
