// Writes that are not idempotent (a comment, a new ref) are never re-sent blind: the retry plugin
// re-sends after a 5xx, yet GitHub may have stored the first one before the answer was lost. These
// writes go out with the plugin's retry off; their caller looks again before it writes again.
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
 * Request options that make octokit.ts's secondary-rate-limit handler give up on this one request
 * instead of re-sending it after the wait: for a compare-and-set write (the commit mutation) whose
 * caller re-reads before it writes again (commit-rate-limit.ts).
 */
export function withoutRateLimitResend<T extends object>(
  request: T
): T & { rateLimitResend: false } {
  return { ...request, rateLimitResend: false }
}
