// One GitHub call: the caller's signal plus a time limit of its own, and a user-facing error that
// names the token input and never its value. How a call retries: the header of octokit.ts.
import { type Clock, systemClock } from '../../../timing/clock.js'
import type { GitOpsOctokit } from './octokit-type.js'

export const DEFAULT_GITHUB_REQUEST_TIMEOUT_MS = 30000

export interface GitHubCall {
  octokit: GitOpsOctokit
  owner: string
  repo: string
  signal?: AbortSignal
  /** Time limit of each GitHub call, not counting a rate-limit wait GitHub asked for. Default 30000. */
  requestTimeoutMs?: number
  /**
   * Epoch ms: the step's deadline. A rate-limit wait GitHub asks for counts against it, not against
   * requestTimeoutMs; unset, such a wait may last as long as octokit.ts allows (maxRateLimitWaitSeconds).
   */
  deadline?: number
  /** The time and the pauses between reads or attempts; tests inject a fake one. Default systemClock. */
  clock?: Clock
}

export function callClock(input: GitHubCall): Clock {
  return input.clock ?? systemClock
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

/**
 * The request options of one GitHub call (Octokit's `request`): its signal, and its limit, which
 * octokit.ts's rate-limit handler reads from the options the throttling plugin hands it.
 */
export interface CallRequest {
  signal: AbortSignal
  callLimit: CallLimit
}

// An aborted call is not retried (octokit.ts stopOnAbort), so the limit bounds each call. Its timer
// stops while the throttling plugin waits for a rate limit (rateLimitWait) and starts again after.
export function requestOptions(input: GitHubCall): CallRequest {
  const callLimit = new CallLimit(
    input.requestTimeoutMs ?? DEFAULT_GITHUB_REQUEST_TIMEOUT_MS,
    input.deadline,
    callClock(input).now
  )
  const signal = input.signal ? AbortSignal.any([input.signal, callLimit.signal]) : callLimit.signal
  return { signal, callLimit }
}

/**
 * One call's time limit, its step's deadline and its last rate-limit decision. A class, not a plain
 * object: Octokit deep-merges plain objects of the request options into copies, and this one must
 * stay the same object from the handler to the error (userError reads lastDecision).
 */
export class CallLimit {
  /** The last rate-limit decision, so that the call's error says why it gave up (rateLimitText). */
  lastDecision: RateLimitWaitDecision | undefined
  private readonly timeout = new AbortController()
  readonly signal = this.timeout.signal
  private timer: NodeJS.Timeout | undefined

  constructor(
    readonly requestTimeoutMs: number,
    /** Epoch ms: the step's deadline, if the call has one. */
    readonly deadline: number | undefined,
    readonly now: () => number
  ) {
    this.arm(requestTimeoutMs)
  }

  /** After a rate-limit wait of `waitMs`, the call's own time limit starts again. */
  restartAfter(waitMs: number): void {
    this.arm(waitMs + this.requestTimeoutMs)
  }

  private arm(ms: number): void {
    clearTimeout(this.timer)
    const reason = () =>
      new DOMException('The operation was aborted due to timeout', 'TimeoutError')
    this.timer = setTimeout(() => this.timeout.abort(reason()), ms)
    this.timer.unref() // as AbortSignal.timeout: never keeps the process alive
  }
}

/**
 * Without a step deadline the plugin's waits cannot be interrupted, so they keep the old bound: this
 * many retries, each at most maxWaitMs.
 */
export const NO_DEADLINE_MAX_RATE_LIMIT_RETRIES = 2

export type RateLimitWaitDecision = 'wait' | 'past-deadline' | 'too-long' | 'too-many' | 'aborted'

/** Whether a call may wait `waitMs` for a rate limit: pure, table-tested. */
export function decideRateLimitWait(input: {
  waitMs: number
  now: number
  /** The step's deadline (epoch ms), if the call has one. */
  deadline: number | undefined
  /** The call's own time limit, which starts again after the wait: it must end by the deadline too. */
  requestTimeoutMs: number
  /** Without a deadline, the longest wait allowed. */
  maxWaitMs: number
  retryCount: number
  maxRetries: number
  aborted: boolean
}): RateLimitWaitDecision {
  if (input.aborted) return 'aborted'
  const { deadline } = input
  // With a deadline, time bounds the retries, not a count: when many gates share one token,
  // GitHub's sliding minute frees a slot every second or two, and a count of retries runs out long
  // before the step's deadline (bench --matrix 50). Without a deadline the old bound holds.
  if (deadline !== undefined)
    return input.now + input.waitMs + input.requestTimeoutMs <= deadline ? 'wait' : 'past-deadline'
  const maxRetries = Math.min(input.maxRetries, NO_DEADLINE_MAX_RATE_LIMIT_RETRIES)
  if (input.retryCount >= maxRetries) return 'too-many'
  return input.waitMs <= input.maxWaitMs ? 'wait' : 'too-long'
}

/**
 * The throttling plugin's question for one call: may it wait `waitMs`? The call's limit comes with
 * the request options (requestOptions); it keeps the decision, and on 'wait' restarts its timer.
 */
export function rateLimitWait(
  request: { signal?: AbortSignal; callLimit?: CallLimit } | undefined,
  wait: { waitMs: number; maxWaitMs: number; retryCount: number; maxRetries: number }
): RateLimitWaitDecision {
  const limit = request?.callLimit
  const decision = decideRateLimitWait({
    ...wait,
    now: (limit?.now ?? systemClock.now)(),
    deadline: limit?.deadline,
    requestTimeoutMs: limit?.requestTimeoutMs ?? DEFAULT_GITHUB_REQUEST_TIMEOUT_MS,
    aborted: request?.signal?.aborted ?? false
  })
  if (limit) limit.lastDecision = decision
  if (decision === 'wait') limit?.restartAfter(wait.waitMs)
  return decision
}

/**
 * The last rate-limit decision of the request that failed: an Octokit error carries the options it
 * was sent with (RequestError's `request`; octokit.ts keepRequestOptions adds them where missing).
 */
function lastDecisionOf(error: unknown): RateLimitWaitDecision | undefined {
  const sent = error as { request?: { request?: { callLimit?: unknown } } } | null
  const limit = sent?.request?.request?.callLimit
  return limit instanceof CallLimit ? limit.lastDecision : undefined
}

/** Sends one request; any failure becomes a user-facing error (a cancel stays the cancel). */
export async function githubCall<T>(
  input: GitHubCall,
  token: TokenAdvice,
  doing: string,
  send: (request: CallRequest) => Promise<T>
): Promise<T> {
  try {
    return await send(requestOptions(input))
  } catch (error) {
    throw userError(error, input, token, doing)
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
  const limited = rateLimitOf(error, callClock(input).now())
  if (limited) {
    const text = rateLimitText(limited, doing, where, lastDecisionOf(error))
    return new Error(text, { cause: error })
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

export interface RateLimited {
  kind: 'primary' | 'secondary'
  /** Epoch ms when GitHub allows the next request. */
  until: number
}

/**
 * A 403 or 429 that is a rate limit, read as GitHub documents it (rate-limits-for-the-rest-api,
 * "Exceeding the rate limit"): a message naming a secondary rate limit, or `x-ratelimit-remaining: 0`;
 * the end from `retry-after` seconds or `x-ratelimit-reset` epoch seconds, else at least one minute.
 */
export function rateLimitOf(error: unknown, now: number): RateLimited | undefined {
  const graphql = graphqlRateLimitOf(error, now)
  if (graphql) return graphql
  const github = githubError(error)
  if (!github || (github.status !== 403 && github.status !== 429)) return undefined
  const headers = ((error as { response?: { headers?: Record<string, unknown> } }).response
    ?.headers ?? {}) as Record<string, unknown>
  const secondary = /\bsecondary rate limit\b/i.test(github.message)
  if (!secondary && String(headers['x-ratelimit-remaining']) !== '0') return undefined
  const retryAfter = Number(headers['retry-after'])
  const reset = Number(headers['x-ratelimit-reset'])
  let until = now + 60_000
  if (retryAfter > 0) until = now + retryAfter * 1000
  else if (reset > 0) until = reset * 1000
  return { kind: secondary ? 'secondary' : 'primary', until }
}

/**
 * GraphQL's primary limit is an HTTP 200 whose errors carry `type: RATE_LIMITED` (GitHub's
 * rate-limits-for-the-graphql-api; not in the team's reference: read from the docs and from
 * plugin-throttling 11, which throws it as "GraphQL Rate Limit Exceeded" with the `response`).
 * The end is `x-ratelimit-reset`, else at least one minute. Read by the structured type only.
 */
function graphqlRateLimitOf(error: unknown, now: number): RateLimited | undefined {
  const failed = error as {
    errors?: unknown
    headers?: Record<string, unknown>
    response?: { headers?: Record<string, unknown>; data?: { errors?: unknown } }
  } | null
  const errors = failed?.errors ?? failed?.response?.data?.errors
  const limited =
    Array.isArray(errors) &&
    errors.some((e) => (e as { type?: unknown } | null)?.type === 'RATE_LIMITED')
  if (!limited) return undefined
  const reset = Number((failed?.response?.headers ?? failed?.headers ?? {})['x-ratelimit-reset'])
  return { kind: 'primary', until: reset > 0 ? reset * 1000 : now + 60_000 }
}

/** Why the gate stopped waiting, by the last decision (undefined: the plugin asked nothing). */
const GAVE_UP_BECAUSE: Record<RateLimitWaitDecision | 'unknown', string> = {
  'past-deadline': "later than this step's deadline leaves time for",
  'too-long': "later than the gate's longest rate-limit wait",
  'too-many': 'and the gate had already used its rate-limit retries for this call',
  aborted: 'and the run was cancelled',
  wait: 'and the call failed after the gate waited for it',
  unknown: "later than this step's deadline or the gate's longest rate-limit wait"
}

export function rateLimitText(
  limited: RateLimited,
  doing: string,
  where: string,
  decision?: RateLimitWaitDecision
): string {
  const name = limited.kind === 'secondary' ? 'secondary rate limit' : 'rate limit (primary)'
  const until = new Date(Math.ceil(limited.until / 1000) * 1000).toISOString()
  return (
    `GitHub's ${name} stopped ${doing} in ${where}: GitHub allows the next request at ${until}, ` +
    `${GAVE_UP_BECAUSE[decision ?? 'unknown']}. This is GitHub ` +
    'limiting the requests of this token, not the network: start fewer gates at once ' +
    "(the matrix's max-parallel) or re-run after that time."
  )
}
