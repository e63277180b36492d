// Which failed writes may have been stored all the same, so that they are looked for, not re-sent.
import { describe, expect, it } from '@jest/globals'
import { mayHaveStored, withoutBlindRetry } from '../../../../../src/gitops/github/client/resend.js'

const answered = (status: number) => ({
  status,
  message: 'x',
  response: { data: { message: 'x' } }
})

describe('mayHaveStored', () => {
  it.each<[string, unknown, boolean]>([
    ['a 502 after the write', answered(502), true],
    ['a 500', answered(500), true],
    ['a 504', answered(504), true],
    [
      'no answer (a RequestError without a response)',
      { status: 500, message: 'fetch failed' },
      true
    ],
    ['our per-call time limit', Object.assign(new Error('t'), { name: 'TimeoutError' }), true],
    ['a 422 (refused, nothing stored)', answered(422), false],
    ['a 403', answered(403), false],
    ['a 404', answered(404), false],
    ['a 409', answered(409), false],
    ['not a GitHub error', new Error('bug'), false],
    ['nothing', undefined, false]
  ])('%s: %s', (_name, error, expected) => {
    expect(mayHaveStored(error)).toBe(expected)
  })
})

describe('withoutBlindRetry', () => {
  it("turns the retry plugin's retries off and keeps the rest", () => {
    const signal = new AbortController().signal
    expect(withoutBlindRetry({ signal })).toEqual({ signal, retries: 0 })
  })
})
