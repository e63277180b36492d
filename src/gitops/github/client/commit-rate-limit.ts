// The commit loop's wait after a rate limit on the commit mutation: step 4 of the header of
// octokit.ts. A re-send pinned to the old head came back STALE_DATA (bench --matrix 50: 174 lost
// races, 165 refusals). Pure when `random` is given (else Math.random, as the handler's spread).
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
    // With a deadline, time alone bounds the waits (call.ts decideRateLimitWait); these are unused.
    maxWaitMs: 0,
    retryCount: 0,
    maxRetries: 0,
    aborted: at.aborted
  })
  return decision === 'wait'
    ? { action: 'wait', waitMs, limited }
    : { action: 'give-up', limited, decision }
}
