// A local GitHub REST API: the subset Octokit calls to commit one file through the contents API.
// Answers, headers and error bodies follow api.github.com. Texts measured on github.com by others
// are cited; the rest is marked `guess`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { GitCommit, RecordedRequest } from '../contracts.js'
import { fakeCommitSha, gitBlobSha, githubBase64 } from './git-objects.js'

export interface GitHubSandboxOptions {
  /** The token with write access; a random one when absent. */
  token?: string
}

export interface SandboxCommit extends GitCommit {
  message: string
  parent: string | null
  author: { name: string; email: string; date: string }
}

export type RateLimitKind = 'primary' | 'secondary'

export interface RateLimitFault {
  kind?: RateLimitKind // default 'primary'
  status?: 403 | 429 // default 403
  /** primary: seconds until `x-ratelimit-reset`; secondary: the `retry-after` header. Default 1. */
  seconds?: number
}

export interface GitHubSandbox {
  /** API base URL, what GITHUB_API_URL holds. */
  url: string
  /** Web base URL, what GITHUB_SERVER_URL holds (html_url values start with it). */
  serverUrl: string
  /** A token with write access to every repository. */
  token: string
  requests: RecordedRequest[]
  /** A token that can read but not write (PUT answers 403 like a read-only GITHUB_TOKEN). */
  addReadOnlyToken(token: string): void
  createRepo(
    owner: string,
    repo: string,
    options?: { defaultBranch?: string; files?: Record<string, string> }
  ): void
  createBranch(owner: string, repo: string, branch: string, from?: string): void
  deleteBranch(owner: string, repo: string, branch: string): void
  readFile(owner: string, repo: string, branch: string, path: string): string | null
  /** Commits as another writer; content null deletes. Returns the commit SHA. */
  writeFile(
    owner: string,
    repo: string,
    branch: string,
    path: string,
    content: string | null,
    message?: string
  ): string
  /** Oldest first. */
  commits(owner: string, repo: string, branch: string): SandboxCommit[]
  onCommit(listener: (commit: GitCommit) => void): () => void
  /** Called before each authenticated API request is handled (e.g. to race a PUT). */
  beforeRequest(listener: (method: string, path: string) => void): () => void
  injectConflicts(count: number, kind: 409 | 422): void
  injectServerErrors(count: number, status?: number): void
  injectRateLimit(count: number, fault?: RateLimitFault): void
  /**
   * The next `count` authenticated requests get no answer: the connection stays open until the
   * client gives up or the sandbox closes. Recorded with status 0.
   */
  hangNextRequests(count: number): void
  close(): Promise<void>
}

interface StoredRepo {
  id: number
  owner: string
  name: string
  defaultBranch: string
  branches: Map<string, string> // branch -> head commit SHA
  commits: Map<string, StoredCommit>
}

interface StoredCommit {
  sha: string
  parent: string | null
  message: string
  author: { name: string; email: string; date: string }
  files: Map<string, string> // full snapshot: path -> content
  changes: Map<string, string | null>
  branch: string
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly documentationUrl: string,
    readonly headers: Record<string, string> = {}
  ) {
    super(message)
  }
}

const DOCS = {
  rest: 'https://docs.github.com/rest',
  getRepo: 'https://docs.github.com/rest/repos/repos#get-a-repository',
  getContent: 'https://docs.github.com/rest/repos/contents#get-repository-content',
  putContent: 'https://docs.github.com/rest/repos/contents#create-or-update-file-contents',
  rateLimit: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
  secondary:
    'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits'
}

const OTHER_WRITER = { name: 'other-writer', email: 'other-writer@example.com' }
const GATE_WRITER = {
  name: 'github-actions[bot]',
  email: 'github-actions[bot]@users.noreply.github.com'
}

export async function startGitHubSandbox(
  options: GitHubSandboxOptions = {}
): Promise<GitHubSandbox> {
  const token = options.token ?? `ghs_${Math.random().toString(36).slice(2)}sandbox`
  const writeTokens = new Set([token])
  const readOnlyTokens = new Set<string>()
  const repos = new Map<string, StoredRepo>()
  const requests: RecordedRequest[] = []
  const commitListeners = new Set<(commit: GitCommit) => void>()
  const requestListeners = new Set<(method: string, path: string) => void>()
  const conflictFaults: Array<409 | 422> = []
  const serverErrorFaults: number[] = []
  const rateLimitFaults: RateLimitFault[] = []
  let requestsToHang = 0
  let nextRepoId = 1000
  let otherWriterFiles = 0
  let apiCalls = 0
  let base = ''

  const repoKey = (owner: string, repo: string) => `${owner}/${repo}`.toLowerCase()

  function findRepo(owner: string, repo: string): StoredRepo | undefined {
    return repos.get(repoKey(owner, repo))
  }

  function mustRepo(owner: string, repo: string): StoredRepo {
    const found = findRepo(owner, repo)
    if (!found) throw new Error(`sandbox: no repository ${owner}/${repo}`)
    return found
  }

  function headCommit(repo: StoredRepo, branch: string): StoredCommit | undefined {
    const head = repo.branches.get(branch)
    return head === undefined ? undefined : repo.commits.get(head)
  }

  function makeCommit(
    repo: StoredRepo,
    branch: string,
    changes: Map<string, string | null>,
    message: string,
    author: { name: string; email: string }
  ): StoredCommit {
    const parent = headCommit(repo, branch) ?? null
    const files = new Map(parent?.files ?? [])
    for (const [path, content] of changes) {
      if (content === null) files.delete(path)
      else files.set(path, content)
    }
    const sha = fakeCommitSha(parent?.sha ?? null, message, [...changes.keys()])
    const commit: StoredCommit = {
      sha,
      parent: parent?.sha ?? null,
      message,
      author: { ...author, date: new Date().toISOString() },
      files,
      changes: new Map(changes),
      branch
    }
    repo.commits.set(sha, commit)
    repo.branches.set(branch, sha)
    const event: GitCommit = {
      owner: repo.owner,
      repo: repo.name,
      branch,
      sha,
      changes: new Map(changes)
    }
    for (const listener of commitListeners) {
      try {
        listener(event)
      } catch (error) {
        // A broken subscriber must not break the API answer; make it visible instead.
        console.error('github sandbox: onCommit listener failed', error)
      }
    }
    return commit
  }

  function publicCommit(repo: StoredRepo, commit: StoredCommit): SandboxCommit {
    return {
      owner: repo.owner,
      repo: repo.name,
      branch: commit.branch,
      sha: commit.sha,
      changes: new Map(commit.changes),
      message: commit.message,
      parent: commit.parent,
      author: { ...commit.author }
    }
  }

  // ---- JSON shapes as api.github.com sends them ----

  const htmlRepoUrl = (repo: StoredRepo) => `${base}/${repo.owner}/${repo.name}`
  const apiRepoUrl = (repo: StoredRepo) => `${base}/repos/${repo.owner}/${repo.name}`

  function repoJson(repo: StoredRepo) {
    return {
      id: repo.id,
      node_id: Buffer.from(`010:Repository${repo.id}`).toString('base64'),
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      private: true,
      owner: { login: repo.owner, id: repo.id + 1, type: 'Organization' },
      html_url: htmlRepoUrl(repo),
      url: apiRepoUrl(repo),
      default_branch: repo.defaultBranch,
      visibility: 'private',
      permissions: { admin: false, maintain: false, push: true, triage: true, pull: true }
    }
  }

  function fileJson(
    repo: StoredRepo,
    ref: string,
    path: string,
    content: string,
    withContent: boolean
  ) {
    const sha = gitBlobSha(content)
    const name = path.split('/').pop() ?? path
    const url = `${apiRepoUrl(repo)}/contents/${path}?ref=${encodeURIComponent(ref)}`
    const htmlUrl = `${htmlRepoUrl(repo)}/blob/${ref}/${path}`
    const gitUrl = `${apiRepoUrl(repo)}/git/blobs/${sha}`
    const json: Record<string, unknown> = {
      name,
      path,
      sha,
      size: Buffer.byteLength(content, 'utf8'),
      url,
      html_url: htmlUrl,
      git_url: gitUrl,
      download_url: `${base}/raw/${repo.owner}/${repo.name}/${ref}/${path}`,
      type: 'file',
      _links: { self: url, git: gitUrl, html: htmlUrl }
    }
    if (withContent) {
      json.content = githubBase64(content)
      json.encoding = 'base64'
    }
    return json
  }

  function commitJson(repo: StoredRepo, commit: StoredCommit) {
    const person = { ...commit.author }
    return {
      sha: commit.sha,
      node_id: Buffer.from(`06:Commit${commit.sha}`).toString('base64'),
      url: `${apiRepoUrl(repo)}/git/commits/${commit.sha}`,
      html_url: `${htmlRepoUrl(repo)}/commit/${commit.sha}`,
      author: person,
      committer: person,
      message: commit.message,
      tree: { sha: gitBlobSha(`tree ${commit.sha}`), url: `${apiRepoUrl(repo)}/git/trees` },
      parents: commit.parent
        ? [
            {
              sha: commit.parent,
              url: `${apiRepoUrl(repo)}/git/commits/${commit.parent}`,
              html_url: `${htmlRepoUrl(repo)}/commit/${commit.parent}`
            }
          ]
        : [],
      verification: { verified: false, reason: 'unsigned', signature: null, payload: null }
    }
  }

  // ---- request handling ----

  function rateHeaders(): Record<string, string> {
    const used = Math.min(apiCalls, 5000)
    return {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(5000 - used),
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-used': String(used),
      'x-ratelimit-resource': 'core'
    }
  }

  function rateLimitFailure(fault: RateLimitFault): HttpFailure {
    const status = fault.status ?? 403
    const seconds = fault.seconds ?? 1
    if ((fault.kind ?? 'primary') === 'secondary') {
      // The text GitHub sends for secondary limits; plugin-throttling matches /\bsecondary rate\b/i.
      return new HttpFailure(
        status,
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        DOCS.secondary,
        { ...rateHeaders(), 'retry-after': String(seconds) }
      )
    }
    // Primary limit: remaining 0 and the reset time in epoch seconds (what the plugin reads).
    const reset = Math.floor(Date.now() / 1000) + seconds
    return new HttpFailure(
      status,
      'API rate limit exceeded for installation ID 4242.',
      DOCS.rateLimit,
      {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset),
        'x-ratelimit-used': '5000',
        'x-ratelimit-resource': 'core'
      }
    )
  }

  function route(
    method: string,
    url: URL,
    body: unknown,
    canWrite: boolean
  ): { status: number; json: unknown } {
    const segments = url.pathname.split('/').filter((s) => s !== '')
    if (segments[0] !== 'repos' || segments.length < 3) {
      throw new HttpFailure(404, 'Not Found', DOCS.rest)
    }
    const owner = decodeURIComponent(segments[1])
    const name = decodeURIComponent(segments[2])
    const repo = findRepo(owner, name)
    if (segments.length === 3) {
      if (method !== 'GET') throw new HttpFailure(404, 'Not Found', DOCS.rest)
      if (!repo) throw new HttpFailure(404, 'Not Found', DOCS.getRepo)
      return { status: 200, json: repoJson(repo) }
    }
    if (segments[3] !== 'contents') throw new HttpFailure(404, 'Not Found', DOCS.rest)
    // Octokit sends the path with its slashes encoded (%2F); GitHub accepts both forms.
    const path = decodeURIComponent(segments.slice(4).join('/'))
    if (method === 'GET') {
      if (!repo) throw new HttpFailure(404, 'Not Found', DOCS.getContent)
      return { status: 200, json: getContent(repo, path, url.searchParams.get('ref')) }
    }
    if (method === 'PUT') {
      if (!repo) throw new HttpFailure(404, 'Not Found', DOCS.putContent)
      if (!canWrite) {
        // What a GITHUB_TOKEN without `contents: write` receives.
        throw new HttpFailure(403, 'Resource not accessible by integration', DOCS.putContent)
      }
      return putContent(repo, path, body)
    }
    throw new HttpFailure(404, 'Not Found', DOCS.rest)
  }

  function getContent(repo: StoredRepo, path: string, ref: string | null) {
    const refName = ref ?? repo.defaultBranch
    const commit = headCommit(repo, refName) ?? repo.commits.get(refName)
    if (!commit) {
      // Widely reported text of api.github.com for an unknown ref.
      throw new HttpFailure(404, `No commit found for the ref ${refName}`, DOCS.getContent)
    }
    const content = commit.files.get(path)
    if (content !== undefined) return fileJson(repo, refName, path, content, true)
    const prefix = path === '' ? '' : `${path}/`
    const entries = new Map<string, Record<string, unknown>>()
    for (const [filePath, fileContent] of commit.files) {
      if (!filePath.startsWith(prefix)) continue
      const rest = filePath.slice(prefix.length)
      const slash = rest.indexOf('/')
      if (slash === -1) {
        entries.set(rest, fileJson(repo, refName, filePath, fileContent, false))
      } else {
        const dir = rest.slice(0, slash)
        entries.set(dir, { name: dir, path: `${prefix}${dir}`, type: 'dir' })
      }
    }
    if (entries.size === 0) throw new HttpFailure(404, 'Not Found', DOCS.getContent)
    return [...entries.values()]
  }

  function putContent(repo: StoredRepo, path: string, body: unknown) {
    const input = (body ?? {}) as Record<string, unknown>
    for (const field of ['message', 'content']) {
      if (typeof input[field] !== 'string') {
        // Measured text for a missing required field (pome-sh/digital-twins#400).
        throw new HttpFailure(
          422,
          `Invalid request.\n\n"${field}" wasn't supplied.`,
          DOCS.putContent
        )
      }
    }
    const branch = typeof input.branch === 'string' ? input.branch : repo.defaultBranch
    const before = headCommit(repo, branch)
    if (!before) {
      // Measured: the branch is checked before the sha; text per pome-sh/digital-twins#400.
      throw new HttpFailure(404, `Branch ${branch} not found`, DOCS.putContent)
    }
    const fault = conflictFaults.shift()
    if (fault !== undefined) {
      // Another writer moves the branch head between our read and our write.
      otherWriterFiles += 1
      const moved = makeCommit(
        repo,
        branch,
        new Map([[`other-writer/change-${otherWriterFiles}.txt`, `change ${otherWriterFiles}\n`]]),
        `Unrelated change ${otherWriterFiles}`,
        OTHER_WRITER
      )
      // Reported texts of the ref race ("is at <new> but expected <old>"), seen both as 409 and as
      // 422 (e.g. fresh-app/factory#21); guess: which status GitHub picks depends on where it lost.
      throw new HttpFailure(fault, `is at ${moved.sha} but expected ${before.sha}`, DOCS.putContent)
    }
    const existing = before.files.get(path)
    const sha = typeof input.sha === 'string' ? input.sha : undefined
    if (existing !== undefined) {
      if (sha === undefined) {
        throw new HttpFailure(422, 'Invalid request.\n\n"sha" wasn\'t supplied.', DOCS.putContent)
      }
      if (sha !== gitBlobSha(existing)) {
        throw new HttpFailure(409, `${path} does not match ${sha}`, DOCS.putContent)
      }
    }
    const content = Buffer.from(input.content as string, 'base64').toString('utf8')
    const committer = input.committer as { name?: string; email?: string } | undefined
    const author =
      committer && typeof committer.name === 'string' && typeof committer.email === 'string'
        ? { name: committer.name, email: committer.email }
        : GATE_WRITER
    const commit = makeCommit(
      repo,
      branch,
      new Map([[path, content]]),
      input.message as string,
      author
    )
    return {
      // Measured: 201 when the path is new (a sha is then ignored), 200 on update.
      status: existing === undefined ? 201 : 200,
      json: {
        content: fileJson(repo, branch, path, content, false),
        commit: commitJson(repo, commit)
      }
    }
  }

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }

  function redactedHeaders(req: IncomingMessage): Record<string, string | string[] | undefined> {
    const headers: Record<string, string | string[] | undefined> = { ...req.headers }
    if (typeof headers.authorization === 'string') {
      headers.authorization = headers.authorization.replace(/\s.*$/, ' [REDACTED]')
    }
    return headers
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    requestBody: string,
    status: number,
    json: unknown,
    headers: Record<string, string>
  ) {
    const text = JSON.stringify(json)
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'x-github-media-type': 'github.v3; format=json',
      'x-github-request-id': `SANDBOX:${requests.length + 1}`,
      'x-github-api-version-selected': '2022-11-28',
      ...headers
    })
    res.end(text)
    requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      status,
      at: Date.now(),
      ...(requestBody === '' ? {} : { body: requestBody }),
      headers: redactedHeaders(req)
    })
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const requestBody = await readBody(req)
    const method = req.method ?? 'GET'
    const url = new URL(req.url ?? '/', base)
    try {
      const presented = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
      const canRead =
        presented !== undefined && (writeTokens.has(presented) || readOnlyTokens.has(presented))
      if (!canRead) throw new HttpFailure(401, 'Bad credentials', DOCS.rest)
      apiCalls += 1
      for (const listener of requestListeners) listener(method, url.pathname + url.search)
      if (requestsToHang > 0) {
        requestsToHang -= 1
        requests.push({
          method,
          path: req.url ?? '',
          status: 0,
          at: Date.now(),
          ...(requestBody === '' ? {} : { body: requestBody }),
          headers: redactedHeaders(req)
        })
        return
      }
      const rateFault = rateLimitFaults.shift()
      if (rateFault) throw rateLimitFailure(rateFault)
      const serverError = serverErrorFaults.shift()
      if (serverError !== undefined) {
        // guess: GitHub's 5xx bodies vary (HTML from the edge, JSON from the API); JSON here.
        throw new HttpFailure(serverError, 'Server Error', DOCS.rest)
      }
      let body: unknown = undefined
      if (requestBody !== '') {
        try {
          body = JSON.parse(requestBody)
        } catch {
          throw new HttpFailure(400, 'Problems parsing JSON', DOCS.rest)
        }
      }
      const answer = route(method, url, body, writeTokens.has(presented))
      send(req, res, requestBody, answer.status, answer.json, rateHeaders())
    } catch (error) {
      if (!(error instanceof HttpFailure)) {
        send(req, res, requestBody, 500, { message: String(error) }, {})
        return
      }
      const headers = { ...rateHeaders(), ...error.headers }
      send(
        req,
        res,
        requestBody,
        error.status,
        // GitHub sends `status` as a string (measured, pome-sh/digital-twins#400).
        {
          message: error.message,
          documentation_url: error.documentationUrl,
          status: String(error.status)
        },
        headers
      )
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`

  return {
    url: base,
    serverUrl: base,
    token,
    requests,
    addReadOnlyToken(value) {
      readOnlyTokens.add(value)
    },
    createRepo(owner, name, opts = {}) {
      const key = repoKey(owner, name)
      if (repos.has(key)) throw new Error(`sandbox: repository ${owner}/${name} exists`)
      const repo: StoredRepo = {
        id: nextRepoId++,
        owner,
        name,
        defaultBranch: opts.defaultBranch ?? 'main',
        branches: new Map(),
        commits: new Map()
      }
      repos.set(key, repo)
      const files = opts.files ?? { 'README.md': `# ${name}\n` }
      makeCommit(
        repo,
        repo.defaultBranch,
        new Map(Object.entries(files)),
        'Initial commit',
        OTHER_WRITER
      )
    },
    createBranch(owner, name, branch, from) {
      const repo = mustRepo(owner, name)
      const head = repo.branches.get(from ?? repo.defaultBranch)
      if (head === undefined) throw new Error(`sandbox: no branch ${from ?? repo.defaultBranch}`)
      repo.branches.set(branch, head)
    },
    deleteBranch(owner, name, branch) {
      const repo = mustRepo(owner, name)
      if (branch === repo.defaultBranch)
        throw new Error('sandbox: cannot delete the default branch')
      repo.branches.delete(branch)
    },
    readFile(owner, name, branch, path) {
      const commit = headCommit(mustRepo(owner, name), branch)
      return commit?.files.get(path) ?? null
    },
    writeFile(owner, name, branch, path, content, message) {
      const repo = mustRepo(owner, name)
      if (!repo.branches.has(branch)) throw new Error(`sandbox: no branch ${branch}`)
      const commit = makeCommit(
        repo,
        branch,
        new Map([[path, content]]),
        message ?? `${content === null ? 'Delete' : 'Update'} ${path}`,
        OTHER_WRITER
      )
      return commit.sha
    },
    commits(owner, name, branch) {
      const repo = mustRepo(owner, name)
      const chain: SandboxCommit[] = []
      let commit = headCommit(repo, branch)
      while (commit) {
        chain.unshift(publicCommit(repo, commit))
        commit = commit.parent === null ? undefined : repo.commits.get(commit.parent)
      }
      return chain
    },
    onCommit(listener) {
      commitListeners.add(listener)
      return () => commitListeners.delete(listener)
    },
    beforeRequest(listener) {
      requestListeners.add(listener)
      return () => requestListeners.delete(listener)
    },
    injectConflicts(count, kind) {
      for (let i = 0; i < count; i++) conflictFaults.push(kind)
    },
    injectServerErrors(count, status = 502) {
      for (let i = 0; i < count; i++) serverErrorFaults.push(status)
    },
    injectRateLimit(count, fault = {}) {
      for (let i = 0; i < count; i++) rateLimitFaults.push(fault)
    },
    hangNextRequests(count) {
      requestsToHang += count
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      })
    }
  }
}
