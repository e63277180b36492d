// sync-seconds (interface.md): from the change landing on gitops-branch to the first read of the
// test object, one decimal; empty (null) when the test was already there.
import { describe, expect, it } from '@jest/globals'
import { syncSecondsOf } from '../../../src/steps/wait-record.js'

describe('syncSecondsOf', () => {
  it.each<[string, number, boolean | undefined, boolean, number | null]>([
    ['landed, found at the first read', 1_240, true, false, 1.2],
    ['landed, found after a miss', 61_960, true, true, 62],
    ['landed, rounded to one decimal', 3_051, true, true, 3.1],
    ['no change landed, but the first read missed it', 4_000, false, true, 4],
    ['no change landed, found at the first read: already there', 4_000, false, false, null],
    ['landing unknown (the promote job), found at once', 900, undefined, false, null],
    ['a clock step back never gives a negative time', -50, true, false, 0]
  ])('%s', (_case, elapsed, landed, notFoundSeen, expected) => {
    expect(syncSecondsOf(10_000 + elapsed, { syncFrom: 10_000, landed }, notFoundSeen)).toBe(
      expected
    )
  })
})
