// The time and the pause, as one thing to inject: the run uses the system clock, tests a fake one
// (test/timing/fake-clock.ts) that advances at once when slept, so no test waits on a real backoff.
import { type Sleep, sleep } from './sleep.js'

export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number
  sleep: Sleep
}

export const systemClock: Clock = { now: () => Date.now(), sleep }
