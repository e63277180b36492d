// The pause after a lost commit race: full jitter, growing, capped, and bounded by the deadline.
import { describe, expect, it } from '@jest/globals'
import {
  nextRaceAttempt,
  raceBackoffMs
} from '../../../../../src/gitops/github/client/race-backoff.js'

describe('raceBackoffMs', () => {
  it.each<[number, number, number]>([
    [1, 0, 0],
    [1, 0.5, 50],
    [1, 0.999, 99],
    [2, 0.5, 100],
    [3, 0.5, 200],
    [6, 0.5, 1600],
    [7, 0.5, 2500],
    [7, 0.999, 4995],
    [50, 0.999, 4995],
    [0, 0.5, 50],
    [3, -1, 0],
    [3, 2, 400]
  ])('lost %i, random %f: %i ms', (lost, random, ms) => {
    expect(raceBackoffMs(lost, random)).toBe(ms)
  })
})

describe('raceBackoffMs without a fixed random', () => {
  it("uses the toolkit's default and stays in [0, ceiling)", () => {
    for (let i = 0; i < 50; i++) {
      const ms = raceBackoffMs(3)
      expect(Number.isInteger(ms) && ms >= 0 && ms < 400).toBe(true)
    }
  })
})

describe('nextRaceAttempt', () => {
  it.each<[string, number, number, number, number | null]>([
    ['well before the deadline: the pause', 3, 0, 1000, 200],
    ['a pause that ends just before the deadline', 3, 799, 1000, 200],
    ['a pause that ends at the deadline: give up', 3, 800, 1000, null],
    ['past the deadline: give up', 1, 2000, 1000, null],
    ['no count limit: the 40th loss still waits when there is time', 40, 0, 600000, 2500]
  ])('%s', (_name, lost, now, deadline, expected) => {
    expect(nextRaceAttempt(lost, 0.5, now, deadline)).toBe(expected)
  })
})
