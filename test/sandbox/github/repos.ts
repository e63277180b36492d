// Repository, branch and compare endpoints; the contents endpoints are in contents.ts.
import { contentRoutes } from './contents.js'
import { diffEntries } from './diff-entries.js'
import { DOCS } from './errors.js'
import { listCommitJson, repoJson } from './json.js'
import type { Route, RouteContext } from './router.js'
import { protectionSummary } from './rules.js'
import type { StoredRepo } from './state.js'

function branchJson(ctx: RouteContext, repo: StoredRepo, branch: string) {
  const commit = ctx.state.head(repo, branch)!
  return {
    name: branch,
    commit: listCommitJson(ctx, repo, commit),
    _links: {
      self: `${ctx.apiRepoUrl(repo)}/branches/${branch}`,
      html: `${ctx.htmlRepoUrl(repo)}/tree/${branch}`
    },
    // guess: `protected` reflects classic branch protection only; read rulesets with
    // GET /rules/branches/{branch}.
    protected: repo.protections.has(branch),
    protection: protectionSummary(repo, branch),
    protection_url: `${ctx.apiRepoUrl(repo)}/branches/${branch}/protection`
  }
}

type Commit = Parameters<RouteContext['state']['files']>[1]

/** The compare's "files", renames paired (diff-entries.ts). */
function compareFiles(
  ctx: RouteContext,
  repo: StoredRepo,
  base: Commit,
  head: NonNullable<Commit>
) {
  const api = ctx.apiRepoUrl(repo)
  const html = ctx.htmlRepoUrl(repo)
  const treeOf = (commit: Commit) =>
    new Map(
      [...ctx.state.files(repo, commit)].map(([path, entry]) => [
        path,
        { sha: entry.sha, text: ctx.state.blobText(repo, entry.sha) }
      ])
    )
  return diffEntries(treeOf(base), treeOf(head)).map((entry) => ({
    sha: entry.sha,
    filename: entry.path,
    status: entry.status,
    ...(entry.previousPath ? { previous_filename: entry.previousPath } : {}),
    additions: 0,
    deletions: 0,
    changes: 0,
    blob_url: `${html}/blob/${head.sha}/${entry.path}`,
    raw_url: `${html}/raw/${head.sha}/${entry.path}`,
    contents_url: `${api}/contents/${entry.path}?ref=${head.sha}`
  }))
}

function compare(ctx: RouteContext, repo: StoredRepo) {
  const spec = ctx.params.basehead
  const separator = spec.includes('...') ? '...' : '..'
  const [baseRef, headRef] = spec.split(separator)
  const resolve = (ref: string) => ctx.state.resolve(repo, ref.replace(/^[^:]+:/, ''))
  const base = baseRef ? resolve(baseRef) : undefined
  const head = headRef ? resolve(headRef) : undefined
  if (!base || !head) throw ctx.fail(404, 'Not Found')
  const mergeBase = repo.git.mergeBase(base.sha, head.sha)
  const ahead = repo.git.commitsBetween(base.sha, head.sha)
  const behind = repo.git.commitsBetween(head.sha, base.sha)
  const status =
    base.sha === head.sha
      ? 'identical'
      : behind.length === 0
        ? 'ahead'
        : ahead.length === 0
          ? 'behind'
          : 'diverged'
  const api = ctx.apiRepoUrl(repo)
  const html = ctx.htmlRepoUrl(repo)
  const files = compareFiles(ctx, repo, mergeBase ? repo.git.commits.get(mergeBase) : null, head)
  return {
    url: `${api}/compare/${spec}`,
    html_url: `${html}/compare/${spec}`,
    permalink_url: `${html}/compare/${base.sha}...${head.sha}`,
    diff_url: `${html}/compare/${spec}.diff`,
    patch_url: `${html}/compare/${spec}.patch`,
    base_commit: listCommitJson(ctx, repo, base),
    merge_base_commit: mergeBase
      ? listCommitJson(ctx, repo, repo.git.commits.get(mergeBase)!)
      : null,
    status,
    ahead_by: ahead.length,
    behind_by: behind.length,
    total_commits: ahead.length,
    // GitHub lists at most 250 commits here, oldest first.
    commits: ahead.slice(0, 250).map((commit) => listCommitJson(ctx, repo, commit)),
    files
  }
}

export const repoRoutes: Route[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}',
    docs: DOCS.getRepo,
    handle: (ctx) => ({ status: 200, json: repoJson(ctx, ctx.repo()) })
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/branches/{branch+}',
    docs: DOCS.getBranch,
    handle(ctx) {
      const repo = ctx.repo()
      // GitHub's text for an unknown branch (widely reported).
      if (!repo.branches.has(ctx.params.branch)) throw ctx.fail(404, 'Branch not found')
      return { status: 200, json: branchJson(ctx, repo, ctx.params.branch) }
    }
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/compare/{basehead+}',
    docs: DOCS.compare,
    handle: (ctx) => ({ status: 200, json: compare(ctx, ctx.repo()) })
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/commits/{ref+}',
    docs: DOCS.getRepoCommit,
    handle(ctx) {
      const repo = ctx.repo()
      const commit = ctx.state.resolve(repo, ctx.params.ref)
      // GitHub's text for an unknown SHA (widely reported, e.g. octokit/rest.js issues).
      if (!commit) throw ctx.fail(422, `No commit found for SHA: ${ctx.params.ref}`)
      const parent = commit.parents[0] ? repo.git.commits.get(commit.parents[0]) : null
      const files = compareFiles(ctx, repo, parent, commit)
      return {
        status: 200,
        json: {
          ...listCommitJson(ctx, repo, commit),
          stats: { total: 0, additions: 0, deletions: 0 },
          files
        }
      }
    }
  },
  ...contentRoutes
]
