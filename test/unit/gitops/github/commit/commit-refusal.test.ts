// commitRefusal: what a refusal of createCommitOnBranch means, by the structured `type` alone;
// isSentChange: whether a commit found after a lost answer is ours, by its content alone.
import { describe, expect, it } from '@jest/globals'
import type { BranchFile } from '../../../../../src/gitops/branch-guard.js'
import {
  commitFailureStep,
  commitRefusal,
  gitBlobSha,
  isSentChange
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

describe('isSentChange: our commit after a lost answer, by content', () => {
  const MANIFEST = 'tests/docker-v2.yaml'
  const OLD = 'tests/docker-v1.yaml'
  const TEXT = 'kind: CoderTemplateTest\n'
  const SHA = gitBlobSha(TEXT)
  const sent = { additions: [{ path: MANIFEST, blobSha: SHA }], deletions: [OLD] }

  it('hashes as git hash-object does', () => {
    // `printf 'hello\n' | git hash-object --stdin`
    expect(gitBlobSha('hello\n')).toBe('ce013625030ba8dba906f756967f9e9ca394464a')
  })

  it.each<[string, BranchFile[], boolean]>([
    [
      'the addition and the deletion',
      [
        { path: MANIFEST, status: 'added', sha: SHA },
        { path: OLD, status: 'removed' }
      ],
      true
    ],
    [
      'shown as one rename',
      [{ path: MANIFEST, status: 'renamed', previousPath: OLD, sha: SHA }],
      true
    ],
    [
      'a modified manifest with the bytes sent',
      [
        { path: MANIFEST, status: 'modified', sha: SHA },
        { path: OLD, status: 'removed' }
      ],
      true
    ],
    [
      'other bytes at the path (the same message does not matter)',
      [
        { path: MANIFEST, status: 'added', sha: gitBlobSha('kind: Secret\n') },
        { path: OLD, status: 'removed' }
      ],
      false
    ],
    ['another path only', [{ path: 'apps/prod.yaml', status: 'modified', sha: SHA }], false],
    [
      'ours plus another path',
      [
        { path: MANIFEST, status: 'added', sha: SHA },
        { path: OLD, status: 'removed' },
        { path: 'apps/prod.yaml', status: 'removed' }
      ],
      false
    ],
    ['the deletion missing', [{ path: MANIFEST, status: 'added', sha: SHA }], false],
    ['the addition missing', [{ path: OLD, status: 'removed' }], false],
    ['an empty commit', [], false],
    [
      'a rename from a path not deleted',
      [{ path: MANIFEST, status: 'renamed', previousPath: 'apps/prod.yaml', sha: SHA }],
      false
    ]
  ])('%s', (_name, files, expected) => {
    expect(isSentChange(files, sent)).toBe(expected)
  })
})
