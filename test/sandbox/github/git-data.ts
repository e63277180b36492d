// The Git Data API: refs, blobs, trees and commits, with real git object SHAs. A one-commit write
// is: read the ref, POST blobs (or inline content), POST a tree on base_tree, POST a commit, PATCH
// the ref; only the PATCH moves the branch (and fires onCommit).
// Refs are in git-refs.ts.
import { DOCS } from './errors.js'
import {
  type FileEntry,
  gitDate,
  githubBase64,
  type Person,
  type TreeEntry
} from './git-objects.js'
import { gitRefRoutes } from './git-refs.js'
import { gitCommitJson } from './json.js'
import type { Route, RouteContext } from './router.js'
import type { StoredRepo } from './state.js'

const MODES = new Set(['100644', '100755', '040000', '160000', '120000'])

function personInput(value: unknown, fallback: Person): Person {
  const input = value as { name?: unknown; email?: unknown; date?: unknown } | undefined
  if (!input || typeof input.name !== 'string' || typeof input.email !== 'string') return fallback
  const date = typeof input.date === 'string' ? gitDate(new Date(input.date)) : fallback.date
  return { name: input.name, email: input.email, date }
}

function blobJson(ctx: RouteContext, repo: StoredRepo, sha: string) {
  const bytes = repo.git.blobs.get(sha)!
  return {
    sha,
    node_id: `B_kwDO${Buffer.from(sha.slice(0, 12)).toString('base64url')}`,
    size: bytes.length,
    url: `${ctx.apiRepoUrl(repo)}/git/blobs/${sha}`,
    content: githubBase64(bytes),
    encoding: 'base64'
  }
}

function createBlob(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('contents', 'write')
  const input = ctx.input()
  if (typeof input.content !== 'string') {
    throw ctx.fail(422, 'Invalid request.\n\n"content" wasn\'t supplied.')
  }
  const encoding = input.encoding ?? 'utf-8'
  if (encoding !== 'utf-8' && encoding !== 'base64') {
    // guess: the text for an unsupported encoding.
    throw ctx.fail(422, `encoding must be either 'utf-8' or 'base64'`)
  }
  const bytes = Buffer.from(input.content, encoding === 'base64' ? 'base64' : 'utf8')
  const sha = repo.git.writeBlob(bytes)
  const url = `${ctx.apiRepoUrl(repo)}/git/blobs/${sha}`
  return { status: 201, json: { sha, url }, headers: { location: url } }
}

function treeEntryJson(ctx: RouteContext, repo: StoredRepo, path: string, entry: TreeEntry) {
  const api = ctx.apiRepoUrl(repo)
  return {
    path,
    mode: entry.mode,
    type: entry.type,
    sha: entry.sha,
    ...(entry.type === 'blob' ? { size: repo.git.blobs.get(entry.sha)?.length ?? 0 } : {}),
    ...(entry.type === 'commit'
      ? {}
      : { url: `${api}/git/${entry.type === 'tree' ? 'trees' : 'blobs'}/${entry.sha}` })
  }
}

function treeJson(ctx: RouteContext, repo: StoredRepo, sha: string, recursive: boolean) {
  const entries: ReturnType<typeof treeEntryJson>[] = []
  const walk = (treeSha: string, prefix: string) => {
    for (const entry of sortedEntries(repo.git.trees.get(treeSha) ?? [])) {
      const path = `${prefix}${entry.name}`
      entries.push(treeEntryJson(ctx, repo, path, entry))
      if (recursive && entry.type === 'tree') walk(entry.sha, `${path}/`)
    }
  }
  walk(sha, '')
  // GitHub cuts a tree past its limit (100,000 entries or 7 MB) and says so with `truncated`.
  const limit = ctx.state.treeEntryLimit
  const truncated = limit !== null && entries.length > limit
  const tree = truncated ? entries.slice(0, limit) : entries
  return { sha, url: `${ctx.apiRepoUrl(repo)}/git/trees/${sha}`, tree, truncated }
}

function sortedEntries(entries: TreeEntry[]): TreeEntry[] {
  const key = (e: TreeEntry) => Buffer.from(e.type === 'tree' ? `${e.name}/` : e.name)
  return [...entries].sort((a, b) => Buffer.compare(key(a), key(b)))
}

function getTree(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('contents', 'read')
  const wanted = ctx.params.tree_sha
  // A tree SHA, or anything tree-ish: a commit SHA or a branch name.
  const sha = repo.git.trees.has(wanted) ? wanted : ctx.state.resolve(repo, wanted)?.tree
  if (!sha) throw ctx.fail(404, 'Not Found')
  const recursive = (ctx.query.get('recursive') ?? '') !== '' && ctx.query.get('recursive') !== '0'
  return { status: 200, json: treeJson(ctx, repo, sha, recursive) }
}

/** Applies one entry of a create-a-tree request to the flattened files. */
function applyTreeEntry(
  ctx: RouteContext,
  repo: StoredRepo,
  files: Map<string, FileEntry>,
  raw: Record<string, unknown>
): void {
  const path = String(raw.path ?? '').replace(/^\/+|\/+$/g, '')
  const mode = String(raw.mode ?? '100644')
  const type = String(raw.type ?? 'blob')
  // guess: texts for a missing path and a bad mode.
  if (path === '') throw ctx.fail(422, 'tree.path cannot be blank')
  if (!MODES.has(mode)) throw ctx.fail(422, `tree.mode contains a malformed mode: ${mode}`)
  const hasSha = 'sha' in raw
  const hasContent = typeof raw.content === 'string'
  if (hasSha === hasContent) {
    // Measured text (octokit/octokit.net#2836).
    throw ctx.fail(
      422,
      'Must supply either tree.sha or tree.content. Request will be rejected if both are present.'
    )
  }
  const under = (p: string) => p === path || p.startsWith(`${path}/`)
  if (hasSha && raw.sha === null) {
    // The docs: deleting a path that does not exist is an error; text as reported for a
    // refused create-a-tree (mckaywrigley/buildware-ai#29), guess that it is this case.
    const doomed = [...files.keys()].filter(under)
    if (doomed.length === 0) throw ctx.fail(422, 'GitRPC::BadObjectState')
    for (const p of doomed) files.delete(p)
    return
  }
  if (hasContent) {
    for (const p of [...files.keys()].filter(under)) files.delete(p)
    files.set(path, { mode, sha: repo.git.writeBlob(Buffer.from(raw.content as string, 'utf8')) })
    return
  }
  const sha = String(raw.sha)
  const actual = repo.git.typeOf(sha)
  if (type === 'commit') {
    files.set(path, { mode: '160000', sha })
    return
  }
  // guess: the text for a sha that is not an object of the stated type.
  if (actual !== type) throw ctx.fail(422, `tree.sha ${sha} is not a valid ${type}`)
  for (const p of [...files.keys()].filter(under)) files.delete(p)
  if (type === 'tree') {
    for (const [sub, entry] of repo.git.flatten(sha)) files.set(`${path}/${sub}`, entry)
  } else {
    files.set(path, { mode, sha })
  }
}

function createTree(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('contents', 'write')
  const input = ctx.input()
  if (!Array.isArray(input.tree))
    throw ctx.fail(422, 'Invalid request.\n\n"tree" wasn\'t supplied.')
  let files = new Map<string, FileEntry>()
  if (input.base_tree !== undefined && input.base_tree !== null) {
    // Reported text for a base_tree that is not a tree (sigmavirus24/github3.py#522).
    if (typeof input.base_tree !== 'string' || !repo.git.trees.has(input.base_tree)) {
      throw ctx.fail(422, 'base_tree is not a valid tree oid')
    }
    files = repo.git.flatten(input.base_tree)
  }
  for (const raw of input.tree as Array<Record<string, unknown>>) {
    applyTreeEntry(ctx, repo, files, raw)
  }
  const sha = repo.git.treeFromFiles(files)
  const json = treeJson(ctx, repo, sha, false)
  return { status: 201, json, headers: { location: json.url } }
}

function createCommit(ctx: RouteContext) {
  const repo = ctx.repo()
  ctx.require('contents', 'write')
  const input = ctx.input()
  if (typeof input.message !== 'string') {
    throw ctx.fail(422, 'Invalid request.\n\n"message" wasn\'t supplied.')
  }
  // Measured: 422 "Tree SHA does not exist" (e.g. exercism/website#8228).
  if (typeof input.tree !== 'string' || !repo.git.trees.has(input.tree)) {
    throw ctx.fail(422, 'Tree SHA does not exist')
  }
  const parents = Array.isArray(input.parents) ? input.parents.map(String) : []
  for (const parent of parents) {
    // guess: the text for an unknown parent.
    if (!repo.git.commits.has(parent)) {
      throw ctx.fail(422, 'Parent SHA does not exist or is not a commit object')
    }
  }
  const account = ctx.state.person(ctx.grant.login)
  const committer = personInput(input.committer, account)
  const author = personInput(input.author, committer)
  const commit = repo.git.writeCommit({
    tree: input.tree,
    parents,
    author,
    committer,
    message: input.message
  })
  const json = gitCommitJson(ctx, repo, commit)
  return { status: 201, json, headers: { location: json.url } }
}

export const gitDataRoutes: Route[] = [
  ...gitRefRoutes,
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/git/blobs/{file_sha}',
    docs: DOCS.getBlob,
    handle(ctx) {
      const repo = ctx.repo()
      ctx.require('contents', 'read')
      if (!repo.git.blobs.has(ctx.params.file_sha)) throw ctx.fail(404, 'Not Found')
      return { status: 200, json: blobJson(ctx, repo, ctx.params.file_sha) }
    }
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/git/blobs',
    docs: DOCS.createBlob,
    handle: createBlob
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/git/trees/{tree_sha+}',
    docs: DOCS.getTree,
    handle: getTree
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/git/trees',
    docs: DOCS.createTree,
    handle: createTree
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/git/commits/{commit_sha}',
    docs: DOCS.getCommit,
    handle(ctx) {
      const repo = ctx.repo()
      ctx.require('contents', 'read')
      const commit = repo.git.commits.get(ctx.params.commit_sha)
      if (!commit) throw ctx.fail(404, 'Not Found')
      return { status: 200, json: gitCommitJson(ctx, repo, commit) }
    }
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/git/commits',
    docs: DOCS.createCommit,
    handle: createCommit
  }
]
