// The pause after a lost commit race (another writer moved the branch first). Many gates on one
// branch lose often, so the bound is time (the sync deadline), not a count; full jitter spreads the
// writers apart (the AWS Architecture Blog's "Exponential Backoff And Jitter"). Pure.

export const RACE_BACKOFF_BASE_MS = 100
export const RACE_BACKOFF_CAP_MS = 5000

/** Full jitter: a uniform pause in [0, min(cap, base * 2^(lost-1))). `random` is in [0, 1). */
export function raceBackoffMs(lostRaces: number, random: number): number {
  const ceiling = Math.min(
    RACE_BACKOFF_CAP_MS,
    RACE_BACKOFF_BASE_MS * 2 ** Math.max(0, lostRaces - 1)
  )
  return Math.floor(Math.min(Math.max(random, 0), 1) * ceiling)
}

/** The pause before the next attempt, or null when the attempt after it would start past the deadline. */
export function nextRaceAttempt(
  lostRaces: number,
  random: number,
  now: number,
  deadline: number
): number | null {
  const pause = raceBackoffMs(lostRaces, random)
  return now + pause < deadline ? pause : null
}
