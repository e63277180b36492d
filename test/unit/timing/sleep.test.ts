import { describe, expect, it } from '@jest/globals'
import { systemClock } from '../../../src/timing/clock.js'
import { sleep } from '../../../src/timing/sleep.js'
import { FakeClock } from '../../timing/fake-clock.js'

describe('sleep', () => {
  it('resolves after a short pause, without a signal and with one', async () => {
    await expect(sleep(1)).resolves.toBeUndefined()
    await expect(sleep(1, new AbortController().signal)).resolves.toBeUndefined()
    await expect(sleep(-5)).resolves.toBeUndefined()
  })

  it('rejects at once, with the reason, when already aborted', async () => {
    const controller = new AbortController()
    const reason = new Error('cancelled by the runner')
    controller.abort(reason)
    // An hour: only the abort can end it within the test's time.
    await expect(sleep(3_600_000, controller.signal)).rejects.toBe(reason)
  })

  it('rejects at once, with the reason, when aborted during the pause', async () => {
    const controller = new AbortController()
    const reason = new Error('SIGTERM')
    const pause = sleep(3_600_000, controller.signal)
    controller.abort(reason)
    await expect(pause).rejects.toBe(reason)
  })

  it('rejects with the default AbortError reason when aborted without one', async () => {
    const controller = new AbortController()
    const pause = sleep(3_600_000, controller.signal)
    controller.abort()
    await expect(pause).rejects.toBe(controller.signal.reason)
    expect((controller.signal.reason as Error).name).toBe('AbortError')
  })

  it('is the system clock sleep', () => {
    expect(systemClock.sleep).toBe(sleep)
    expect(Math.abs(systemClock.now() - Date.now())).toBeLessThan(1000)
  })
})

describe('FakeClock', () => {
  it('advances at once when slept, recording each pause', async () => {
    const clock = new FakeClock(1000)
    await clock.sleep(3_600_000)
    await clock.sleep(5)
    expect(clock.now()).toBe(1000 + 3_600_005)
    expect(clock.slept).toEqual([3_600_000, 5])
  })

  it('rejects with the reason, as the real sleep, when aborted before or during a pause', async () => {
    const before = new AbortController()
    before.abort(new Error('before'))
    await expect(new FakeClock().sleep(10, before.signal)).rejects.toThrow('before')

    const during = new AbortController()
    const clock = new FakeClock(0, () => during.abort(new Error('during')))
    await expect(clock.sleep(10, during.signal)).rejects.toThrow('during')
    expect(clock.now()).toBe(0)
  })
})
