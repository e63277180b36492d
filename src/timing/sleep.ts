// The one pause of the action. Every wait can be cancelled (SIGINT/SIGTERM end the run promptly), and
// a cancel rejects with the run's abort reason, as every other wait does: callers tell a cancel from
// a failure by `signal.aborted`, never by the error's type.
import { setTimeout as delay } from 'node:timers/promises'

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

/** Waits `ms` (0 when negative); rejects at once with `signal.reason` on an abort. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted()
  try {
    await delay(Math.max(0, ms), undefined, { signal })
  } catch (error) {
    // Node rejects with its own AbortError; the run's reason is what the caller knows.
    throw signal?.aborted ? signal.reason : error
  }
}
