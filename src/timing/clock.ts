// The time and the pause, as one thing to inject: the run uses the system clock, tests a fake one
// (test/timing/fake-clock.ts) that advances at once when slept, so no test waits on a real backoff.
import { type Sleep, sleep } from './sleep.js'

export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number
  sleep: Sleep
  /** A signal that aborts `ms` from now on this clock: the deadline of one bounded read. */
  timeout(ms: number): AbortSignal
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep,
  timeout: (ms) => AbortSignal.timeout(Math.max(0, ms))
}
