// After the commit mutation met a rate limit: wait as GitHub asked (plus a spread), within the
// step's deadline, or give up naming the limit; anything else is not this decision's.
import { describe, expect, it } from '@jest/globals'
import { afterCommitRateLimit } from '../../../../../src/gitops/github/client/commit-rate-limit.js'

const NOW = 1_000_000_000_000
const SECONDARY =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'

/** An Octokit RequestError by shape (call.ts githubError reads it so). */
const answer = (status: number, message: string, headers: Record<string, string> = {}) => ({
  status,
  message,
  response: { headers, data: { message } }
})

const at = (more: Partial<Parameters<typeof afterCommitRateLimit>[1]> = {}) => ({
  now: NOW,
  deadline: NOW + 600_000,
  requestTimeoutMs: 30_000,
  pause: 1,
  random: 0.5,
  aborted: false,
  ...more
})

describe('afterCommitRateLimit', () => {
  it.each<[string, unknown, Partial<Parameters<typeof afterCommitRateLimit>[1]>, object]>([
    [
      'secondary, retry-after 5 s: 5 s and half of 1 s',
      answer(403, SECONDARY, { 'retry-after': '5' }),
      {},
      { action: 'wait', waitMs: 5500 }
    ],
    [
      '429 secondary, retry-after 60',
      answer(429, SECONDARY, { 'retry-after': '60' }),
      {},
      { action: 'wait', waitMs: 60_500 }
    ],
    [
      'the spread grows with each pause (3rd: up to 4 s)',
      answer(403, SECONDARY, { 'retry-after': '5' }),
      { pause: 3 },
      { action: 'wait', waitMs: 7000 }
    ],
    [
      'the spread is capped at 30 s',
      answer(403, SECONDARY, { 'retry-after': '5' }),
      { pause: 20, random: 0.999 },
      { action: 'wait', waitMs: 5000 + 29_970 }
    ],
    [
      'x-ratelimit-reset in 10 s',
      answer(403, SECONDARY, {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(NOW / 1000 + 10)
      }),
      { random: 0 },
      { action: 'wait', waitMs: 10_000 }
    ],
    [
      'primary, remaining 0',
      answer(403, 'API rate limit exceeded', {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(NOW / 1000 + 2)
      }),
      { random: 0 },
      { action: 'wait', waitMs: 2000 }
    ],
    [
      'no header: a minute',
      answer(403, SECONDARY),
      { random: 0 },
      { action: 'wait', waitMs: 60_000 }
    ],
    [
      'the wait and one call fit exactly',
      answer(403, SECONDARY, { 'retry-after': '5' }),
      { random: 0, deadline: NOW + 35_000 },
      { action: 'wait', waitMs: 5000 }
    ],
    [
      'the wait and one call do not fit',
      answer(403, SECONDARY, { 'retry-after': '5' }),
      { random: 0, deadline: NOW + 34_999 },
      {
        action: 'give-up',
        decision: 'past-deadline',
        limited: { kind: 'secondary', until: NOW + 5000 }
      }
    ],
    [
      'cancelled',
      answer(403, SECONDARY, { 'retry-after': '5' }),
      { aborted: true },
      { action: 'give-up', decision: 'aborted' }
    ],
    [
      '403 that is no rate limit',
      answer(403, 'Resource not accessible by integration'),
      {},
      { action: 'not-limited' }
    ],
    ['422', answer(422, 'Unprocessable', { 'retry-after': '5' }), {}, { action: 'not-limited' }],
    [
      'a GraphQL error answer (no status)',
      { errors: [{ type: 'STALE_DATA', message: 'moved' }] },
      {},
      { action: 'not-limited' }
    ],
    ['not an error at all', undefined, {}, { action: 'not-limited' }]
  ])('%s', (_name, error, more, expected) => {
    expect(afterCommitRateLimit(error, at(more))).toMatchObject(expected)
  })

  it("without a fixed random, the spread stays below the pause's ceiling", () => {
    for (let i = 0; i < 20; i++) {
      const step = afterCommitRateLimit(
        answer(403, SECONDARY, { 'retry-after': '1' }),
        at({ random: undefined, pause: 2 })
      )
      expect(step.action === 'wait' && step.waitMs >= 1000 && step.waitMs < 3000).toBe(true)
    }
  })
})
