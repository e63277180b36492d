// commitRefusal: what a refusal of createCommitOnBranch means, by the structured `type` alone.
import { describe, expect, it } from '@jest/globals'
import { commitRefusal } from '../../../src/gitops/commit-on-branch.js'

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
