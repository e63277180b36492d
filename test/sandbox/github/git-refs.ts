// The Git Data API's refs: read one or the matching ones, create, move (fast forward or forced,
// under the rules) and delete; only a ref write moves a branch (and fires onCommit).
import { DOCS } from './errors.js'
import { refJson } from './json.js'
import type { Route, RouteContext } from './router.js'
import { checkRefWrite } from './rules.js'
import type { StoredRepo } from './state.js'

/** 'heads/<branch>' or 'refs/heads/<branch>' -> branch; null for other refs (tags are not served). */
function branchOfRef(ref: string): string | null {
  const match = /^(?:refs\/)?heads\/(.+)$/.exec(ref)
  return match ? match[1] : null
}

function getRef(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('contents', 'read')
  const branch = branchOfRef(ctx.params.ref)
  const sha = branch === null ? undefined : repo.branches.get(branch)
  if (branch === null || sha === undefined) throw ctx.fail(404, 'Not Found')
  return { status: 200, json: refJson(ctx, repo, branch, sha) }
}

function matchingRefs(ctx: RouteContext, repo: StoredRepo, prefix: string) {
  const branchPrefix = /^(?:refs\/)?heads\/?(.*)$/.exec(prefix)
  if (!branchPrefix) return []
  return [...repo.branches]
    .filter(([branch]) => branch.startsWith(branchPrefix[1]))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([branch, sha]) => refJson(ctx, repo, branch, sha))
}

function createRef(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('contents', 'write')
  const input = ctx.input()
  if (typeof input.ref !== 'string')
    throw ctx.fail(422, 'Invalid request.\n\n"ref" wasn\'t supplied.')
  if (typeof input.sha !== 'string')
    throw ctx.fail(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
  const branch = input.ref.startsWith('refs/') ? branchOfRef(input.ref) : null
  // guess: the text for a ref name that is not refs/heads/<name> (tags are not served here).
  if (branch === null) {
    throw ctx.fail(422, "Reference name must start with 'refs/heads/' in the sandbox")
  }
  // Reported: 422 "Reference already exists" (e.g. usk6666/yorishiro-proxy#82).
  if (repo.branches.has(branch)) throw ctx.fail(422, 'Reference already exists')
  // guess: the text for an unknown object.
  if (!repo.git.commits.has(input.sha)) throw ctx.fail(422, 'Object does not exist')
  checkRefWrite(repo, branch, ctx.grant, 'create', ctx.route.docs)
  ctx.state.moveRef(repo, branch, input.sha)
  const json = refJson(ctx, repo, branch, input.sha)
  return { status: 201, json, headers: { location: json.url } }
}

function updateRef(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('contents', 'write')
  const input = ctx.input()
  const branch = branchOfRef(ctx.params.ref)
  // Reported: 422 "Reference does not exist" for an absent ref (handled as such by many clients).
  if (branch === null || !repo.branches.has(branch)) throw ctx.fail(422, 'Reference does not exist')
  if (typeof input.sha !== 'string')
    throw ctx.fail(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
  if (!repo.git.commits.has(input.sha)) throw ctx.fail(422, 'Object does not exist')
  const force = input.force === true
  const fastForward = repo.git.isAncestor(repo.branches.get(branch)!, input.sha)
  checkRefWrite(repo, branch, ctx.grant, fastForward || !force ? 'update' : 'force', ctx.route.docs)
  if (!force && ctx.state.conflictFaults.shift() !== undefined) {
    // injectConflicts on this path: another writer moves the branch between our read and this
    // update, so the update below is no longer a fast forward.
    ctx.state.otherWriterCommit(repo, branch)
  }
  const current = repo.branches.get(branch)!
  if (!force && !repo.git.isAncestor(current, input.sha)) {
    // GitHub's 422 for a non-fast-forward update (cozystack/cozystack#3017 handles it as such);
    // the text as widely reported.
    throw ctx.fail(422, 'Update is not a fast forward')
  }
  ctx.state.moveRef(repo, branch, input.sha)
  return { status: 200, json: refJson(ctx, repo, branch, input.sha) }
}

function deleteRef(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('contents', 'write')
  const branch = branchOfRef(ctx.params.ref)
  if (branch === null || !repo.branches.has(branch)) throw ctx.fail(422, 'Reference does not exist')
  // guess: GitHub refuses to delete the default branch with a 422 of this kind.
  if (branch === repo.defaultBranch) throw ctx.fail(422, 'Cannot delete the default branch')
  checkRefWrite(repo, branch, ctx.grant, 'delete', ctx.route.docs)
  ctx.state.deleteBranch(repo, branch)
  return { status: 204 }
}

export const gitRefRoutes: Route[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/git/ref/{ref+}',
    docs: DOCS.getRef,
    handle: getRef
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/git/matching-refs/{ref+}',
    docs: DOCS.matchingRefs,
    handle(ctx) {
      const repo = ctx.repo()
      ctx.require('contents', 'read')
      return { status: 200, json: matchingRefs(ctx, repo, ctx.params.ref) }
    }
  },
  {
    // The older plural form: one ref when the name is exact, else the refs under it.
    method: 'GET',
    template: '/repos/{owner}/{repo}/git/refs/{ref+}',
    docs: DOCS.getRef,
    handle(ctx) {
      const repo = ctx.repo()
      ctx.require('contents', 'read')
      const branch = branchOfRef(ctx.params.ref)
      const sha = branch === null ? undefined : repo.branches.get(branch)
      if (branch !== null && sha !== undefined) {
        return { status: 200, json: refJson(ctx, repo, branch, sha) }
      }
      const refs = matchingRefs(ctx, repo, `${ctx.params.ref.replace(/\/$/, '')}/`)
      if (refs.length === 0) throw ctx.fail(404, 'Not Found')
      return { status: 200, json: refs }
    }
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/git/refs',
    docs: DOCS.createRef,
    handle: createRef
  },
  {
    method: 'PATCH',
    template: '/repos/{owner}/{repo}/git/refs/{ref+}',
    docs: DOCS.updateRef,
    handle: updateRef
  },
  {
    method: 'DELETE',
    template: '/repos/{owner}/{repo}/git/refs/{ref+}',
    docs: DOCS.deleteRef,
    handle: deleteRef
  }
]
