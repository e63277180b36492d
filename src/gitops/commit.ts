// The commit step: write the CoderTemplateTest manifest to the GitOps repository through the
// contents API. Create only: the test spec is immutable, so an existing file is either ours
// (identical, no commit) or a conflict. 5xx and rate limits are retried by the Octokit plugins;
// only a concurrent writer (409, or 422 about the sha/ref) is re-read and retried here.
import type { GitOpsOctokit } from './octokit.js'

export interface CommitManifestInput {
  octokit: GitOpsOctokit
  owner: string
  repo: string
  /** '' = the repository's default branch. */
  branch: string
  path: string
  content: string
  message: string
  /** Whether the file already in Git is this manifest. Default: byte equality. */
  isSame?: (existing: string) => boolean
  /** Read-and-write attempts against concurrent writers. Default 5. */
  maxAttempts?: number
  signal?: AbortSignal
  /**
   * Time limit of each GitHub call (the retry plugin's attempts included). Default 30000. Without it
   * only undici's 300 s header/body timeouts apply, once per retry.
   */
  requestTimeoutMs?: number
}

export const DEFAULT_GITHUB_REQUEST_TIMEOUT_MS = 30000

export interface CommitOutcome {
  status: 'created' | 'unchanged'
  /** '' when unchanged. */
  commitSha: string
  /** '' when unchanged. */
  commitUrl: string
  fileUrl: string
  /** The branch written to (the default branch resolved when the input was ''). */
  branch: string
}

/** The file exists with other content: the spec is immutable, a new version needs a new name. */
export class ManifestConflictError extends Error {
  constructor(
    readonly repository: string,
    readonly branch: string,
    readonly path: string
  ) {
    // The API server refuses spec changes: "spec is immutable, create a new CoderTemplateTest"
    // (coder-k8s-api.md, CEL rules of the spec).
    super(
      `${path} already exists on branch ${branch} of ${repository} with a different spec. ` +
        'The CoderTemplateTest spec is immutable, so the file was left unchanged. A new template ' +
        'version needs a new test name: push it under a new version name, or set test-name.'
    )
    this.name = 'ManifestConflictError'
  }
}

interface GitHubErrorLike {
  status: number
  message: string
  /** false when no HTTP answer came (network failure); Octokit then reports status 500. */
  answered: boolean
}

// Octokit's RequestError, read by shape: @octokit/request-error is not our direct dependency.
function asGitHubError(error: unknown): GitHubErrorLike | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  if ((error as { name?: unknown }).name === 'AbortError') return undefined
  const status = (error as { status?: unknown }).status
  const message = (error as { message?: unknown }).message
  if (typeof status !== 'number' || typeof message !== 'string') return undefined
  return { status, message, answered: (error as { response?: unknown }).response !== undefined }
}

/** GitHub's own message without the " - <documentation_url>" suffix Octokit appends. */
function githubMessage(error: GitHubErrorLike): string {
  return error.message.replace(/ - https:\/\/docs\.github\.com\S*$/, '').trim()
}

function isConcurrentWrite(error: GitHubErrorLike): boolean {
  if (error.status === 409) return true
  // 422 from a race: the file appeared ("sha" wasn't supplied) or the ref moved ("is at X but
  // expected Y"). Any other 422 is a real validation failure.
  return error.status === 422 && /\bsha\b|\bexpected\b/i.test(error.message)
}

const TOKEN_NEEDS =
  'The token needs `contents: write` on the GitOps repository. The workflow GITHUB_TOKEN reaches ' +
  'only the workflow’s own repository (grant it with `permissions: contents: write`); for another ' +
  'repository pass a fine-grained PAT or a GitHub App installation token as gitops-token.'

/** A user-facing error for 401/403/404 and anything else GitHub refused. */
function accessError(
  error: GitHubErrorLike,
  repository: string,
  doing: string,
  cause: unknown
): Error {
  const said = githubMessage(error)
  let text: string
  if (!error.answered) {
    text = `Could not reach the GitHub API while ${doing} (${said}). Check GITHUB_API_URL and the runner's network.`
  } else if (error.status === 401) {
    text = `GitHub rejected the GitOps token while ${doing} (401 ${said}). Check gitops-token: it is missing, expired or revoked. ${TOKEN_NEEDS}`
  } else if ((error.status === 403 || error.status === 429) && /rate limit/i.test(said)) {
    text = `GitHub rate limit while ${doing} (${error.status} ${said}), still limited after the retries. Try again later or use a token with its own quota.`
  } else if (error.status === 403) {
    text = `GitHub refused ${doing} (403 ${said}). ${TOKEN_NEEDS}`
  } else if (error.status === 404) {
    text = `GitHub answered 404 (${said}) while ${doing}: the repository ${repository} does not exist or the token cannot see it. Check gitops-repository. ${TOKEN_NEEDS}`
  } else {
    text = `GitHub answered ${error.status || 'no response'} (${said}) while ${doing}.`
  }
  return new Error(text, { cause })
}

/** One GitHub call's request options: the caller's signal plus a time limit of its own. */
interface TimedCall {
  request: { signal: AbortSignal }
  timedOut(): boolean
}

// An aborted call is not retried (octokit.ts stopOnAbort), so the limit bounds the call.
function timedCall(signal: AbortSignal | undefined, timeoutMs: number): TimedCall {
  const limit = AbortSignal.timeout(timeoutMs)
  return {
    request: { signal: signal ? AbortSignal.any([signal, limit]) : limit },
    timedOut: () => limit.aborted && !signal?.aborted
  }
}

/** The call's time limit passed: names the repository and what was being done, never the token. */
function timeoutError(doing: string, timeoutMs: number, cause: unknown): Error {
  return new Error(
    `GitHub did not answer within ${timeoutMs} ms while ${doing}. Check GITHUB_API_URL, the ` +
      "runner's network and https://www.githubstatus.com, then try again.",
    { cause }
  )
}

function decodeContent(data: unknown): string | null {
  const file = data as { type?: string; encoding?: string; content?: string }
  if (Array.isArray(data) || file.type !== 'file') return null
  if (file.encoding !== 'base64' || typeof file.content !== 'string') {
    // Files above 1 MB come without content; a manifest is never that large.
    throw new Error(`unexpected contents encoding ${String(file.encoding)}`)
  }
  // The contents API wraps base64 at 60 characters; Buffer ignores the newlines.
  return Buffer.from(file.content, 'base64').toString('utf8')
}

export async function commitManifest(input: CommitManifestInput): Promise<CommitOutcome> {
  const { octokit, owner, repo, path, content, message, signal } = input
  const repository = `${owner}/${repo}`
  const isSame = input.isSame ?? ((existing: string) => existing === content)
  const maxAttempts = Math.max(1, input.maxAttempts ?? 5)
  const timeoutMs = input.requestTimeoutMs ?? DEFAULT_GITHUB_REQUEST_TIMEOUT_MS
  signal?.throwIfAborted()

  let branch = input.branch
  if (branch === '') {
    const call = timedCall(signal, timeoutMs)
    try {
      const { data } = await octokit.rest.repos.get({ owner, repo, request: call.request })
      branch = data.default_branch
    } catch (error) {
      const doing = `reading the default branch of ${repository}`
      if (call.timedOut()) throw timeoutError(doing, timeoutMs, error)
      throw toUserError(error, repository, doing, signal)
    }
  }
  const where = `${path} on branch ${branch} of ${repository}`

  let lastConflict = ''
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    signal?.throwIfAborted()
    const existing = await readFile(input, branch, where, timeoutMs)
    if (existing !== null) {
      if (isSame(existing.content)) {
        return {
          status: 'unchanged',
          commitSha: '',
          commitUrl: '',
          fileUrl: existing.htmlUrl,
          branch
        }
      }
      throw new ManifestConflictError(repository, branch, path)
    }
    const call = timedCall(signal, timeoutMs)
    try {
      const { data } = await octokit.rest.repos.createOrUpdateFileContents({
        owner,
        repo,
        path,
        branch,
        message,
        content: Buffer.from(content, 'utf8').toString('base64'),
        request: call.request
      })
      return {
        status: 'created',
        commitSha: data.commit.sha ?? '',
        commitUrl: data.commit.html_url ?? '',
        fileUrl: data.content?.html_url ?? '',
        branch
      }
    } catch (error) {
      // guess: a write whose answer never came may still have landed; the caller's re-run then finds
      // the file identical (unchanged), so no retry here.
      if (call.timedOut()) throw timeoutError(`writing ${where}`, timeoutMs, error)
      const github = asGitHubError(error)
      if (github && isConcurrentWrite(github)) {
        // Another writer changed the branch between our read and our write: read again.
        lastConflict = `${github.status} ${githubMessage(github)}`
        continue
      }
      if (github?.status === 404 && /^Branch .* not found/.test(githubMessage(github))) {
        throw missingBranch(repository, branch, error)
      }
      throw toUserError(error, repository, `writing ${where}`, signal)
    }
  }
  throw new Error(
    `Could not commit ${where}: another writer changed the branch during each of ` +
      `${maxAttempts} attempts (last answer: ${lastConflict}). Try again; if it persists, look ` +
      'for a process that pushes to this branch continuously.'
  )
}

async function readFile(
  input: CommitManifestInput,
  branch: string,
  where: string,
  timeoutMs: number
): Promise<{ content: string; htmlUrl: string } | null> {
  const { octokit, owner, repo, path, signal } = input
  const repository = `${owner}/${repo}`
  const call = timedCall(signal, timeoutMs)
  try {
    const { data } = await octokit.rest.repos.getContent({
      owner,
      repo,
      path,
      ref: branch,
      request: call.request
    })
    const content = decodeContent(data)
    if (content === null) {
      throw new Error(`${where} is not a file (a directory or another object is at that path).`)
    }
    return { content, htmlUrl: (data as { html_url?: string }).html_url ?? '' }
  } catch (error) {
    if (call.timedOut()) throw timeoutError(`reading ${where}`, timeoutMs, error)
    const github = asGitHubError(error)
    if (github?.status === 404) {
      if (/No commit found for the ref/i.test(github.message)) {
        throw missingBranch(repository, branch, error)
      }
      // Not Found: the file is absent, or the repository is invisible. The repository case shows
      // when the write answers 404 as well, with the access advice.
      return null
    }
    throw toUserError(error, repository, `reading ${where}`, signal)
  }
}

function missingBranch(repository: string, branch: string, cause: unknown): Error {
  return new Error(
    `Branch ${branch} does not exist in ${repository}. Create it, or set gitops-branch to an ` +
      'existing branch (empty means the default branch).',
    { cause }
  )
}

function toUserError(
  error: unknown,
  repository: string,
  doing: string,
  signal: AbortSignal | undefined
): Error {
  // A cancel is reported as the cancel, not as a GitHub failure.
  if (signal?.aborted) return abortReason(signal)
  const github = asGitHubError(error)
  if (!github) return error instanceof Error ? error : new Error(String(error))
  return accessError(github, repository, doing, error)
}

// Duck-typed: the reason (a DOMException) may come from another realm, where `instanceof Error` fails.
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  if (typeof reason === 'object' && reason !== null && 'message' in reason && 'name' in reason) {
    return reason as Error
  }
  const error = new Error('the operation was aborted')
  error.name = 'AbortError'
  return error
}
