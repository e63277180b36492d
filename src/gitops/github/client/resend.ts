// The request options of writes that are never re-sent blind, and whether a lost answer may have
// stored one: steps 3 and 4 of the header of octokit.ts.
import { githubError } from './call.js'

/** Attempts of a write that its caller checks between attempts. */
export const CHECKED_WRITE_ATTEMPTS = 3

/** Request options that turn off @octokit/plugin-retry for this one request (its `retries`). */
export function withoutBlindRetry<T extends object>(request: T): T & { retries: number } {
  return { ...request, retries: 0 }
}

/** Whether a failed write may still have been stored: a 5xx, no answer, or our time limit cut it. */
export function mayHaveStored(error: unknown): boolean {
  if ((error as { name?: unknown })?.name === 'TimeoutError') return true
  const answer = githubError(error)
  if (!answer) return false
  return !answer.answered || answer.status >= 500
}

/**
 * Request options that make octokit.ts's rate-limit handler give up on this one request instead of
 * re-sending it after the wait: for a compare-and-set write (the commit mutation) whose caller
 * re-reads before it writes again (commit-rate-limit.ts).
 */
export function withoutRateLimitResend<T extends object>(
  request: T
): T & { rateLimitResend: false } {
  return { ...request, rateLimitResend: false }
}
