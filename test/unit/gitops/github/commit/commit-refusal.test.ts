// commitRefusal: what a refusal of createCommitOnBranch means, by the structured `type` alone.
import { describe, expect, it } from '@jest/globals'
import {
  commitFailureStep,
  commitRefusal
} from '../../../../../src/gitops/github/commit/commit-answer.js'

const HEAD = '0123456789abcdef0123456789abcdef01234567'
const stale = {
  type: 'STALE_DATA',
  message: `Expected branch to point to "${HEAD}" but it did not.  Pull and try again.`
}

describe('commitRefusal', () => {
  it.each([
    ['a moved head', [stale], 'lost-race'],
    ['two moved-head errors', [stale, stale], 'lost-race'],
    [
      'classic protection',
      [{ type: 'BRANCH_PROTECTION_RULE_VIOLATION', message: 'x' }],
      'protected'
    ],
    [
      'protection beside a moved head',
      [stale, { type: 'BRANCH_PROTECTION_RULE_VIOLATION', message: '' }],
      'protected'
    ],
    [
      'a token without the permission',
      [{ type: 'FORBIDDEN', message: 'Resource not accessible by integration' }],
      'access'
    ],
    ['a missing branch', [{ type: 'NOT_FOUND', message: "Branch 'x' not found" }], 'other'],
    [
      'a ruleset (its own type)',
      [{ type: 'UNPROCESSABLE', message: 'Repository rule violations found' }],
      'other'
    ],
    ['a moved head beside another error', [stale, { type: 'UNPROCESSABLE', message: '' }], 'other'],
    ['an error without a type', [{ message: 'Something went wrong' }], 'other'],
    ['no errors at all', [], 'other']
  ] as const)('%s: %j -> %s', (_name, errors, expected) => {
    expect(commitRefusal(errors)).toBe(expected)
  })

  it('never reads the message: a STALE_DATA text under another type is not a race', () => {
    expect(commitRefusal([{ type: 'UNPROCESSABLE', message: stale.message }])).toBe('other')
    expect(
      commitRefusal([
        { type: 'STALE_DATA', message: 'Changes must be made through a pull request.' }
      ])
    ).toBe('lost-race')
  })
})

describe('commitFailureStep', () => {
  const timeout = {
    message: 'Something went wrong while executing your query. This may be the result of a timeout'
  }
  it.each([
    ['a rate limit', true, [{ type: 'RATE_LIMITED', message: '' }], false, 'rate-limited'],
    ['a 5xx or no answer', false, undefined, true, 'look'],
    ["GitHub's GraphQL timeout (200, data null, no type)", false, [timeout], false, 'look'],
    ['another typeless error, any text', false, [{ message: 'timedout' }], false, 'look'],
    [
      'a typeless error beside a typed one',
      false,
      [timeout, { type: 'STALE_DATA', message: '' }],
      false,
      'look'
    ],
    ['a moved head', false, [{ type: 'STALE_DATA', message: '' }], false, 'refused'],
    [
      'a protection refusal',
      false,
      [{ type: 'BRANCH_PROTECTION_RULE_VIOLATION', message: '' }],
      false,
      'refused'
    ],
    ['a 4xx answer', false, undefined, false, 'error']
  ] as const)('%s -> %s', (_name, rateLimited, errors, mayHaveStored, expected) => {
    expect(commitFailureStep({ rateLimited, errors, mayHaveStored })).toBe(expected)
  })
})
