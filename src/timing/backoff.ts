// The one backoff of the action: exponential from `initialMs`, capped at `maxMs`, with optional
// jitter. Pure (the randomness is injected), so a table test holds every formula that uses it.

export interface BackoffInput {
  /** 1 for the pause before the first retry. */
  attempt: number
  initialMs: number
  maxMs: number
  /** Growth per attempt. Default 2. */
  factor?: number
  /**
   * A fraction: 0.25 spreads the pause over ±25 % so that many runs never retry in step. 'full': a
   * uniform pause in [0, pause), whole ms (AWS Architecture Blog, "Exponential Backoff And Jitter").
   * Default 0.
   */
  jitter?: number | 'full'
  /** In [0, 1). Default Math.random. */
  random?: () => number
}

/** The pause before retry `attempt`: initialMs · factor^(attempt-1), capped, then jittered. */
export function backoff(input: BackoffInput): number {
  const { attempt, initialMs, maxMs, factor = 2 } = input
  const base = Math.min(initialMs * factor ** Math.max(0, attempt - 1), maxMs)
  if (input.jitter === 'full') return fullJitter(base, input.random ?? Math.random)
  return withJitter(base, input.jitter ?? 0, input.random)
}

/** A uniform pause in [0, ms); a `random` outside [0, 1] is clamped to it. */
function fullJitter(ms: number, random: () => number): number {
  return Math.floor(Math.min(Math.max(random(), 0), 1) * ms)
}

/** `ms` spread uniformly over ±fraction, rounded to whole milliseconds; `ms` as it is without jitter. */
export function withJitter(
  ms: number,
  fraction: number,
  random: () => number = Math.random
): number {
  if (fraction <= 0) return ms
  return Math.round(ms * (1 - fraction + random() * 2 * fraction))
}
