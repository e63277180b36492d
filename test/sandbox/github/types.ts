// The GitHub sandbox's public shapes: its options, what tests see of commits, pull requests and
// comments, the faults they inject, and the handle they script the world through.
import type { StoredDeployment } from './deployments.js'
import type { GitCommit, RecordedRequest } from '../contracts.js'
import type { Person } from './git-objects.js'
import type { MergeableState } from './pull-state.js'
import type { ProtectionOptions, RulesetOptions } from './rules.js'
import type { SecondaryLimits, SecondaryLimitStats } from './secondary-limits.js'
import type { MergeMethod, RepoSettings, SandboxTokenOptions } from './state.js'

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
  /** The deployments of a repository, oldest first, each with its statuses (oldest first). */
  deployments(owner: string, repo: string): StoredDeployment[]
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
    message?: string,
    /** Authored with this account's name and noreply e-mail, as anyone may set them. */
    author?: string
  ): string
  /** The first-parent history of a branch, oldest first. */
  commits(owner: string, repo: string, branch: string): SandboxCommit[]
  /** Fires for every branch move (API writes, merges, scripted writes) with the changed paths. */
  onCommit(listener: (commit: GitCommit) => void): () => void
  /** Called before each authenticated API request is handled (e.g. to race a PUT). */
  beforeRequest(listener: (method: string, path: string, body: string) => void): () => void
  /**
   * The next `count` branch writes meet another writer who moves the branch first: a contents
   * PUT/DELETE answers `kind` ("is at X but expected Y"); a non-forced ref PATCH is no longer a fast
   * forward (422 "Update is not a fast forward"); a createCommitOnBranch answers STALE_DATA.
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
  /**
   * The next `count` GraphQL requests whose query holds `query` (e.g. 'createCommitOnBranch') are
   * handled and stored, then answered as GitHub's GraphQL timeout: HTTP 200, `data: null`, one
   * error without `type` (default text: GitHub's).
   */
  timeOutAfterStoring(count: number, query: string, message?: string): void
  /** The next `count` GraphQL requests whose query holds `query` answer `status` and store nothing. */
  failGraphqlUnstored(count: number, query: string, status?: number): void
  /** Trees with more entries than this are cut and flagged `truncated` (GitHub's limit); null: never. */
  truncateTrees(maxEntries: number | null): void
  injectRateLimit(count: number, fault?: RateLimitFault): void
  /** The next `count` GraphQL requests meet the primary limit (a 200 with RATE_LIMITED). */
  injectGraphqlRateLimit(count: number, secondsToReset?: number): void
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
  /**
   * A writer changes the pull request's base branch (PATCH /pulls/{n} `base`). Auto-merge stays on,
   * as GitHub keeps it for a base change by someone with write access (guess, reported in the
   * gate's review: GitHub disables auto-merge only on a push by someone without write access).
   */
  changePullRequestBase(
    owner: string,
    repo: string,
    number: number,
    base: string,
    login?: string
  ): void
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
