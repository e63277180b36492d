import { describe, expect, it } from '@jest/globals'
import { backoff, type BackoffInput, withJitter } from '../../../src/timing/backoff.js'

const fixed = (value: number) => () => value

describe('backoff', () => {
  // Each row is one of the action's retry loops, as it calls the toolkit.
  it.each<[string, Omit<BackoffInput, 'attempt'>, number[]]>([
    [
      'promote (promotion.ts)',
      { initialMs: 1000, maxMs: 10_000 },
      [1000, 2000, 4000, 8000, 10_000, 10_000]
    ],
    [
      'Coder GET retries, default',
      { initialMs: 1000, maxMs: 10_000 },
      [1000, 2000, 4000, 8000, 10_000, 10_000]
    ],
    ['Coder GET retries, 5 ms', { initialMs: 5, maxMs: 10_000 }, [5, 10, 20, 40, 80, 160]],
    [
      'kube watch (watch-state.ts)',
      { initialMs: 500, maxMs: 2000 },
      [500, 1000, 2000, 2000, 2000, 2000]
    ],
    [
      'merge poll (merge-request.ts), 2 s',
      { initialMs: 2000, maxMs: 30_000 },
      [2000, 4000, 8000, 16_000, 30_000, 30_000]
    ],
    [
      'wait for merge (wait-for-merge.ts), 5 s',
      { initialMs: 5000, maxMs: 30_000, factor: 1.5 },
      [5000, 7500, 11_250, 16_875, 25_312.5, 30_000]
    ],
    [
      'factor 1.5',
      { initialMs: 100, maxMs: 1000, factor: 1.5 },
      [100, 150, 225, 337.5, 506.25, 759.375]
    ],
    [
      'factor 1: constant',
      { initialMs: 300, maxMs: 1000, factor: 1 },
      [300, 300, 300, 300, 300, 300]
    ],
    ['cap below the start', { initialMs: 1000, maxMs: 400 }, [400, 400, 400, 400, 400, 400]]
  ])('%s', (_, rules, expected) => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoff({ attempt, ...rules }))).toEqual(expected)
  })

  it('treats attempt 0 or less as the first', () => {
    expect(backoff({ attempt: 0, initialMs: 1000, maxMs: 10_000 })).toBe(1000)
    expect(backoff({ attempt: -3, initialMs: 1000, maxMs: 10_000 })).toBe(1000)
  })

  it.each<[number, number, number]>([
    // [jitter, random(), pause for a base of 1000 (attempt 1)]
    [0.25, 0, 750],
    [0.25, 0.5, 1000],
    [0.25, 0.999, 1250],
    [1 / 3, 0, 667],
    [1 / 3, 0.999, 1333],
    [0, 0.999, 1000]
  ])('jitter %d with random %d gives %d', (jitter, random, expected) => {
    expect(
      backoff({ attempt: 1, initialMs: 1000, maxMs: 10_000, jitter, random: fixed(random) })
    ).toBe(expected)
  })

  it.each<[number, number, number]>([
    // [attempt, random(), pause]: the commit race (race-backoff.ts), 100 ms doubling, cap 5 s
    [1, 0, 0],
    [1, 0.5, 50],
    [1, 0.999, 99],
    [3, 0.5, 200],
    [7, 0.5, 2500],
    [50, 0.999, 4995],
    [3, -1, 0],
    [3, 2, 400]
  ])('full jitter, attempt %i, random %d: %i ms', (attempt, random, expected) => {
    expect(
      backoff({ attempt, initialMs: 100, maxMs: 5000, jitter: 'full', random: fixed(random) })
    ).toBe(expected)
  })

  it('full jitter uses Math.random by default and stays in [0, pause)', () => {
    for (let i = 0; i < 100; i++) {
      const ms = backoff({ attempt: 2, initialMs: 100, maxMs: 5000, jitter: 'full' })
      expect(Number.isInteger(ms) && ms >= 0 && ms < 200).toBe(true)
    }
  })

  it('jitters the capped pause (the cap bounds the base, not the spread)', () => {
    const at = (random: number) =>
      backoff({ attempt: 9, initialMs: 500, maxMs: 2000, jitter: 0.25, random: fixed(random) })
    expect([at(0), at(0.5), at(0.999)]).toEqual([1500, 2000, 2499])
  })

  it('uses Math.random by default and stays in range', () => {
    for (let i = 0; i < 100; i++) {
      const ms = backoff({ attempt: 2, initialMs: 1000, maxMs: 10_000, jitter: 0.25 })
      expect(ms).toBeGreaterThanOrEqual(1500)
      expect(ms).toBeLessThanOrEqual(2500)
    }
  })
})

describe('withJitter', () => {
  it.each<[number, number, number, number]>([
    [1000, 0.25, 0, 750],
    [1000, 0.25, 0.5, 1000],
    [1000, 0, 0.9, 1000],
    [1000, -1, 0.9, 1000],
    [0, 0.25, 0.9, 0]
  ])('withJitter(%d, %d) with random %d = %d', (ms, fraction, random, expected) => {
    expect(withJitter(ms, fraction, fixed(random))).toBe(expected)
  })
})
