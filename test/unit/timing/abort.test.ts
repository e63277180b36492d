import { describe, expect, it } from '@jest/globals'
import { raceAbort } from '../../../src/timing/abort.js'

const never = new Promise<string>(() => {})

describe('raceAbort', () => {
  it('settles with the work when it ends first', async () => {
    await expect(raceAbort(Promise.resolve('done'), new AbortController().signal)).resolves.toBe(
      'done'
    )
    await expect(
      raceAbort(Promise.reject(new Error('boom')), new AbortController().signal)
    ).rejects.toThrow('boom')
  })

  it('rejects with the reason as soon as the signal aborts', async () => {
    const controller = new AbortController()
    const race = raceAbort(never, controller.signal)
    controller.abort(new Error('cancelled'))
    await expect(race).rejects.toThrow('cancelled')
  })

  it('rejects at once for a signal that has already aborted, with a chosen error', async () => {
    await expect(
      raceAbort(never, AbortSignal.abort(), { error: () => new Error('mine') })
    ).rejects.toThrow('mine')
  })

  it('lets the work finish within the grace time', async () => {
    const controller = new AbortController()
    let finish: (value: string) => void = () => {}
    const work = new Promise<string>((resolve) => (finish = resolve))
    const race = raceAbort(work, controller.signal, { graceMs: 1000 })
    controller.abort()
    finish('finished its own cancel')
    await expect(race).resolves.toBe('finished its own cancel')
  })

  it('gives up after the grace time', async () => {
    const controller = new AbortController()
    const race = raceAbort(never, controller.signal, {
      graceMs: 10,
      error: () => new Error('gave up')
    })
    controller.abort()
    await expect(race).rejects.toThrow('gave up')
  })
})
