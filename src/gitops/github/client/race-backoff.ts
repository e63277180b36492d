// The pause after a lost commit race: step 5 of the header of octokit.ts. Full jitter, as in
// https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/. Pure.
import { backoff } from '../../../timing/backoff.js'

export const RACE_BACKOFF_BASE_MS = 100
export const RACE_BACKOFF_CAP_MS = 5000

/**
 * Full jitter: a uniform pause in [0, min(cap, base * 2^(lost-1))). `random` is in [0, 1); unset,
 * the toolkit's default (Math.random).
 */
export function raceBackoffMs(lostRaces: number, random?: number): number {
  return backoff({
    attempt: lostRaces,
    initialMs: RACE_BACKOFF_BASE_MS,
    maxMs: RACE_BACKOFF_CAP_MS,
    jitter: 'full',
    random: random === undefined ? undefined : () => random
  })
}

/** The pause before the next attempt, or null when the attempt after it would start past the deadline. */
export function nextRaceAttempt(
  lostRaces: number,
  random: number | undefined,
  now: number,
  deadline: number
): number | null {
  const pause = raceBackoffMs(lostRaces, random)
  return now + pause < deadline ? pause : null
}
