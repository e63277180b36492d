import { describe, expect, it } from '@jest/globals'
import {
  decideAfterReread,
  decideAnswer,
  type PromoteAnswer,
  retryDelayMs
} from '../../src/promotion.js'
import {
  PromotionCancelledError,
  PromotionFailedError,
  runPromotion
} from '../../src/promote-step.js'

const OURS = '11111111-1111-4111-8111-111111111111'
const PREVIOUS = '22222222-2222-4222-8222-222222222222'
const THIRD = '33333333-3333-4333-8333-333333333333'
const TEMPLATE = 'acme.docker'
const NS = 'coder-tests'

function created(result: string, previous = PREVIOUS, active = OURS): PromoteAnswer {
  return {
    httpStatus: 201,
    message: '',
    promotion: {
      spec: { versionID: OURS },
      status: { result, previousActiveVersionID: previous, activeVersionID: active }
    }
  }
}
const status = (httpStatus: number, message: string): PromoteAnswer => ({ httpStatus, message })

describe('decideAnswer', () => {
  it.each<[string, PromoteAnswer, 'promote' | 'dry-run', string, string]>([
    ['201 Promoted', created('Promoted'), 'promote', 'promoted', ''],
    ['201 AlreadyActive', created('AlreadyActive', OURS), 'promote', 'promoted', ''],
    [
      '201 WouldPromote in a dry run',
      created('WouldPromote', PREVIOUS, PREVIOUS),
      'dry-run',
      'promoted',
      ''
    ],
    ['201 AlreadyActive in a dry run', created('AlreadyActive', OURS), 'dry-run', 'promoted', ''],
    [
      '201 WouldPromote without dry-run',
      created('WouldPromote'),
      'promote',
      'fail',
      'expected Promoted or AlreadyActive'
    ],
    [
      '201 Promoted in a dry run',
      created('Promoted'),
      'dry-run',
      'fail',
      'expected WouldPromote or AlreadyActive'
    ],
    [
      '201 Promoted naming another version',
      created('Promoted', PREVIOUS, THIRD),
      'promote',
      'fail',
      'not the tested version'
    ],
    ['201 without status', { httpStatus: 201, message: '' }, 'promote', 'fail', ''],
    [
      '429',
      status(429, 'Coder rate-limited the activation; nothing was changed'),
      'promote',
      'retry',
      ''
    ],
    [
      '504 not attempted',
      status(
        504,
        `the promotion of version ${OURS} on template "acme.docker" was not attempted: too little of the request time was left`
      ),
      'promote',
      'retry',
      ''
    ],
    [
      '504 other',
      status(504, 'request did not complete within requested timeout - context deadline exceeded'),
      'promote',
      're-read',
      ''
    ],
    [
      '503 could not confirm',
      status(
        503,
        `could not confirm the promotion of version ${OURS}; it may or may not have been applied`
      ),
      'promote',
      're-read',
      ''
    ],
    [
      '503 kube-apiserver',
      status(503, 'the server is currently unable to handle the request'),
      'promote',
      'retry',
      ''
    ],
    [
      '503 control planes',
      status(503, 'no eligible CoderControlPlane in namespace coder-tests'),
      'promote',
      'fail',
      'CoderControlPlane'
    ],
    [
      '409 superseded',
      status(409, `the promotion of version ${OURS} was superseded by a concurrent change`),
      'promote',
      're-read',
      ''
    ],
    [
      '409 not found',
      status(
        409,
        'the template or version was not found in Coder during the activation; nothing was changed'
      ),
      'promote',
      're-read',
      ''
    ],
    ['no answer', status(0, 'socket hang up'), 'promote', 're-read', ''],
    ['500', status(500, 'internal error'), 'promote', 're-read', ''],
    [
      '400 archived',
      status(400, `version ${OURS} of template "acme.docker" is archived`),
      'promote',
      'fail',
      'archived'
    ],
    ['403', status(403, 'forbidden'), 'promote', 'fail', 'resourceNames ["acme.docker"]'],
    [
      '404',
      status(404, 'codertemplates.aggregation.coder.com "acme.docker" not found'),
      'promote',
      'fail',
      'does not exist in Coder'
    ],
    [
      '422',
      status(422, 'spec.versionID: must be the Coder ID (a UUID)'),
      'promote',
      'fail',
      'bug in the action'
    ],
    ['418', status(418, 'teapot'), 'promote', 'fail', 'unexpected']
  ])('%s -> %s', (_, answer, mode, kind, text) => {
    const next = decideAnswer(answer, OURS, mode, TEMPLATE, NS)
    expect(next.kind).toBe(kind)
    if (text) expect(next.kind === 'fail' ? next.message : JSON.stringify(next)).toContain(text)
  })

  it('keeps the server message in a failure', () => {
    const next = decideAnswer(
      status(400, 'spec.versionID is not a version of template "acme.docker"'),
      OURS,
      'promote',
      TEMPLATE,
      NS
    )
    expect(next.kind === 'fail' && next.message).toContain('is not a version of template')
  })
})

describe('decideAfterReread', () => {
  it.each<[string, string | null, string, boolean, string, string]>([
    ['ours active', OURS, PREVIOUS, true, 'promoted', 'Promoted'],
    ['ours active after a superseded answer', OURS, PREVIOUS, false, 'promoted', 'Promoted'],
    ['ours was already active', OURS, OURS, true, 'promoted', 'AlreadyActive'],
    ['previous still active, nothing applied', PREVIOUS, PREVIOUS, true, 'retry', ''],
    [
      'previous active again after ours was superseded',
      PREVIOUS,
      PREVIOUS,
      false,
      'fail',
      'is active again'
    ],
    ['a third version', THIRD, PREVIOUS, true, 'fail', `Another writer activated version ${THIRD}`],
    ['unknown previous and another version', PREVIOUS, '', true, 'fail', 'unknown'],
    ['read failed', null, PREVIOUS, true, 're-read', '']
  ])('%s -> %s', (_, active, previous, retryIfUnchanged, kind, text) => {
    const next = decideAfterReread(active, OURS, previous, 'promote', {
      why: '503',
      retryIfUnchanged
    })
    expect(next.kind).toBe(kind)
    if (text) expect(next.kind === 'fail' ? next.message : JSON.stringify(next)).toContain(text)
    if (next.kind === 'promoted') expect(next.confirmedBy).toBe('re-read')
  })

  it.each([
    [
      '409 superseded',
      409,
      'the promotion of version x was superseded by a concurrent change: version y is active; re-read before retrying',
      false
    ],
    [
      '409 not found',
      409,
      'the template or version x was not found in Coder during the activation; nothing was changed: re-read before retrying',
      true
    ],
    [
      '503 could not confirm',
      503,
      'could not confirm the promotion of version x; it may or may not have been applied',
      true
    ],
    ['no answer', 0, 'socket hang up', true]
  ])('a re-read after %s may retry: %s', (_, httpStatus, message, retry) => {
    const next = decideAnswer({ httpStatus, message }, OURS, 'promote', TEMPLATE, NS)
    expect(next).toMatchObject({ kind: 're-read', retryIfUnchanged: retry })
  })
})
describe('retryDelayMs', () => {
  it('doubles from 1 s and caps at 10 s', () => {
    expect([1, 2, 3, 4, 5, 6].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000, 10000, 10000])
  })
})

describe('runPromotion', () => {
  const noSleep = async (): Promise<void> => {}
  function scripted(answers: PromoteAnswer[], reads: (string | null)[]) {
    const calls: string[] = []
    return {
      calls,
      post: async () => {
        calls.push('post')
        const answer = answers.shift()
        if (!answer) throw new Error('no more answers')
        return answer
      },
      readActiveVersionID: async () => {
        calls.push('read')
        return reads.length > 0 ? (reads.shift() as string | null) : null
      }
    }
  }
  const base = {
    namespace: NS,
    template: TEMPLATE,
    versionID: OURS,
    previousActiveVersionID: PREVIOUS,
    mode: 'promote' as const,
    log: () => {},
    sleep: noSleep
  }

  it('promotes on the first 201', async () => {
    const io = scripted([created('Promoted')], [])
    const result = await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(result).toMatchObject({
      result: 'Promoted',
      confirmedBy: 'answer',
      activeVersionID: OURS
    })
    expect(io.calls).toEqual(['post'])
  })

  it('retries after 429 and a 504 that was not attempted', async () => {
    const io = scripted(
      [status(429, 'rate'), status(504, 'was not attempted'), created('Promoted')],
      []
    )
    const result = await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(result.result).toBe('Promoted')
    expect(io.calls).toEqual(['post', 'post', 'post'])
  })

  it('reads the active version after a 503 and stops when ours is active', async () => {
    const io = scripted([status(503, 'could not confirm')], [OURS])
    const result = await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(result).toMatchObject({ result: 'Promoted', confirmedBy: 're-read' })
    expect(io.calls).toEqual(['post', 'read'])
  })

  it('tries again after a 503 while the previous version is still active', async () => {
    const io = scripted([status(503, 'could not confirm'), created('Promoted')], [PREVIOUS])
    await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(io.calls).toEqual(['post', 'read', 'post'])
  })

  it('never overwrites a third version that another writer activated', async () => {
    const io = scripted([status(409, 'superseded')], [THIRD])
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toThrow(THIRD)
    expect(io.calls).toEqual(['post', 'read'])
  })

  it('does not post again when the previous version is active after a superseded answer', async () => {
    const io = scripted(
      [status(409, 'the promotion was superseded by a concurrent change')],
      [PREVIOUS]
    )
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toThrow('is active again')
    expect(io.calls).toEqual(['post', 'read'])
  })

  it('says the version may be active when attempts run out after unclear answers', async () => {
    const io = scripted([status(503, 'could not confirm')], [])
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toThrow('may or may not be active')
  })

  it('says nothing changed when attempts run out on clear refusals to act', async () => {
    const io = scripted(
      Array.from({ length: 5 }, () => status(429, 'rate')),
      []
    )
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toThrow('Nothing was changed in Coder')
  })

  it('reads again, without posting, when the read fails', async () => {
    const io = scripted([status(0, 'timeout')], [null, OURS])
    const result = await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(result.confirmedBy).toBe('re-read')
    expect(io.calls).toEqual(['post', 'read', 'read'])
  })

  it('gives up after the attempt limit', async () => {
    const io = scripted(
      Array.from({ length: 5 }, () => status(429, 'rate')),
      []
    )
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toBeInstanceOf(PromotionFailedError)
    expect(io.calls).toHaveLength(5)
  })

  it('fails at once on a permanent error', async () => {
    const io = scripted([status(403, 'forbidden')], [])
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toThrow('RBAC')
    expect(io.calls).toEqual(['post'])
  })

  it('never starts a promotion after a cancel', async () => {
    const controller = new AbortController()
    controller.abort()
    const io = scripted([created('Promoted')], [])
    await expect(
      runPromotion({ ...base, ...io, signal: controller.signal })
    ).rejects.toBeInstanceOf(PromotionCancelledError)
    expect(io.calls).toEqual([])
  })

  it('stops retrying when cancelled during the backoff', async () => {
    const controller = new AbortController()
    const io = scripted([status(429, 'rate'), created('Promoted')], [])
    const promise = runPromotion({ ...base, ...io, sleep: undefined, signal: controller.signal })
    setTimeout(() => controller.abort(), 20)
    await expect(promise).rejects.toBeInstanceOf(PromotionCancelledError)
    expect(io.calls).toEqual(['post'])
  })
})
