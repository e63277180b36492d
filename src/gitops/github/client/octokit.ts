// The Octokit of the GitOps repository, and how one GitHub call through it retries. Each step names
// the function that does it.
// 0. Each call has its own time limit besides the run's cancel (call.ts requestOptions, default
//    30 s). An aborted request is never re-sent (stopOnAbort).
// 1. Failures: the retry plugin (https://github.com/octokit/plugin-retry.js) re-sends a request
//    that got no answer or a 5xx, up to `retries` times (default 3), after 1, 4 and 9 s. It never
//    re-sends 400, 401, 403, 404, 409, 410, 422, 429 or 451 (DO_NOT_RETRY), nor a request sent with
//    `retries: 0` (resend.ts withoutBlindRetry).
// 2. Rate limits: the throttling plugin (https://github.com/octokit/plugin-throttling.js) reads
//    GitHub's answer as documented in
//    https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api and
//    https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api.
//    A 403 or 429 whose message names a secondary rate limit waits `retry-after` (else 60 s); a
//    primary limit (`x-ratelimit-remaining: 0`, or GraphQL's 200 with type RATE_LIMITED) waits
//    until `x-ratelimit-reset`. The plugin asks rateLimitHandler, which asks call.ts rateLimitWait
//    with the call's own limit, the `callLimit` request option. With a step deadline the call
//    waits when the wait, a jittered spread and one more time limit end by the deadline; without
//    one, at most 2 waits of at most maxRateLimitWaitSeconds (call.ts decideRateLimitWait). Else it
//    fails, and call.ts userError names the limit, its end and why the gate stopped. The plugin
//    also spaces writes 1 s apart, as
//    https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api asks.
// 3. Writes that are not idempotent (the commit, a new branch, the pull-request comment) go out
//    with `retries: 0`: a lost answer (a 5xx, none, our time limit: resend.ts mayHaveStored) may
//    hide a stored write, so the caller looks for it before it writes again, at most
//    CHECKED_WRITE_ATTEMPTS times. The commit reads the branch since the head it was pinned to
//    (commit/commit-on-branch.ts commitOnBranch); a commit there is ours only when its diff is
//    exactly the change sent (commit/commit-answer.ts isSentChange), never by its message.
// 4. The commit (GraphQL createCommitOnBranch, pinned to the head it was judged at by
//    `expectedHeadOid`: https://docs.github.com/en/graphql/reference/mutations#createcommitonbranch)
//    is not re-sent after a rate-limit wait either (resend.ts withoutRateLimitResend): by then the
//    head has likely moved. commit/change.ts waits as commit-rate-limit.ts afterCommitRateLimit
//    decides (the rule of step 2), then re-reads the head and judges the change again.
// 5. A lost race (STALE_DATA: another writer moved the branch first) pauses with full jitter, at
//    most 5 s, until the deadline (race-backoff.ts nextRaceAttempt), then re-reads and tries again.
// A 403 secondary limit during a commit: the retry plugin leaves a 403 alone. The throttling plugin
// asks rateLimitHandler, which gives up at once (rateLimitResend: false), so nothing is re-sent.
// commitOnBranch throws RateLimitedCommit. change.ts waits `retry-after` plus a spread when the
// step's deadline holds that wait and one more time limit, then reads the head and commits anew;
// otherwise the step fails with "GitHub's secondary rate limit stopped committing to ...".
// A cancel ends the waits of steps 3 to 5 and the spread of step 2 at once. The plugin's own wait
// cannot be interrupted: a cancelled call starts none, and step 2's rule bounds it.
import { getOctokit } from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import { throttling, type ThrottlingOptions } from '@octokit/plugin-throttling'
import { backoff } from '../../../timing/backoff.js'
import { sleep } from '../../../timing/sleep.js'
import { type CallLimit, rateLimitWait } from './call.js'
import type { GitOpsOctokit } from './octokit-type.js'

export type { GitOpsOctokit } from './octokit-type.js'

export interface GitOpsLog {
  warning(message: string): void
  debug?(message: string): void
}

export interface GitOpsOctokitOptions {
  token: string
  /** The REST API base URL, what GITHUB_API_URL holds (e.g. https://api.github.com). */
  baseUrl: string
  /** Retries of a 5xx or network failure by the retry plugin. Default 3. */
  retries?: number
  /** Retries after a rate limit by the throttling plugin (each within the step's deadline). Default 4. */
  rateLimitRetries?: number
  /** A rate limit that asks for a longer wait than this fails at once. Default 120 s. */
  maxRateLimitWaitSeconds?: number
  /**
   * Milliseconds per unit of delay. The retry plugin waits (retryCount + 1)^2 units after a 5xx;
   * the throttling plugin waits the seconds GitHub asks for, one unit each. Default 1000;
   * tests pass 1.
   */
  delayUnitMs?: number
  log?: GitOpsLog
  /**
   * plugin-throttling's `id`: its write spacing is shared by all clients of one id in a process.
   * Default its own ('no-id'); tests give each client its own.
   */
  throttleId?: string
  /**
   * false turns off plugin-throttling's write spacing (writes 1 s apart, notifying writes 3 s, as
   * GitHub's best practices ask), for tests against the sandbox only; rate-limit answers are still
   * handled. Not an action input. Default true.
   */
  spaceWrites?: boolean
}

// A stand-in for the plugin's Bottleneck groups: wrap-request.js calls only
// `key(id).schedule(jobOptions, job)`, so this runs the job at once. The plugin takes its `write`
// and `notifications` groups from the throttle options when given.
type Job = () => Promise<unknown>
const unspaced = {
  key: () => ({
    schedule: (first: object | Job, job?: Job) => (typeof first === 'function' ? first : job!)()
  })
} as unknown as ThrottlingOptions['write']

// The retry plugin's defaults plus 409 (a concurrent writer: commitManifest re-reads, a blind
// re-send of the same request cannot succeed) and 429 (rate limits belong to the throttling
// plugin, so that the number of attempts stays bounded by one plugin).
const DO_NOT_RETRY = [400, 401, 403, 404, 409, 410, 422, 429, 451]

// A request whose signal aborted (the caller's cancel, or commitManifest's per-call time limit) must
// not be retried: fetch's abort becomes a RequestError 500 (an AbortError from another realm, or a
// TimeoutError, is not recognised as an abort), which the retry plugin would re-send after its waits
// on the already-aborted signal. Registered before the retry plugin, so its error hook runs first and
// rethrows the abort reason, which carries no `request` and so is not retried.
function stopOnAbort(octokit: {
  hook: {
    error(
      name: 'request',
      hook: (error: unknown, options: { request?: { signal?: AbortSignal | null } }) => unknown
    ): void
  }
}): void {
  octokit.hook.error('request', (error, options) => {
    const signal = options.request?.signal
    if (signal?.aborted) throw signal.reason ?? error
    throw error
  })
}

// plugin-throttling throws GraphQL's primary limit (an HTTP 200 with RATE_LIMITED) as a plain Error
// without the `request` a RequestError carries. Registered last, so its hook runs after the
// throttling plugin's: it adds the request's own options (not its headers, which hold the token),
// so that call.ts userError finds the call's limit and last decision on that error too.
function keepRequestOptions(octokit: {
  hook: {
    error(
      name: 'request',
      hook: (error: unknown, options: { method: string; url: string; request?: object }) => unknown
    ): void
  }
}): void {
  octokit.hook.error('request', (error, options) => {
    const failed = error as { request?: unknown; response?: unknown } | null
    if (failed instanceof Error && failed.response !== undefined && failed.request === undefined) {
      const { method, url, request } = options
      Object.assign(failed, { request: { method, url, request } })
    }
    throw error
  })
}

// The request options the plugin hands its handlers: callLimit from call.ts requestOptions,
// rateLimitResend from resend.ts withoutRateLimitResend.
interface LimitedRequest {
  method: string
  url: string
  request?: { signal?: AbortSignal; callLimit?: CallLimit; rateLimitResend?: boolean }
}

/**
 * The throttling plugin's onRateLimit / onSecondaryRateLimit: true waits retryAfter seconds and
 * retries, false gives up.
 */
function rateLimitHandler(
  kind: string,
  rateLimitRetries: number,
  maxWaitSeconds: number,
  delayUnitMs: number,
  warn: (message: string) => void
) {
  return async (
    retryAfter: number,
    request: LimitedRequest,
    _octokit: unknown,
    retryCount: number
  ): Promise<boolean> => {
    // The request options carry the token only in headers; log method and URL template alone.
    const what = `${request.method} ${request.url}`
    // resend.ts withoutRateLimitResend: the caller waits, re-reads and builds a new request itself
    // (call.ts rateLimitOf reads both kinds, GraphQL's 200 RATE_LIMITED included).
    if (request.request?.rateLimitResend === false) return false
    // The wait is the step's (call.ts rateLimitWait, with the call's limit from its request
    // options): the call's own time limit stops meanwhile. The plugin's wait cannot be interrupted,
    // so a cancelled run must not start one.
    const signal = request.request?.signal
    // Gates that share a token are told the same short wait; a jittered spread that grows with
    // each retry keeps them from racing for the same freed slot again (counted in the decision).
    const spreadMs = backoff({
      attempt: retryCount + 1,
      initialMs: delayUnitMs,
      maxMs: 30 * delayUnitMs,
      jitter: 'full'
    })
    const decision = rateLimitWait(request.request, {
      waitMs: retryAfter * delayUnitMs + spreadMs,
      maxWaitMs: maxWaitSeconds * delayUnitMs,
      retryCount,
      maxRetries: rateLimitRetries
    })
    if (decision === 'aborted') return false
    if (decision === 'too-many') {
      warn(`GitHub ${kind} rate limit on ${what}: giving up after ${retryCount} retries`)
      return false
    }
    if (decision !== 'wait') {
      const beyond = decision === 'past-deadline' ? "the step's deadline" : `${maxWaitSeconds} s`
      warn(
        `GitHub ${kind} rate limit on ${what}: asks to wait ${retryAfter} s, beyond ${beyond}; giving up`
      )
      return false
    }
    warn(
      `GitHub ${kind} rate limit on ${what}: retry ${retryCount + 1} in ` +
        `${(retryAfter + spreadMs / delayUnitMs).toFixed(1)} s`
    )
    // The plugin then waits retryAfter; the spread comes first, and a cancel ends it.
    return sleep(spreadMs, signal).then(
      () => true,
      () => false
    )
  }
}

export function createGitOpsOctokit(options: GitOpsOctokitOptions): GitOpsOctokit {
  const rateLimitRetries = options.rateLimitRetries ?? 4
  const maxWaitSeconds = options.maxRateLimitWaitSeconds ?? 120
  const delayUnitMs = options.delayUnitMs ?? 1000
  const warn = (message: string) => options.log?.warning(message)
  const debug = (message: string) => options.log?.debug?.(message)

  const onLimit = (kind: string) =>
    rateLimitHandler(kind, rateLimitRetries, maxWaitSeconds, delayUnitMs, warn)

  return getOctokit(
    options.token,
    {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      // Octokit's own messages (deprecations, plugin notes) go to our log, never to stdout raw.
      log: {
        debug: (message: string) => debug(message),
        info: (message: string) => debug(message),
        warn: (message: string) => warn(message),
        error: (message: string) => warn(message)
      },
      retry: {
        retries: options.retries ?? 3,
        retryAfterBaseValue: delayUnitMs,
        doNotRetry: DO_NOT_RETRY
      },
      throttle: {
        ...(options.throttleId === undefined ? {} : { id: options.throttleId }),
        ...(options.spaceWrites === false ? { write: unspaced, notifications: unspaced } : {}),
        retryAfterBaseValue: delayUnitMs,
        onRateLimit: onLimit('primary'),
        onSecondaryRateLimit: onLimit('secondary')
      }
    },
    stopOnAbort,
    retry,
    throttling,
    keepRequestOptions
  )
}
