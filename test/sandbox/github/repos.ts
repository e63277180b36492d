// Repository, branch, compare and contents endpoints.
import { DOCS } from './errors.js'
import { gitBlobSha, githubBase64, gitDate, type Person } from './git-objects.js'
import { gitCommitJson, listCommitJson, repoJson } from './json.js'
import type { Route, RouteContext } from './router.js'
import { checkContentsWrite, protectionSummary } from './rules.js'
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
  const before = ctx.state.files(repo, mergeBase ? repo.git.commits.get(mergeBase) : null)
  const after = ctx.state.files(repo, head)
  const files = [...new Set([...before.keys(), ...after.keys()])]
    .sort()
    .filter((path) => before.get(path)?.sha !== after.get(path)?.sha)
    .map((path) => {
      const now = after.get(path)
      return {
        sha: now?.sha ?? before.get(path)!.sha,
        filename: path,
        status: !before.has(path) ? 'added' : !now ? 'removed' : 'modified',
        additions: 0,
        deletions: 0,
        changes: 0,
        blob_url: `${html}/blob/${head.sha}/${path}`,
        raw_url: `${html}/raw/${head.sha}/${path}`,
        contents_url: `${api}/contents/${path}?ref=${head.sha}`
      }
    })
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
