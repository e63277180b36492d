// What the commit loop does when GitHub refused the createCommitOnBranch mutation for a rate limit.
// The throttling plugin would re-send the same mutation after the wait, still pinned to the head it
// was judged at; after seconds of waiting another writer has almost surely moved the branch, so
// that re-send is a wasted content-creating request that comes back STALE_DATA (bench --matrix 50:
// 174 lost races, 165 refusals). The mutation goes out without that re-send (octokit.ts
// withoutRateLimitResend) and the loop waits here, then re-reads the head and judges again. The
// rules are github-call.ts's: the wait GitHub asked for counts against the step's deadline. Pure when
// `random` is given (production leaves it to Math.random, as the throttle handler's spread).
import { backoff } from '../../../timing/backoff.js'
import {
  decideRateLimitWait,
  rateLimitOf,
  type RateLimited,
  type RateLimitWaitDecision
} from './call.js'

export type CommitRateLimitStep =
  | { action: 'not-limited' }
  | { action: 'wait'; waitMs: number; limited: RateLimited }
  | { action: 'give-up'; limited: RateLimited; decision: RateLimitWaitDecision }

// The spread after GitHub's wait, as octokit.ts's handler adds it: gates that share a token are
// told the same wait, and full jitter keeps them from racing for the same freed slot.
const SPREAD_INITIAL_MS = 1000
const SPREAD_MAX_MS = 30_000

export function afterCommitRateLimit(
  answer: unknown,
  at: {
    now: number
    /** The step's deadline (epoch ms). */
    deadline: number
    /** The per-call limit: the head re-read and the next mutation must fit after the wait too. */
    requestTimeoutMs: number
    /** This pause's number, from 1: the spread grows with it. */
    pause: number
    /** In [0, 1); unset, Math.random. */
    random?: number
    aborted: boolean
  }
): CommitRateLimitStep {
  const limited = rateLimitOf(answer, at.now)
  if (!limited) return { action: 'not-limited' }
  const spreadMs = backoff({
    attempt: at.pause,
    initialMs: SPREAD_INITIAL_MS,
    maxMs: SPREAD_MAX_MS,
    jitter: 'full',
    random: at.random === undefined ? undefined : () => at.random!
  })
  const waitMs = Math.max(0, limited.until - at.now) + spreadMs
  const decision = decideRateLimitWait({
    waitMs,
    now: at.now,
    deadline: at.deadline,
    requestTimeoutMs: at.requestTimeoutMs,
    // With a deadline, time alone bounds the waits (github-call.ts); these are unused.
    maxWaitMs: 0,
    retryCount: 0,
    maxRetries: 0,
    aborted: at.aborted
  })
  return decision === 'wait'
    ? { action: 'wait', waitMs, limited }
    : { action: 'give-up', limited, decision }
}
