// A clock for tests: sleeping advances the time at once and records the pause, so a retry loop
// runs through its whole backoff in microseconds. Abort behaves as the real sleep's (src/timing).
import type { Clock } from '../../src/timing/clock.js'

export class FakeClock implements Clock {
  /** Every pause asked for, in order. */
  readonly slept: number[] = []

  /** `onSleep` runs at the start of each pause: a test can abort there, "during" the sleep. */
  constructor(
    private time = 0,
    private readonly onSleep?: (ms: number) => void
  ) {}

  now = (): number => this.time

  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    signal?.throwIfAborted()
    this.slept.push(ms)
    this.onSleep?.(ms)
    signal?.throwIfAborted()
    this.time += Math.max(0, ms)
    this.fireDue()
    await Promise.resolve() // still a real await: code after the pause runs later, as with a timer
  }

  /** Aborts when this clock's time reaches now + ms: never during a real request unless advanced. */
  timeout = (ms: number): AbortSignal => {
    const controller = new AbortController()
    this.timers.push({ at: this.time + Math.max(0, ms), controller })
    this.fireDue()
    return controller.signal
  }

  advance(ms: number): void {
    this.time += ms
    this.fireDue()
  }

  private readonly timers: { at: number; controller: AbortController }[] = []

  private fireDue(): void {
    for (const timer of this.timers.filter((t) => t.at <= this.time)) {
      timer.controller.abort(new DOMException('The operation timed out.', 'TimeoutError'))
      this.timers.splice(this.timers.indexOf(timer), 1)
    }
  }
}
