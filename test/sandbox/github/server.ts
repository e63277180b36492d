// A local GitHub API on 127.0.0.1: REST (also under the GHES prefix /api/v3) and GraphQL (/graphql,
// and /api/graphql where @octokit/graphql sends it for a /api/v3 base URL). This module does the
// HTTP side: authentication, fault injection, request records and counters, conditional requests
// (ETag / 304), and the GitHubSandbox handle tests script the world through. The endpoints live in
// repos.ts, git-data.ts, rules.ts, pulls.ts, issues.ts and graphql.ts. Answers follow
// api.github.com; texts measured on github.com by others are cited, the rest is marked `guess`.
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { GitCommit, RecordedRequest } from '../contracts.js'
import { DOCS, HttpFailure } from './errors.js'
import { type CommitObject, gitDate, type Person } from './git-objects.js'
import { gitDataRoutes } from './git-data.js'
import { graphqlRoute } from './graphql.js'
import { addComment, issueRoutes } from './issues.js'
import { repoRoutes } from './repos.js'
import { userRoutes } from './users.js'
import { RouteContext, Router } from './router.js'
import {
  autoMergeTick,
  closePull,
  headSha,
  mergeability,
  type MergeableState,
  openPull,
  performMerge,
  pullRoutes
} from './pulls.js'
import {
  makeProtection,
  makeRuleset,
  type ProtectionOptions,
  ruleRoutes,
  type RulesetOptions
} from './rules.js'
import {
  type MergeMethod,
  OTHER_WRITER,
  type RepoSettings,
  SandboxState,
  type SandboxTokenOptions,
  type StoredPull,
  type StoredRepo,
  tokenGrant
} from './state.js'
import {
  SecondaryLimiter,
  type SecondaryLimits,
  type SecondaryLimitStats
} from './secondary-limits.js'

export interface GitHubSandboxOptions {
  /** The default token; a random ghs_ token when absent. */
  token?: string
  /** What the default token may do. Default: a GITHUB_TOKEN with write access (github-actions[bot]). */
  tokenOptions?: SandboxTokenOptions
  /**
   * Enforce GitHub's secondary rate limits (secondary-limits.ts): `{}` for the documented numbers,
   * or scaled ones. Unset: not enforced (tests that make many writes quickly stay unaffected).
   */
  secondaryLimits?: Partial<SecondaryLimits>
}

export interface SandboxCommit extends GitCommit {
  message: string
  /** First parent (null for a root commit). */
  parent: string | null
  parents: string[]
  tree: string
  author: Person
  committer: Person
}

export type RateLimitKind = 'primary' | 'secondary'

export interface RateLimitFault {
  kind?: RateLimitKind // default 'primary'
  status?: 403 | 429 // default 403
  /** primary: seconds until `x-ratelimit-reset`; secondary: the `retry-after` header. Default 1. */
  seconds?: number
}

export interface CreateRepoOptions {
  defaultBranch?: string
  files?: Record<string, string>
  settings?: Partial<RepoSettings>
}

export interface SandboxPullRequest {
  number: number
  nodeId: string
  title: string
  body: string | null
  user: string
  head: string
  base: string
  headSha: string
  state: 'open' | 'closed'
  merged: boolean
  mergedBy: string | null
  mergeCommitSha: string | null
  closedBy: string | null
  labels: string[]
  autoMerge: { enabledBy: string; mergeMethod: MergeMethod } | null
  approvals: string[]
  mergeable: boolean | null
  mergeableState: MergeableState
}

export interface SandboxComment {
  id: number
  body: string
  user: string
  createdAt: string
  updatedAt: string
}

export interface GitHubSandbox {
  /** API base URL, what GITHUB_API_URL holds. `${url}/api/v3` serves the same API as GHES. */
  url: string
  /** Web base URL, what GITHUB_SERVER_URL holds (html_url values start with it). */
  serverUrl: string
  /** The default token (write access to every repository unless tokenOptions say otherwise). */
  token: string
  /** Every answered request (304s and errors included), oldest first. */
  requests: RecordedRequest[]
  /** Counters of the secondary limits (null when not enforced). */
  secondaryLimitStats(): SecondaryLimitStats | null
  /** Adds a token; by default like a GITHUB_TOKEN with write access. */
  addToken(token: string, options?: SandboxTokenOptions): void
  /** A token that can read but not write (writes answer 403 like a read-only GITHUB_TOKEN). */
  addReadOnlyToken(token: string): void
  createRepo(owner: string, repo: string, options?: CreateRepoOptions): void
  setRepoSettings(owner: string, repo: string, settings: Partial<RepoSettings>): void
  repoSettings(owner: string, repo: string): RepoSettings
  /** A repository ruleset (e.g. {requirePullRequest: true} on the default branch); returns its id. */
  addRuleset(owner: string, repo: string, options: RulesetOptions): number
  removeRuleset(owner: string, repo: string, id: number): void
  /** Classic branch protection (default: a pull request with 1 approving review is required). */
  protectBranch(owner: string, repo: string, branch: string, options?: ProtectionOptions): void
  unprotectBranch(owner: string, repo: string, branch: string): void
  /** Points a new branch at another's head (default: the default branch). Fires onCommit. */
  createBranch(owner: string, repo: string, branch: string, from?: string): void
  deleteBranch(owner: string, repo: string, branch: string): void
  branchHead(owner: string, repo: string, branch: string): string | null
  readFile(owner: string, repo: string, branch: string, path: string): string | null
  /** Commits as another writer (ignores rules and protection); content null deletes. Returns the SHA. */
  writeFile(
    owner: string,
    repo: string,
    branch: string,
    path: string,
    content: string | null,
    message?: string
  ): string
  /** The first-parent history of a branch, oldest first. */
  commits(owner: string, repo: string, branch: string): SandboxCommit[]
  /** Fires for every branch move (API writes, merges, scripted writes) with the changed paths. */
  onCommit(listener: (commit: GitCommit) => void): () => void
  /** Called before each authenticated API request is handled (e.g. to race a PUT). */
  beforeRequest(listener: (method: string, path: string) => void): () => void
  /**
   * The next `count` branch writes meet another writer who moves the branch first: a contents
   * PUT/DELETE answers `kind` ("is at X but expected Y"); a non-forced ref PATCH is no longer a fast
   * forward (422 "Update is not a fast forward").
   */
  injectConflicts(count: number, kind: 409 | 422): void
  injectServerErrors(count: number, status?: number): void
  /**
   * The next `count` requests that `matches` are handled and stored, then answered `status`
   * (default 502) as if the answer was lost on the way back: what a blind re-send duplicates.
   */
  failAfterStoring(
    count: number,
    matches: (method: string, path: string) => boolean,
    status?: number
  ): void
  /** Trees with more entries than this are cut and flagged `truncated` (GitHub's limit); null: never. */
  truncateTrees(maxEntries: number | null): void
  injectRateLimit(count: number, fault?: RateLimitFault): void
  /**
   * The next `count` authenticated requests get no answer: the connection stays open until the
   * client gives up or the sandbox closes. Recorded with status 0.
   */
  hangNextRequests(count: number): void
  /** A person opens a pull request (default base: the default branch); returns its number. */
  openPullRequest(
    owner: string,
    repo: string,
    options: { head: string; base?: string; title?: string; body?: string; login?: string }
  ): number
  /** A reviewer approves: the "required review" that unblocks a merge or an auto-merge. */
  approvePullRequest(owner: string, repo: string, number: number, login?: string): void
  /** A person merges (as an admin would: requirements are not checked). Returns the merge SHA. */
  mergePullRequest(
    owner: string,
    repo: string,
    number: number,
    options?: { login?: string; method?: MergeMethod }
  ): string
  /** A person closes the pull request without merging (`closed_by` is this login). */
  closePullRequest(owner: string, repo: string, number: number, login?: string): void
  /** A person comments on a pull request. */
  commentOnPullRequest(
    owner: string,
    repo: string,
    number: number,
    body: string,
    login?: string
  ): number
  pullRequest(owner: string, repo: string, number: number): SandboxPullRequest | null
  pullRequests(owner: string, repo: string): SandboxPullRequest[]
  comments(owner: string, repo: string, number: number): SandboxComment[]
  /** Requests per route, keyed `METHOD /template` (e.g. 'GET /repos/{owner}/{repo}/pulls/{pull_number}'). */
  routeCounts(): Record<string, number>
  close(): Promise<void>
}

const HUMAN = 'octocat'

export async function startGitHubSandbox(
  options: GitHubSandboxOptions = {}
): Promise<GitHubSandbox> {
  const state = new SandboxState()
  const token = options.token ?? `ghs_${Math.random().toString(36).slice(2)}sandbox`
  state.tokens.set(token, tokenGrant(options.tokenOptions))
  const router = new Router()
  // First match wins: /branches/{branch}/protection before /branches/{branch+}.
  router.add([...ruleRoutes, ...repoRoutes, ...gitDataRoutes, ...pullRoutes, ...issueRoutes])
  router.add(userRoutes)
  router.add([graphqlRoute])
  const requests: RecordedRequest[] = []
  const counts = new Map<string, number>()
  const requestListeners = new Set<(method: string, path: string) => void>()
  const serverErrorFaults: number[] = []
  const afterStoreFaults: { matches: (method: string, path: string) => boolean; status: number }[] =
    []
  const rateLimitFaults: RateLimitFault[] = []
  let requestsToHang = 0
  let apiCalls = 0
  const limiter = options.secondaryLimits && new SecondaryLimiter(options.secondaryLimits)
  let base = ''

  // ---- rate limits ----

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

  // ---- HTTP ----

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

  function record(
    req: IncomingMessage,
    requestBody: string,
    status: number,
    answer?: string
  ): void {
    requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      status,
      at: Date.now(),
      ...(requestBody === '' ? {} : { body: requestBody }),
      headers: redactedHeaders(req),
      ...(answer === undefined ? {} : { answer })
    })
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    requestBody: string,
    status: number,
    json: unknown,
    headers: Record<string, string>
  ) {
    const withBody = status !== 204 && status !== 304 && json !== undefined
    res.writeHead(status, {
      ...(withBody ? { 'content-type': 'application/json; charset=utf-8' } : {}),
      'x-github-media-type': 'github.v3; format=json',
      'x-github-request-id': `SANDBOX:${requests.length + 1}`,
      'x-github-api-version-selected': '2022-11-28',
      ...headers
    })
    const answer = withBody ? JSON.stringify(json) : undefined
    res.end(answer)
    record(req, requestBody, status, answer)
  }

  /**
   * A strong validator of the JSON answer (GitHub often sends the weak form W/"…" for compressed
   * answers); If-None-Match matches either form, as GitHub's does.
   */
  const etagOf = (json: unknown) =>
    `"${createHash('sha1').update(JSON.stringify(json)).digest('hex')}"`

  function notModified(req: IncomingMessage, etag: string): boolean {
    const header = req.headers['if-none-match']
    if (typeof header !== 'string') return false
    return header
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .some((tag) => tag === etag || tag === '*')
  }

  /** REST path without the GHES prefix, and the API base of this request. */
  function locate(pathname: string): { path: string; apiBase: string } {
    if (pathname === '/graphql' || pathname === '/api/graphql') {
      return { path: '/graphql', apiBase: base }
    }
    if (pathname === '/api/v3' || pathname.startsWith('/api/v3/')) {
      return { path: pathname.slice('/api/v3'.length) || '/', apiBase: `${base}/api/v3` }
    }
    return { path: pathname, apiBase: base }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const requestBody = await readBody(req)
    const method = req.method ?? 'GET'
    const url = new URL(req.url ?? '/', base)
    const { path, apiBase } = locate(url.pathname)
    const matched = router.match(method, path)
    const countKey = matched ? `${method} ${matched.route.template}` : `${method} (no route)`
    counts.set(countKey, (counts.get(countKey) ?? 0) + 1)
    try {
      const presented = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
      const grant = presented === undefined ? undefined : state.tokens.get(presented)
      if (!grant) {
        const docs = matched?.route === graphqlRoute ? DOCS.graphql : DOCS.rest
        throw new HttpFailure(401, 'Bad credentials', docs)
      }
      apiCalls += 1
      for (const listener of requestListeners) listener(method, url.pathname + url.search)
      const refused = limiter?.enter(method, path, requestBody)
      if (refused)
        throw new HttpFailure(refused.status, refused.message, DOCS.secondary, refused.headers)
      if (limiter) res.once('close', () => limiter.leave())
      if (requestsToHang > 0) {
        requestsToHang -= 1
        record(req, requestBody, 0)
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
      if (!matched) throw new HttpFailure(404, 'Not Found', DOCS.rest)
      const ctx = new RouteContext(
        state,
        matched.route,
        matched.params,
        url.searchParams,
        body,
        grant,
        apiBase,
        base,
        req.headers
      )
      const answer = matched.route.handle(ctx)
      const lost = afterStoreFaults.findIndex((f) => f.matches(method, url.pathname))
      if (lost >= 0) {
        const [fault] = afterStoreFaults.splice(lost, 1)
        // guess: like injectServerErrors, a JSON 5xx body.
        throw new HttpFailure(fault.status, 'Server Error', DOCS.rest)
      }
      const headers = { ...rateHeaders(), ...answer.headers }
      if (method === 'GET' && answer.status === 200) {
        const etag = etagOf(answer.json)
        Object.assign(headers, {
          etag,
          // Headers of GitHub's authenticated GETs (as in Mergifyio/git-pull-request#97's log).
          'cache-control': 'private, max-age=60, s-maxage=60',
          vary: 'Accept, Authorization, Cookie, X-GitHub-OTP'
        })
        if (notModified(req, etag)) {
          // A 304 does not count against the rate limit (GitHub's conditional-request docs).
          apiCalls -= 1
          send(req, res, requestBody, 304, undefined, { ...headers, ...rateHeaders() })
          return
        }
      }
      send(req, res, requestBody, answer.status, answer.json, headers)
    } catch (error) {
      if (!(error instanceof HttpFailure)) {
        console.error('github sandbox: handler failed', error)
        send(req, res, requestBody, 500, { message: String(error) }, {})
        return
      }
      send(req, res, requestBody, error.status, error.body(), {
        ...rateHeaders(),
        ...error.headers
      })
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

  // Auto-merge works in the background, like GitHub's.
  const ticker = setInterval(() => autoMergeTick(state), 10)
  ticker.unref()

  // ---- the scripting handle ----

  const repoOf = (owner: string, name: string) => state.mustRepo(owner, name)

  function publicCommit(repo: StoredRepo, commit: CommitObject, branch: string): SandboxCommit {
    return {
      owner: repo.owner,
      repo: repo.name,
      branch: repo.commitBranch.get(commit.sha) ?? branch,
      sha: commit.sha,
      changes: state.diff(repo, commit.parents[0] ?? null, commit.sha),
      message: commit.message,
      parent: commit.parents[0] ?? null,
      parents: [...commit.parents],
      tree: commit.tree,
      author: { ...commit.author },
      committer: { ...commit.committer }
    }
  }

  function publicPull(repo: StoredRepo, pull: StoredPull): SandboxPullRequest {
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

  const sandbox: GitHubSandbox = {
    url: base,
    serverUrl: base,
    token,
    requests,
    secondaryLimitStats: () => (limiter ? { ...limiter.stats } : null),
    addToken(value, tokenOptions) {
      state.tokens.set(value, tokenGrant(tokenOptions))
    },
    addReadOnlyToken(value) {
      state.tokens.set(value, tokenGrant({ role: 'read' }))
    },
    createRepo(owner, name, opts = {}) {
      state.createRepo(
        owner,
        name,
        opts.defaultBranch ?? 'main',
        opts.files ?? { 'README.md': `# ${name}\n` },
        opts.settings ?? {}
      )
    },
    setRepoSettings(owner, name, settings) {
      Object.assign(repoOf(owner, name).settings, settings)
    },
    repoSettings: (owner, name) => ({ ...repoOf(owner, name).settings }),
    addRuleset(owner, name, rulesetOptions) {
      const ruleset = makeRuleset(state.nextId('ruleset'), rulesetOptions)
      repoOf(owner, name).rulesets.push(ruleset)
      return ruleset.id
    },
    removeRuleset(owner, name, id) {
      const repo = repoOf(owner, name)
      repo.rulesets = repo.rulesets.filter((ruleset) => ruleset.id !== id)
    },
    protectBranch(owner, name, branch, protection = {}) {
      repoOf(owner, name).protections.set(branch, makeProtection(protection))
    },
    unprotectBranch(owner, name, branch) {
      repoOf(owner, name).protections.delete(branch)
    },
    createBranch(owner, name, branch, from) {
      const repo = repoOf(owner, name)
      const head = repo.branches.get(from ?? repo.defaultBranch)
      if (head === undefined) throw new Error(`sandbox: no branch ${from ?? repo.defaultBranch}`)
      state.moveRef(repo, branch, head)
    },
    deleteBranch(owner, name, branch) {
      const repo = repoOf(owner, name)
      if (branch === repo.defaultBranch) {
        throw new Error('sandbox: cannot delete the default branch')
      }
      state.deleteBranch(repo, branch)
    },
    branchHead: (owner, name, branch) => repoOf(owner, name).branches.get(branch) ?? null,
    readFile: (owner, name, branch, path) => state.readText(repoOf(owner, name), branch, path),
    writeFile(owner, name, branch, path, content, message) {
      const repo = repoOf(owner, name)
      if (!repo.branches.has(branch)) throw new Error(`sandbox: no branch ${branch}`)
      return state.commitChanges(
        repo,
        branch,
        new Map([[path, content]]),
        message ?? `${content === null ? 'Delete' : 'Update'} ${path}`,
        { ...OTHER_WRITER, date: gitDate() }
      ).sha
    },
    commits(owner, name, branch) {
      const repo = repoOf(owner, name)
      const chain: SandboxCommit[] = []
      let commit = state.head(repo, branch)
      while (commit) {
        chain.unshift(publicCommit(repo, commit, branch))
        commit = commit.parents.length === 0 ? undefined : repo.git.commits.get(commit.parents[0])
      }
      return chain
    },
    onCommit(listener) {
      state.commitListeners.add(listener)
      return () => state.commitListeners.delete(listener)
    },
    beforeRequest(listener) {
      requestListeners.add(listener)
      return () => requestListeners.delete(listener)
    },
    injectConflicts(count, kind) {
      for (let i = 0; i < count; i++) state.conflictFaults.push(kind)
    },
    injectServerErrors(count, status = 502) {
      for (let i = 0; i < count; i++) serverErrorFaults.push(status)
    },
    failAfterStoring(count, matches, status = 502) {
      for (let i = 0; i < count; i++) afterStoreFaults.push({ matches, status })
    },
    truncateTrees(maxEntries) {
      state.treeEntryLimit = maxEntries
    },
    injectRateLimit(count, fault = {}) {
      for (let i = 0; i < count; i++) rateLimitFaults.push(fault)
    },
    hangNextRequests(count) {
      requestsToHang += count
    },
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
    closePullRequest(owner, name, number, login = HUMAN) {
      const pull = state.mustPull(repoOf(owner, name), number)
      if (pull.state !== 'open') throw new Error(`sandbox: pull request #${number} is not open`)
      state.user(login)
      closePull(pull, login)
    },
    commentOnPullRequest(owner, name, number, body, login = HUMAN) {
      const repo = repoOf(owner, name)
      return addComment({ state }, repo, state.mustPull(repo, number), body, login).id
    },
    pullRequest(owner, name, number) {
      const repo = repoOf(owner, name)
      const pull = repo.pulls.get(number)
      return pull ? publicPull(repo, pull) : null
    },
    pullRequests(owner, name) {
      const repo = repoOf(owner, name)
      return [...repo.pulls.values()].map((pull) => publicPull(repo, pull))
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
    },
    routeCounts: () => Object.fromEntries(counts),
    close() {
      clearInterval(ticker)
      return new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      })
    }
  }
  return sandbox
}
