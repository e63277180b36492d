// rateLimitWait reads the call's limit from the request options it is given (requestOptions'
// `callLimit`) and keeps its decision there; no limit means no deadline and the default time limit.
import { describe, expect, it } from '@jest/globals'
import {
  CallLimit,
  rateLimitWait,
  requestOptions
} from '../../../../../src/gitops/github/client/call.js'
import type { GitOpsOctokit } from '../../../../../src/gitops/github/client/octokit-type.js'

const NOW = 1_000_000
const wait = { waitMs: 10_000, maxWaitMs: 5_000, retryCount: 0, maxRetries: 4 }
const options = (deadline?: number) =>
  requestOptions({
    octokit: {} as GitOpsOctokit,
    owner: 'acme',
    repo: 'gitops',
    requestTimeoutMs: 30_000,
    deadline,
    clock: { now: () => NOW, sleep: () => Promise.resolve(), timeout: AbortSignal.timeout }
  })

describe('rateLimitWait', () => {
  it.each<[string, number | undefined, string]>([
    ['a deadline that holds the wait and the call after it', NOW + 40_000, 'wait'],
    ['a deadline that does not', NOW + 39_999, 'past-deadline'],
    ['no deadline: the longest wait bounds it', undefined, 'too-long']
  ])('%s: decided by the request option, kept on it', (_name, deadline, decision) => {
    const request = options(deadline)
    expect(request.callLimit).toBeInstanceOf(CallLimit)
    expect(rateLimitWait(request, wait)).toBe(decision)
    expect(request.callLimit.lastDecision).toBe(decision)
  })

  it('two requests of one call each keep their own decision', () => {
    const [first, second] = [options(NOW + 40_000), options(NOW + 40_000)]
    expect(rateLimitWait(first, wait)).toBe('wait')
    expect(second.callLimit.lastDecision).toBeUndefined()
  })

  it('a request without a limit (not made by requestOptions): no deadline', () => {
    expect(rateLimitWait({}, { ...wait, waitMs: 1_000 })).toBe('wait')
    expect(rateLimitWait(undefined, wait)).toBe('too-long')
  })

  it('an aborted request never waits', () => {
    expect(rateLimitWait({ signal: AbortSignal.abort() }, wait)).toBe('aborted')
  })
})
