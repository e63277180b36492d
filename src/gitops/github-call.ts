// One GitHub call as the pull-request and comment adapters make it: the caller's signal plus a time
// limit of its own, and a user-facing error that names the token input and never its value.
import { setTimeout as sleep } from 'node:timers/promises'
import type { GitOpsOctokit } from './octokit.js'

export const DEFAULT_GITHUB_REQUEST_TIMEOUT_MS = 30000

export interface GitHubCall {
  octokit: GitOpsOctokit
  owner: string
  repo: string
  signal?: AbortSignal
  /** Time limit of each GitHub call. Default 30000. */
  requestTimeoutMs?: number
}

export interface TokenAdvice {
  /** The input that holds the token, e.g. 'gitops-token'. */
  input: string
  /** What it needs, e.g. '`pull-requests: write`'. */
  needs: string
}

export function repoOf(input: GitHubCall): { owner: string; repo: string } {
  return { owner: input.owner, repo: input.repo }
}

// An aborted call is not retried (octokit.ts stopOnAbort), so the limit bounds each call.
export function requestOptions(input: GitHubCall): { signal: AbortSignal } {
  const limit = AbortSignal.timeout(input.requestTimeoutMs ?? DEFAULT_GITHUB_REQUEST_TIMEOUT_MS)
  return { signal: input.signal ? AbortSignal.any([input.signal, limit]) : limit }
}

/** Sends one request; any failure becomes a user-facing error (a cancel stays the cancel). */
export async function githubCall<T>(
  input: GitHubCall,
  token: TokenAdvice,
  doing: string,
  send: (request: { signal: AbortSignal }) => Promise<T>
): Promise<T> {
  try {
    return await send(requestOptions(input))
  } catch (error) {
    throw userError(error, input, token, doing)
  }
}

/** An abortable pause whose cancel rejects with the signal's reason. */
export async function pauseFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, { signal })
  } catch (error) {
    throw signal?.aborted ? signal.reason : error
  }
}

export interface GitHubError {
  status: number
  /** GitHub's own message (the answer's `message` field). */
  message: string
  /** false when no HTTP answer came. */
  answered: boolean
}

// Octokit's RequestError, read by shape: @octokit/request-error is not our direct dependency.
export function githubError(error: unknown): GitHubError | undefined {
  const e = error as { status?: unknown; message?: unknown; response?: { data?: unknown } }
  if (typeof e?.status !== 'number' || typeof e.message !== 'string') return undefined
  const data = e.response?.data as { message?: unknown } | undefined
  const message = typeof data?.message === 'string' ? data.message : e.message
  return { status: e.status, message, answered: e.response !== undefined }
}

export function userError(
  error: unknown,
  input: GitHubCall,
  token: TokenAdvice,
  doing: string
): unknown {
  if (input.signal?.aborted) return input.signal.reason
  const where = `${input.owner}/${input.repo}`
  if ((error as { name?: unknown })?.name === 'TimeoutError') {
    return new Error(
      `GitHub did not answer in time while ${doing} in ${where}. Check GITHUB_API_URL, the ` +
        "runner's network and https://www.githubstatus.com, then try again.",
      { cause: error }
    )
  }
  const github = githubError(error)
  if (!github) return error
  const said = `${github.status} ${github.message.replace(/\s+/g, ' ').trim()}`
  let text: string
  if (!github.answered)
    text = `Could not reach the GitHub API while ${doing} in ${where} (${said}).`
  else if (github.status === 401) {
    text = `GitHub rejected ${token.input} while ${doing} in ${where} (${said}): it is missing, expired or revoked.`
  } else if (github.status === 403 || github.status === 404) {
    text = `GitHub refused ${doing} in ${where} (${said}). ${token.input} needs ${token.needs} there.`
  } else text = `GitHub answered ${said} while ${doing} in ${where}.`
  return new Error(text, { cause: error })
}
