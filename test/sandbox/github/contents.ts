// The contents endpoints: read a file or folder, and write or delete one file in a commit of its
// own (under the rules; a branch moved by another writer answers 409).
import { DOCS } from './errors.js'
import { gitBlobSha, githubBase64, gitDate, type Person } from './git-objects.js'
import { gitCommitJson } from './json.js'
import type { Route, RouteContext } from './router.js'
import { checkContentsWrite } from './rules.js'
import type { StoredRepo } from './state.js'

function fileJson(
  ctx: RouteContext,
  repo: StoredRepo,
  ref: string,
  path: string,
  bytes: Buffer,
  withContent: boolean
) {
  const sha = gitBlobSha(bytes)
  const name = path.split('/').pop() ?? path
  const url = `${ctx.apiRepoUrl(repo)}/contents/${path}?ref=${encodeURIComponent(ref)}`
  const htmlUrl = `${ctx.htmlRepoUrl(repo)}/blob/${ref}/${path}`
  const gitUrl = `${ctx.apiRepoUrl(repo)}/git/blobs/${sha}`
  const json: Record<string, unknown> = {
    name,
    path,
    sha,
    size: bytes.length,
    url,
    html_url: htmlUrl,
    git_url: gitUrl,
    download_url: `${ctx.serverUrl}/raw/${repo.owner}/${repo.name}/${ref}/${path}`,
    type: 'file',
    _links: { self: url, git: gitUrl, html: htmlUrl }
  }
  if (withContent) {
    json.content = githubBase64(bytes)
    json.encoding = 'base64'
  }
  return json
}

function getContent(ctx: RouteContext, repo: StoredRepo, path: string) {
  const refName = ctx.query.get('ref') ?? repo.defaultBranch
  const commit = ctx.state.resolve(repo, refName)
  if (!commit) {
    // Widely reported text of api.github.com for an unknown ref.
    throw ctx.fail(404, `No commit found for the ref ${refName}`)
  }
  const files = ctx.state.files(repo, commit)
  const bytes = (sha: string) => repo.git.blobs.get(sha) ?? Buffer.alloc(0)
  const file = files.get(path)
  if (file) return fileJson(ctx, repo, refName, path, bytes(file.sha), true)
  const prefix = path === '' ? '' : `${path}/`
  const entries = new Map<string, Record<string, unknown>>()
  for (const [filePath, entry] of files) {
    if (!filePath.startsWith(prefix)) continue
    const rest = filePath.slice(prefix.length)
    const slash = rest.indexOf('/')
    if (slash === -1) {
      entries.set(rest, fileJson(ctx, repo, refName, filePath, bytes(entry.sha), false))
    } else {
      const dir = rest.slice(0, slash)
      entries.set(dir, { name: dir, path: `${prefix}${dir}`, type: 'dir' })
    }
  }
  if (entries.size === 0) throw ctx.fail(404, 'Not Found')
  return [...entries.values()]
}

function personInput(value: unknown): Person | undefined {
  const input = value as { name?: unknown; email?: unknown; date?: unknown } | undefined
  if (!input || typeof input.name !== 'string' || typeof input.email !== 'string') return undefined
  const date = typeof input.date === 'string' ? gitDate(new Date(input.date)) : gitDate()
  return { name: input.name, email: input.email, date }
}

/** Who a write through the API is by: `committer`/`author` of the body, else the token's account. */
function writers(ctx: RouteContext, input: Record<string, unknown>) {
  const committer = personInput(input.committer) ?? ctx.state.person(ctx.grant.login)
  const author = personInput(input.author) ?? committer
  return { author, committer }
}

/** The branch of a contents write, its head, and the injected other writer (if any). */
function contentsTarget(
  ctx: RouteContext,
  repo: StoredRepo,
  path: string,
  input: Record<string, unknown>,
  verb: 'create' | 'update' | 'delete'
) {
  const branch = typeof input.branch === 'string' ? input.branch : repo.defaultBranch
  const before = ctx.state.head(repo, branch)
  if (!before) {
    // Measured: the branch is checked before the sha; text per pome-sh/digital-twins#400.
    throw ctx.fail(404, `Branch ${branch} not found`)
  }
  const exists = ctx.state.files(repo, before).has(path)
  checkContentsWrite(
    repo,
    branch,
    ctx.grant,
    verb === 'delete' ? 'delete' : exists ? 'update' : 'create',
    ctx.route.docs
  )
  const fault = ctx.state.conflictFaults.shift()
  if (fault !== undefined) {
    // Another writer moves the branch head between our read and our write.
    const moved = ctx.state.otherWriterCommit(repo, branch)
    // Reported texts of the ref race ("is at <new> but expected <old>"), seen both as 409 and as
    // 422 (e.g. fresh-app/factory#21); guess: which status GitHub picks depends on where it lost.
    throw ctx.fail(fault, `is at ${moved.sha} but expected ${before.sha}`)
  }
  return { branch, before }
}

function putContent(ctx: RouteContext, repo: StoredRepo, path: string) {
  // What a GITHUB_TOKEN without `contents: write` receives.
  ctx.require('contents', 'write')
  const input = ctx.input()
  for (const field of ['message', 'content']) {
    if (typeof input[field] !== 'string') {
      // Measured text for a missing required field (pome-sh/digital-twins#400).
      throw ctx.fail(422, `Invalid request.\n\n"${field}" wasn't supplied.`)
    }
  }
  const { branch, before } = contentsTarget(ctx, repo, path, input, 'update')
  const existing = ctx.state.files(repo, before).get(path)
  const sha = typeof input.sha === 'string' ? input.sha : undefined
  if (existing) {
    if (sha === undefined) throw ctx.fail(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
    if (sha !== existing.sha) throw ctx.fail(409, `${path} does not match ${sha}`)
  }
  const bytes = Buffer.from(input.content as string, 'base64')
  const { author, committer } = writers(ctx, input)
  const commit = ctx.state.commitChanges(
    repo,
    branch,
    new Map([[path, bytes.toString('utf8')]]),
    input.message as string,
    author,
    committer
  )
  return {
    // Measured: 201 when the path is new (a sha is then ignored), 200 on update.
    status: existing ? 200 : 201,
    json: {
      content: fileJson(ctx, repo, branch, path, bytes, false),
      commit: gitCommitJson(ctx, repo, commit)
    }
  }
}

function deleteContent(ctx: RouteContext, repo: StoredRepo, path: string) {
  ctx.require('contents', 'write')
  const input = ctx.input()
  for (const field of ['message', 'sha']) {
    if (typeof input[field] !== 'string') {
      throw ctx.fail(422, `Invalid request.\n\n"${field}" wasn't supplied.`)
    }
  }
  const branch = typeof input.branch === 'string' ? input.branch : repo.defaultBranch
  const head = ctx.state.head(repo, branch)
  // guess: a missing file is a plain 404, as for GET.
  if (head && !ctx.state.files(repo, head).has(path)) throw ctx.fail(404, 'Not Found')
  const { before } = contentsTarget(ctx, repo, path, input, 'delete')
  const existing = ctx.state.files(repo, before).get(path)!
  if (input.sha !== existing.sha) throw ctx.fail(409, `${path} does not match ${String(input.sha)}`)
  const { author, committer } = writers(ctx, input)
  const commit = ctx.state.commitChanges(
    repo,
    branch,
    new Map([[path, null]]),
    input.message as string,
    author,
    committer
  )
  return { status: 200, json: { content: null, commit: gitCommitJson(ctx, repo, commit) } }
}

export const contentRoutes: Route[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/contents/{path+}',
    docs: DOCS.getContent,
    handle: (ctx) => ({ status: 200, json: getContent(ctx, ctx.repo(), ctx.params.path) })
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/contents',
    docs: DOCS.getContent,
    handle: (ctx) => ({ status: 200, json: getContent(ctx, ctx.repo(), '') })
  },
  {
    method: 'PUT',
    template: '/repos/{owner}/{repo}/contents/{path+}',
    docs: DOCS.putContent,
    handle: (ctx) => putContent(ctx, ctx.repo(), ctx.params.path)
  },
  {
    method: 'DELETE',
    template: '/repos/{owner}/{repo}/contents/{path+}',
    docs: DOCS.deleteContent,
    handle: (ctx) => deleteContent(ctx, ctx.repo(), ctx.params.path)
  }
]
