// The pure decisions of pull-request mode: a pull request's state, its readiness for a merge, what a
// merge answer and an auto-merge refusal mean; and what the typed errors tell the user.
import { describe, expect, it } from '@jest/globals'
import {
  AutoMergeNotAllowedError,
  autoMergeDecision,
  ClosedWithoutMergeError,
  type GraphqlError,
  mergeAnswerDecision,
  mergeReadiness,
  MergeRefusedError,
  mergedIsDone,
  MergeTimeoutError,
  pullRequestState
} from '../../../../../src/gitops/github/pull-request/state.js'
import { isSpent } from '../../../../../src/gitops/github/commit/spent-branch.js'

const AT = '2025-01-01T00:00:00Z'

describe('pullRequestState', () => {
  it.each([
    ['open', { state: 'open', merged: false, merged_at: null }, 'waiting'],
    ['open (list form, no merged field)', { state: 'open', merged_at: null }, 'waiting'],
    ['merged (full form)', { state: 'closed', merged: true, merged_at: AT }, 'merged'],
    ['merged (list form: merged_at only)', { state: 'closed', merged_at: AT }, 'merged'],
    ['merged flag without merged_at', { state: 'closed', merged: true, merged_at: null }, 'merged'],
    ['closed without merge', { state: 'closed', merged: false, merged_at: null }, 'closed'],
    ['closed, list form', { state: 'closed', merged_at: null }, 'closed'],
    ['closed, merged null', { state: 'closed', merged: null }, 'closed']
  ] as const)('%s -> %s', (_name, pr, expected) => {
    expect(pullRequestState(pr)).toBe(expected)
  })
})

describe('mergeReadiness', () => {
  it.each([
    [null, 'unknown', false, 'computing'],
    [null, 'clean', false, 'computing'],
    [true, 'unknown', false, 'computing'],
    [false, 'dirty', false, 'conflicts'],
    [false, 'blocked', false, 'conflicts'],
    [true, 'draft', false, 'draft'],
    [true, 'clean', true, 'draft'],
    [true, 'clean', false, 'try'],
    [true, 'blocked', false, 'try'],
    [true, 'behind', false, 'try'],
    [true, 'unstable', false, 'try'],
    [true, 'has_hooks', false, 'try']
  ] as const)('mergeable %s, state %s, draft %s -> %s', (mergeable, state, draft, expected) => {
    expect(mergeReadiness({ mergeable, mergeable_state: state, draft })).toBe(expected)
  })
})

const RULES = (...lines: string[]) =>
  `Repository rule violations found\n\n${lines.map((l) => `${l}\n\n`).join('')}`

describe('mergeAnswerDecision', () => {
  it.each([
    // Not yet: GitHub recomputes, checks still run, the base moved.
    [405, 'Pull Request is not mergeable', 'retry'],
    [405, 'Required status check "ci" is expected.', 'retry'],
    [405, '6 of 6 required status checks are expected.', 'retry'],
    [405, RULES('Required status check "ci" is expected.'), 'retry'],
    [
      405,
      RULES(
        'Required status check "ci" is expected.',
        '2 of 2 required status checks are expected.'
      ),
      'retry'
    ],
    [405, 'Required status check "build" is in progress.', 'retry'],
    [405, 'Base branch was modified. Review and try the merge again.', 'retry'],
    // Not ever, without a person or a setting.
    [405, 'At least 1 approving review is required by reviewers with write access.', 'reviews'],
    [
      405,
      RULES('At least 2 approving reviews are required by reviewers with write access.'),
      'reviews'
    ],
    [
      405,
      RULES(
        'Required status check "ci" is expected.',
        'At least 1 approving review is required by reviewers with write access.'
      ),
      'reviews'
    ],
    [405, 'Merge commits are not allowed on this repository.', 'method-not-allowed'],
    [405, 'Squash merges are not allowed on this repository.', 'method-not-allowed'],
    [405, 'Rebase merges are not allowed on this repository.', 'method-not-allowed'],
    [405, 'Required status check "ci" is failing.', 'rules'],
    [405, RULES('Changes must be made through the merge queue'), 'rules'],
    [409, 'Head branch was modified. Review and try the merge again.', 'head-moved'],
    [422, 'Validation Failed', 'other'],
    // A check name chosen by a user cannot make a refusal look like a pending check.
    [
      405,
      'Required status check "x" is expected. At least 1 approving review is required',
      'rules'
    ],
    [405, 'Required status check "ci\nAt least 1" is expected.', 'rules'],
    [405, 'Pull Request is not mergeable because of "Required status check"', 'rules'],
    [405, 'prefix Merge commits are not allowed on this repository.', 'rules'],
    [405, '', 'rules']
  ] as const)('%i %j -> %s', (status, message, expected) => {
    const decision = mergeAnswerDecision(status, message)
    expect(decision.action === 'retry' ? 'retry' : decision.kind).toBe(expected)
    expect(decision.reason).toBe(message.trim())
  })
})

describe('autoMergeDecision', () => {
  const unprocessable = (message: string): GraphqlError => ({ type: 'UNPROCESSABLE', message })
  it.each([
    [[unprocessable('Pull request Auto merge is not allowed for this repository')], 'not-allowed'],
    [[unprocessable('Auto merge is not allowed for this repository')], 'not-allowed'],
    [[unprocessable('Pull request Pull request is in clean status')], 'merge-now'],
    [[unprocessable('Pull request is in unstable status')], 'merge-now'],
    [[unprocessable('Pull request Pull request is in blocked status')], 'refused'],
    [[unprocessable('Merge method squash merges are not allowed on this repository')], 'refused'],
    [[unprocessable('Pull request Pull request is closed')], 'refused'],
    [[{ type: 'FORBIDDEN', message: 'Resource not accessible by integration' }], 'forbidden'],
    [
      [{ type: 'NOT_FOUND', message: "Could not resolve to a node with the global id of 'x'." }],
      'refused'
    ],
    // The type decides first: the same text without UNPROCESSABLE is not trusted.
    [[{ message: 'Pull request Auto merge is not allowed for this repository' }], 'refused'],
    [
      [{ type: 'FORBIDDEN', message: 'Auto merge is not allowed for this repository' }],
      'forbidden'
    ],
    // Anchored: a sentence that only contains the text is something else.
    [
      [unprocessable('Branch "Auto merge is not allowed for this repository" is protected')],
      'refused'
    ],
    [[unprocessable('Branch main: Auto merge is not allowed for this repository')], 'refused'],
    [[unprocessable('A check says Pull request is in clean status')], 'refused'],
    [
      [unprocessable('Pull request Pull request is in clean status, but the head moved')],
      'refused'
    ],
    [[], 'refused']
  ] as const)('%j -> %s', (errors, expected) => {
    expect(autoMergeDecision([...errors])).toBe(expected)
  })
})

describe('errors', () => {
  it('closed without merge names who closed it, and that nothing was tested', () => {
    const error = new ClosedWithoutMergeError(7, 'https://github.test/acme/gitops/pull/7', 'bob')
    expect(error).toBeInstanceOf(Error)
    expect(error.message).toContain('#7 (https://github.test/acme/gitops/pull/7)')
    expect(error.message).toContain('closed without merging by bob')
    expect(error.message).toContain('nothing was tested or promoted')
    expect(new ClosedWithoutMergeError(7, 'u', null).message).not.toContain(' by ')
  })

  it('the merge timeout names merge-timeout-seconds and what GitHub last showed', () => {
    const error = new MergeTimeoutError(3, 'u3', 'open, mergeable_state blocked')
    expect(error.message).toContain('merge-timeout-seconds')
    expect(error.message).toContain('open, mergeable_state blocked')
    expect(error.message).toContain('stays open')
  })

  it('auto-merge not allowed says where to allow it, or to merge immediately', () => {
    const error = new AutoMergeNotAllowedError(
      'acme/gitops',
      4,
      'Pull request Auto merge is not allowed for this repository'
    )
    expect(error.message).toContain('acme/gitops')
    expect(error.message).toContain('Allow auto-merge')
    expect(error.message).toContain('`pull-request-merge: immediate`')
    expect(error.githubReason).toBe('Pull request Auto merge is not allowed for this repository')
  })

  it.each([
    ['reviews', '`pull-request-merge: auto`'],
    ['method-not-allowed', 'pull-request-merge-method'],
    ['head-moved', 'commits that the gate did not make'],
    ['conflicts', 'conflicts'],
    ['forbidden', '`pull-requests: write`']
  ] as const)('a %s refusal carries GitHub’s reason as data and its advice', (kind, advice) => {
    const reason = 'Repository rule violations found\n\nSomething "quoted".\n\n'
    const error = new MergeRefusedError(5, 'u5', kind, reason)
    expect(error.kind).toBe(kind)
    expect(error.githubReason).toBe(reason)
    expect(error.advice).toContain(advice)
    // One line, GitHub's text quoted as a string.
    expect(error.message).toContain('"Repository rule violations found Something \\"quoted\\"."')
    expect(error.message).not.toContain('\n')
  })
})

describe('mergedIsDone', () => {
  it.each([
    ['merged, the tip, the manifest on the base', true, 'tip', true, true],
    ['merged, but the manifest left the base', true, 'tip', false, false],
    ['merged an older head of the branch', true, 'older', true, false],
    ['not merged', false, 'tip', true, false]
  ])('%s', (_, merged, headSha, onBase, done) => {
    expect(mergedIsDone({ merged, headSha }, 'tip', onBase)).toBe(done)
  })
})

describe('isSpent', () => {
  it.each([
    ['behind', true],
    ['identical', false],
    ['ahead', false],
    ['diverged', false]
  ])('%s', (status, spent) => {
    expect(isSpent(status)).toBe(spent)
  })
})
