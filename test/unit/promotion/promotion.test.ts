import { describe, expect, it } from '@jest/globals'
import type { KubeStatus } from '../../../src/objects/coder-k8s.js'
import {
  decideAfterReread,
  decideAnswer,
  type NextStep,
  type PromoteAnswer,
  retryDelayMs
} from '../../../src/promotion/answer.js'
import {
  PromotionCancelledError,
  PromotionFailedError,
  PromotionRefusedError,
  runPromotion
} from '../../../src/promotion/retry.js'
import type { VersionFacts } from '../../../src/promotion/guard.js'
import { FakeClock } from '../../timing/fake-clock.js'

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
/** A proxy's page, plain text or a transport error: no metav1.Status. */
const status = (httpStatus: number, message: string): PromoteAnswer => ({ httpStatus, message })
/** An error answer with its metav1.Status, as postPromotion fills it. */
const kube = (
  code: number,
  reason: string,
  message: string,
  details?: KubeStatus['details']
): PromoteAnswer => ({
  httpStatus: code,
  message,
  status: { kind: 'Status', code, reason, message, ...(details ? { details } : {}) }
})

// coder-k8s docs/reference/aggregated-api-behavior.md, the error table: exact texts for version OURS of acme.docker.
const NOT_ATTEMPTED = `the promotion of version ${OURS} on template "${TEMPLATE}" was not attempted: too little of the request time was left after the lookups; nothing was sent to Coder, so it is safe to try again`
const NOT_FOUND_NOTHING_CHANGED = `the template or version ${OURS} was not found in Coder during the activation; nothing was changed: re-read before retrying`
const SUPERSEDED = `the promotion of version ${OURS} was superseded by a concurrent change: version ${THIRD} is active; re-read before retrying`
const COULD_NOT_CONFIRM = `could not confirm the promotion of version ${OURS} on template "${TEMPLATE}"; it may or may not have been applied: re-read the template before retrying`
const CONFLICT_PREFIX = `Operation cannot be fulfilled on codertemplates.aggregation.coder.com "${TEMPLATE}": `
const UNREACHABLE = 'the server is currently unable to handle the request'
const NO_CONTROL_PLANE = `no eligible CoderControlPlane instances found in namespace "${NS}"`
const MULTIPLE = `multiple eligible CoderControlPlane instances in namespace "${NS}"; multi-instance support is planned`
const RATE_LIMITED = 'Coder rate-limited the activation; nothing was changed'
const PROXY_PAGE = (code: number, words: string): string =>
  `<html>\n<head><title>${code} Service Temporarily Unavailable</title></head>\n<body><center><h1>${code}</h1></center>\n<p>${words}</p>\n<hr><center>nginx</center>\n</body>\n</html>`

type Expected =
  | { kind: 'promoted' | 'retry' }
  | { kind: 're-read'; retryIfUnchanged: boolean }
  | { kind: 'fail'; text: string }
const retry: Expected = { kind: 'retry' }
const reRead = (retryIfUnchanged: boolean): Expected => ({ kind: 're-read', retryIfUnchanged })
const failWith = (text: string): Expected => ({ kind: 'fail', text })
const BAD_INPUT = 'check that the import succeeded'
const CONTROL_PLANE = 'no usable CoderControlPlane serves this namespace'

function expectStep(next: NextStep, expected: Expected): void {
  expect(next.kind).toBe(expected.kind)
  if (expected.kind === 're-read' && next.kind === 're-read') {
    expect(next.retryIfUnchanged).toBe(expected.retryIfUnchanged)
  }
  if (expected.kind === 'fail' && next.kind === 'fail')
    expect(next.message).toContain(expected.text)
}

describe('decideAnswer: 201 results', () => {
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
    ['201 without status', { httpStatus: 201, message: '' }, 'promote', 'fail', '']
  ])('%s -> %s', (_, answer, mode, kind, text) => {
    const next = decideAnswer(answer, OURS, mode, TEMPLATE, NS)
    expect(next.kind).toBe(kind)
    if (text) expect(next.kind === 'fail' ? next.message : JSON.stringify(next)).toContain(text)
  })
})

describe('decideAnswer: every error row of §2.4', () => {
  it.each<[string, PromoteAnswer, Expected]>([
    [
      '400 invalid template name',
      kube(
        400,
        'BadRequest',
        `invalid template name "acme.x.y": expected "<organization>.<template>"`
      ),
      failWith(BAD_INPUT)
    ],
    [
      '400 body name mismatch',
      kube(
        400,
        'BadRequest',
        `metadata.name "other" must be empty or match the template name "${TEMPLATE}"`
      ),
      failWith(BAD_INPUT)
    ],
    [
      '400 canonical name hint',
      kube(
        400,
        'BadRequest',
        `invalid template name "Acme.docker": use the canonical name "${TEMPLATE}"`
      ),
      failWith(BAD_INPUT)
    ],
    [
      '400 not a version of the template',
      kube(400, 'BadRequest', `spec.versionID is not a version of template "${TEMPLATE}"`),
      failWith('is not a version of template')
    ],
    [
      '400 archived',
      kube(
        400,
        'BadRequest',
        `version ${OURS} of template "${TEMPLATE}" is archived; unarchive it in Coder before promoting it`
      ),
      failWith('is archived')
    ],
    [
      '400 import not succeeded',
      kube(
        400,
        'BadRequest',
        `version ${OURS} of template "${TEMPLATE}" cannot be promoted: its import job is "failed"; only versions whose import succeeded can be promoted`
      ),
      failWith(BAD_INPUT)
    ],
    [
      '400 Coder refused the activation, "nothing was changed" (no retry)',
      kube(
        400,
        'BadRequest',
        `Coder refused to activate version ${OURS} on template "${TEMPLATE}" (status 403); nothing was changed: check that its import succeeded and that it is not archived`
      ),
      failWith(BAD_INPUT)
    ],
    [
      '403 Forbidden',
      kube(
        403,
        'Forbidden',
        `codertemplates.aggregation.coder.com "${TEMPLATE}" is forbidden: User "ci" cannot create resource "codertemplates/promote" in API group "aggregation.coder.com" in the namespace "${NS}"`,
        { name: TEMPLATE, group: 'aggregation.coder.com', kind: 'codertemplates' }
      ),
      failWith('resourceNames ["acme.docker"]')
    ],
    [
      '404 org or template missing in Coder',
      kube(404, 'NotFound', `codertemplates.aggregation.coder.com "${TEMPLATE}" not found`, {
        name: TEMPLATE,
        group: 'aggregation.coder.com',
        kind: 'codertemplates'
      }),
      failWith('does not exist in Coder')
    ],
    ['409 superseded', kube(409, 'Conflict', SUPERSEDED), reRead(false)],
    [
      '409 superseded, with the NewConflict prefix',
      kube(409, 'Conflict', CONFLICT_PREFIX + SUPERSEDED),
      reRead(false)
    ],
    [
      '409 not found, nothing was changed',
      kube(409, 'Conflict', NOT_FOUND_NOTHING_CHANGED),
      reRead(true)
    ],
    [
      '409 not found, nothing was changed, with the NewConflict prefix',
      kube(409, 'Conflict', CONFLICT_PREFIX + NOT_FOUND_NOTHING_CHANGED),
      reRead(true)
    ],
    [
      '422 spec.versionID',
      kube(
        422,
        'Invalid',
        `CoderTemplateVersionPromotion.aggregation.coder.com "${TEMPLATE}" is invalid: spec.versionID: Invalid value: "x": must be the Coder ID (a UUID) of a template version`
      ),
      failWith('bug in the action')
    ],
    [
      '422 dryRun',
      kube(
        422,
        'Invalid',
        `CoderTemplateVersionPromotion.aggregation.coder.com "${TEMPLATE}" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"`
      ),
      failWith('bug in the action')
    ],
    ['429 Coder rate limit', kube(429, 'TooManyRequests', RATE_LIMITED), retry],
    ['503 could not confirm', kube(503, 'ServiceUnavailable', COULD_NOT_CONFIRM), reRead(true)],
    ['504 not attempted', kube(504, 'Timeout', NOT_ATTEMPTED), retry],
    [
      '504 not attempted, with the NewTimeoutError prefix',
      kube(504, 'Timeout', `Timeout: ${NOT_ATTEMPTED}`),
      retry
    ],
    [
      '504 from a lookup or the API server',
      kube(
        504,
        'Timeout',
        'Timeout: request did not complete within requested timeout - context deadline exceeded'
      ),
      reRead(true)
    ],
    [
      '503 kube-apiserver cannot reach the aggregated API',
      kube(503, 'ServiceUnavailable', UNREACHABLE),
      retry
    ],
    [
      '503 no eligible CoderControlPlane',
      kube(503, 'ServiceUnavailable', NO_CONTROL_PLANE),
      failWith(CONTROL_PLANE)
    ],
    [
      '503 standalone without --coder-namespace',
      kube(
        503,
        'ServiceUnavailable',
        'static coder client provider is not namespace-pinned; configure --coder-namespace'
      ),
      failWith(CONTROL_PLANE)
    ],
    [
      'other: multiple eligible control planes (400)',
      kube(400, 'BadRequest', MULTIPLE),
      failWith(CONTROL_PLANE)
    ],
    [
      'other: multiple eligible control planes, wrapped (500, no reason)',
      kube(500, '', `resolve codersdk client for namespace "${NS}": ${MULTIPLE}`),
      failWith(CONTROL_PLANE)
    ],
    ['no answer', status(0, 'socket hang up'), reRead(true)],
    ['500', kube(500, 'InternalError', 'Internal error occurred: boom'), reRead(true)],
    ['502 from a gateway', status(502, 'Bad Gateway'), reRead(true)],
    [
      '404 of the API server: the subresource is not served',
      kube(404, 'NotFound', 'the server could not find the requested resource'),
      failWith('is not served here')
    ],
    ['418', status(418, 'teapot'), failWith('unexpected')]
  ])('%s', (_, answer, expected) => {
    expectStep(decideAnswer(answer, OURS, 'promote', TEMPLATE, NS), expected)
  })

  it('keeps the server message in a failure', () => {
    const next = decideAnswer(
      kube(400, 'BadRequest', `spec.versionID is not a version of template "${TEMPLATE}"`),
      OURS,
      'promote',
      TEMPLATE,
      NS
    )
    expect(next.kind === 'fail' && next.message).toContain('is not a version of template')
  })

  it('matches our version ID in the lower case the server prints', () => {
    const next = decideAnswer(
      kube(504, 'Timeout', NOT_ATTEMPTED),
      OURS.toUpperCase(),
      'promote',
      TEMPLATE,
      NS
    )
    expect(next.kind).toBe('retry')
  })
})

// Text from another system is data: a message that merely contains the documented words, or that
// is not the Status of the API server, never turns an unknown outcome into a retry or a failure.
describe('decideAnswer: texts that only look like a documented answer take the safe way', () => {
  it.each<[string, PromoteAnswer, Expected, string?]>([
    [
      '504 "not attempted" for another version',
      kube(504, 'Timeout', NOT_ATTEMPTED.replace(OURS, THIRD)),
      reRead(true)
    ],
    [
      '504 "not attempted" for another template',
      kube(504, 'Timeout', NOT_ATTEMPTED.replace(`"${TEMPLATE}"`, '"acme.other"')),
      reRead(true)
    ],
    [
      '504 "not attempted" embedded in a longer message',
      kube(504, 'Timeout', `Timeout: upstream said: ${NOT_ATTEMPTED}`),
      reRead(true)
    ],
    [
      '504 "not attempted" with a trailing newline',
      kube(504, 'Timeout', `${NOT_ATTEMPTED}\n`),
      reRead(true)
    ],
    [
      '504 "not attempted" with another reason',
      kube(504, 'InternalError', NOT_ATTEMPTED),
      reRead(true)
    ],
    ['504 "not attempted" as plain text, not a Status', status(504, NOT_ATTEMPTED), reRead(true)],
    [
      '504 whose Status code disagrees with the HTTP status',
      { ...kube(503, 'Timeout', NOT_ATTEMPTED), httpStatus: 504 },
      reRead(true)
    ],
    [
      '504 page of a proxy that quotes a template named "not attempted"',
      status(504, PROXY_PAGE(504, 'the promotion of template "not attempted" was not attempted')),
      reRead(true)
    ],
    [
      '503 page of a proxy with every documented word in it',
      status(503, PROXY_PAGE(503, `${UNREACHABLE}; ${NO_CONTROL_PLANE}; standalone`)),
      reRead(true)
    ],
    [
      '503 could not confirm for a template named "standalone"',
      kube(503, 'ServiceUnavailable', COULD_NOT_CONFIRM.replace(TEMPLATE, 'acme.standalone')),
      reRead(true),
      'acme.standalone'
    ],
    [
      '503 that begins with the kube-apiserver text',
      kube(503, 'ServiceUnavailable', `${UNREACHABLE}: ${COULD_NOT_CONFIRM}`),
      reRead(true)
    ],
    [
      '503 that quotes the kube-apiserver text',
      kube(503, 'ServiceUnavailable', `${COULD_NOT_CONFIRM} ("${UNREACHABLE}")`),
      reRead(true)
    ],
    [
      '503 kube-apiserver text with another reason',
      kube(503, 'InternalError', UNREACHABLE),
      reRead(true)
    ],
    [
      '503 no eligible control plane in another namespace',
      kube(503, 'ServiceUnavailable', NO_CONTROL_PLANE.replace(NS, 'other')),
      reRead(true)
    ],
    [
      '503 that mentions an eligible CoderControlPlane',
      kube(503, 'ServiceUnavailable', `${COULD_NOT_CONFIRM}; ${NO_CONTROL_PLANE}`),
      reRead(true)
    ],
    [
      '409 that says "nothing was changed" in another text',
      kube(409, 'Conflict', `${CONFLICT_PREFIX}the object has been modified; nothing was changed`),
      reRead(false)
    ],
    [
      '409 "nothing was changed" for another version',
      kube(409, 'Conflict', NOT_FOUND_NOTHING_CHANGED.replace(OURS, THIRD)),
      reRead(false)
    ],
    [
      '409 "nothing was changed" behind the prefix of another template',
      kube(
        409,
        'Conflict',
        CONFLICT_PREFIX.replace(TEMPLATE, 'acme.other') + NOT_FOUND_NOTHING_CHANGED
      ),
      reRead(false)
    ],
    [
      '409 "nothing was changed" as plain text',
      status(409, NOT_FOUND_NOTHING_CHANGED),
      reRead(false)
    ],
    ['429 page of a proxy', status(429, PROXY_PAGE(429, RATE_LIMITED)), reRead(true)],
    ['429 Status with another reason', kube(429, 'InternalError', RATE_LIMITED), reRead(true)],
    ['429 Status without a reason', kube(429, '', RATE_LIMITED), reRead(true)],
    [
      '500 wrapped with another cause',
      kube(500, '', `resolve codersdk client for namespace "${NS}": dial tcp: i/o timeout`),
      reRead(true)
    ],
    [
      '400 for a template named "standalone" is no control-plane failure',
      kube(400, 'BadRequest', 'spec.versionID is not a version of template "acme.standalone"'),
      failWith(BAD_INPUT)
    ],
    [
      '403 page of a proxy is no RBAC denial',
      status(403, PROXY_PAGE(403, 'Forbidden')),
      failWith('proxy')
    ],
    [
      '404 naming another template is a missing API',
      kube(404, 'NotFound', 'codertemplates.aggregation.coder.com "acme.other" not found', {
        name: 'acme.other',
        group: 'aggregation.coder.com',
        kind: 'codertemplates'
      }),
      failWith('is not served here')
    ],
    [
      'the display message is never classified',
      { ...kube(504, 'Timeout', 'Timeout: request did not complete'), message: NOT_ATTEMPTED },
      reRead(true)
    ]
  ])('%s', (_, answer, expected, template = TEMPLATE) => {
    expectStep(decideAnswer(answer, OURS, 'promote', template, NS), expected)
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
})

// A dry run changes nothing: our version active on the re-read was active before, whatever the
// start said; the previous version still active is the expected state, not another writer's.
describe('decideAfterReread in a dry run', () => {
  it.each<[string, string | null, string, boolean, string, string]>([
    ['ours active', OURS, PREVIOUS, true, 'promoted', 'AlreadyActive'],
    ['ours active, the start unknown', OURS, '', true, 'promoted', 'AlreadyActive'],
    ['ours was already active', OURS, OURS, false, 'promoted', 'AlreadyActive'],
    ['previous still active, nothing applied', PREVIOUS, PREVIOUS, true, 'retry', 'still active'],
    ['a third version', THIRD, PREVIOUS, true, 'fail', `Another writer activated version ${THIRD}`],
    ['unknown previous and another version', PREVIOUS, '', true, 'fail', 'unknown'],
    ['read failed', null, PREVIOUS, false, 're-read', 'could not be read']
  ])('%s -> %s', (_, active, previous, retryIfUnchanged, kind, text) => {
    const next = decideAfterReread(active, OURS, previous, 'dry-run', {
      why: '503',
      retryIfUnchanged
    })
    expect(next.kind).toBe(kind)
    expect(JSON.stringify(next)).toContain(text)
    if (next.kind === 're-read') expect(next.retryIfUnchanged).toBe(retryIfUnchanged)
    if (next.kind === 'promoted') {
      expect(next.result).toBe('AlreadyActive')
      expect([next.confirmedBy, next.activeVersionID, next.previousActiveVersionID]).toEqual([
        're-read',
        OURS,
        previous
      ])
    }
  })
})

describe('retryDelayMs', () => {
  it('doubles from 1 s and caps at 10 s', () => {
    expect([1, 2, 3, 4, 5, 6].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000, 10000, 10000])
  })
})

describe('runPromotion', () => {
  const noSleep = async (): Promise<void> => {}
  const ours: VersionFacts = { id: OURS, name: 'v2.0.0', createdAt: '2026-12-02T00:00:00Z' }
  const previous: VersionFacts = { id: PREVIOUS, name: 'v1.0.0', createdAt: '2026-12-01T00:00:00Z' }
  const third: VersionFacts = { id: THIRD, name: 'v0.8.0', createdAt: '2026-11-01T00:00:00Z' }
  const THIRD_TEXT = `Another writer activated version ${THIRD} while this run promoted v2.0.0 (${OURS}); the version active before the promote request was ${PREVIOUS}. The gate never overwrites another writer: decide which version should be active, and promote it again.`
  /**
   * `read` is the aggregated API's re-read after an unclear answer; `guard-read` the read of the
   * active version from Coder before a re-send (the previous version when the script has no more).
   */
  function scripted(
    answers: PromoteAnswer[],
    reads: (string | null)[],
    guardReads: (VersionFacts | null | Error)[] = []
  ) {
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
      },
      readActiveVersion: async () => {
        calls.push('guard-read')
        const next = guardReads.length > 0 ? guardReads.shift()! : previous
        if (next instanceof Error) throw next
        return next
      }
    }
  }
  const base = {
    namespace: NS,
    template: TEMPLATE,
    versionID: OURS,
    previousActiveVersionID: PREVIOUS,
    request: 'promote' as const,
    guard: { ours, starting: previous, allowRollback: false },
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

  it('retries after 429 and a 504 that was not attempted, reading before each re-send', async () => {
    const io = scripted(
      [
        kube(429, 'TooManyRequests', RATE_LIMITED),
        kube(504, 'Timeout', NOT_ATTEMPTED),
        created('Promoted')
      ],
      []
    )
    const result = await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(result.result).toBe('Promoted')
    expect(io.calls).toEqual(['post', 'guard-read', 'post', 'guard-read', 'post'])
  })

  it('pauses 1 s, 2 s, 4 s, 8 s between its five attempts (on the clock it is given)', async () => {
    const clock = new FakeClock()
    const busy = kube(429, 'TooManyRequests', RATE_LIMITED)
    const io = scripted([busy, busy, busy, busy, busy], [])
    const promise = runPromotion({
      ...base,
      ...io,
      sleep: clock.sleep,
      signal: new AbortController().signal
    })
    await expect(promise).rejects.toBeInstanceOf(PromotionFailedError)
    expect(clock.slept).toEqual([1000, 2000, 4000, 8000])
  })

  // Another writer acts during the pause before a re-send: the guard, read again, decides.
  it.each([
    ['a 429', kube(429, 'TooManyRequests', RATE_LIMITED)],
    ['a 504 not attempted', kube(504, 'Timeout', NOT_ATTEMPTED)],
    ['a 503 of the API server', kube(503, 'ServiceUnavailable', UNREACHABLE)]
  ])(
    'refuses, naming the version, when another writer activated one after %s',
    async (_, answer) => {
      const io = scripted([answer, created('Promoted')], [], [third])
      const promise = runPromotion({ ...base, ...io, signal: new AbortController().signal })
      await expect(promise).rejects.toBeInstanceOf(PromotionRefusedError)
      await expect(promise).rejects.toThrow(`Another writer activated version ${THIRD}`)
      expect(io.calls).toEqual(['post', 'guard-read'])
    }
  )

  it('carries the active version and the guard reason in the refusal', async () => {
    const io = scripted([kube(429, 'TooManyRequests', RATE_LIMITED)], [], [third])
    const error = await runPromotion({
      ...base,
      ...io,
      signal: new AbortController().signal
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PromotionRefusedError)
    const { decision } = error as PromotionRefusedError
    expect([decision.why, decision.active]).toEqual(['changed', third])
    expect(decision.message).toBe(THIRD_TEXT)
  })

  it('stops as AlreadyActive when ours became active during the pause after a 429', async () => {
    const io = scripted([kube(429, 'TooManyRequests', RATE_LIMITED)], [], [ours])
    const result = await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(result).toMatchObject({ result: 'AlreadyActive', confirmedBy: 're-read' })
    expect(io.calls).toEqual(['post', 'guard-read'])
  })

  it('counts ours active before a re-send as Promoted when an earlier answer was unclear', async () => {
    const io = scripted([kube(503, 'ServiceUnavailable', COULD_NOT_CONFIRM)], [PREVIOUS], [ours])
    const result = await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(result).toMatchObject({ result: 'Promoted', confirmedBy: 're-read' })
    expect(io.calls).toEqual(['post', 'read', 'guard-read'])
  })

  it('refuses a third version found before the re-send after an unclear answer', async () => {
    const io = scripted([kube(503, 'ServiceUnavailable', COULD_NOT_CONFIRM)], [PREVIOUS], [third])
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toBeInstanceOf(PromotionRefusedError)
    expect(io.calls).toEqual(['post', 'read', 'guard-read'])
  })

  it('refuses a third version found by a re-read after one that failed', async () => {
    const io = scripted(
      [kube(503, 'ServiceUnavailable', COULD_NOT_CONFIRM)],
      [null, THIRD],
      [third]
    )
    const promise = runPromotion({ ...base, ...io, signal: new AbortController().signal })
    await expect(promise).rejects.toBeInstanceOf(PromotionRefusedError)
    await expect(promise).rejects.toThrow(THIRD_TEXT)
    expect(io.calls).toEqual(['post', 'read', 'read'])
  })

  // One decision, one text: whichever read of the loop sees the third version.
  it.each([
    ['the re-read right after an unclear answer', [kube(409, 'Conflict', SUPERSEDED)], [THIRD], []],
    [
      'a later re-read, after one that failed',
      [kube(503, 'ServiceUnavailable', COULD_NOT_CONFIRM)],
      [null, THIRD],
      []
    ],
    [
      'the read before a re-send after an unclear answer',
      [kube(503, 'ServiceUnavailable', COULD_NOT_CONFIRM)],
      [PREVIOUS],
      [third]
    ],
    [
      'the read before a re-send after a 429',
      [kube(429, 'TooManyRequests', RATE_LIMITED)],
      [],
      [third]
    ]
  ])(
    'refuses a third version found by %s, with the same text',
    async (_, answers, reads, guardReads) => {
      const io = scripted(answers, reads, guardReads)
      const error = await runPromotion({
        ...base,
        ...io,
        signal: new AbortController().signal
      }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(PromotionRefusedError)
      expect((error as PromotionRefusedError).decision.message).toBe(THIRD_TEXT)
      expect(io.calls.filter((c) => c === 'post')).toHaveLength(1)
    }
  )

  it.each([
    ['the read fails', new Error('connection reset')],
    ['the template is gone', null]
  ])('sends nothing while the guard cannot decide (%s)', async (_, unread) => {
    const io = scripted(
      [kube(429, 'TooManyRequests', RATE_LIMITED), created('Promoted')],
      [],
      [unread, previous]
    )
    const result = await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(result.result).toBe('Promoted')
    expect(io.calls).toEqual(['post', 'guard-read', 'guard-read', 'post'])
  })

  it('sends nothing more when every read before a re-send fails', async () => {
    const io = scripted(
      [kube(429, 'TooManyRequests', RATE_LIMITED)],
      [],
      Array.from({ length: 4 }, () => new Error('connection reset'))
    )
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toThrow('did not complete after 5 attempts')
    expect(io.calls.filter((c) => c === 'post')).toHaveLength(1)
  })

  it('sends nothing after a cancel during the read before a re-send', async () => {
    const controller = new AbortController()
    const io = scripted([kube(429, 'TooManyRequests', RATE_LIMITED), created('Promoted')], [])
    io.readActiveVersion = async () => {
      io.calls.push('guard-read')
      controller.abort()
      return previous
    }
    await expect(
      runPromotion({ ...base, ...io, signal: controller.signal })
    ).rejects.toBeInstanceOf(PromotionCancelledError)
    expect(io.calls).toEqual(['post', 'guard-read'])
  })

  it('reads the active version after a 503 and stops when ours is active', async () => {
    const io = scripted([kube(503, 'ServiceUnavailable', COULD_NOT_CONFIRM)], [OURS])
    const result = await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(result).toMatchObject({ result: 'Promoted', confirmedBy: 're-read' })
    expect(io.calls).toEqual(['post', 'read'])
  })

  it('tries again after a 503 while the previous version is still active', async () => {
    const io = scripted(
      [kube(503, 'ServiceUnavailable', COULD_NOT_CONFIRM), created('Promoted')],
      [PREVIOUS]
    )
    await runPromotion({ ...base, ...io, signal: new AbortController().signal })
    expect(io.calls).toEqual(['post', 'read', 'guard-read', 'post'])
  })

  it('never overwrites a third version that another writer activated', async () => {
    const io = scripted([kube(409, 'Conflict', SUPERSEDED)], [THIRD])
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toThrow(THIRD)
    expect(io.calls).toEqual(['post', 'read'])
  })

  it('does not post again when the previous version is active after a superseded answer', async () => {
    const io = scripted([kube(409, 'Conflict', SUPERSEDED)], [PREVIOUS])
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toThrow('is active again')
    expect(io.calls).toEqual(['post', 'read'])
  })

  it('says the version may be active when attempts run out after unclear answers', async () => {
    const io = scripted([kube(503, 'ServiceUnavailable', COULD_NOT_CONFIRM)], [])
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toThrow('may or may not be active')
  })

  it('says nothing changed when attempts run out on clear refusals to act', async () => {
    const io = scripted(
      Array.from({ length: 5 }, () => kube(429, 'TooManyRequests', RATE_LIMITED)),
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
      Array.from({ length: 5 }, () => kube(429, 'TooManyRequests', RATE_LIMITED)),
      []
    )
    await expect(
      runPromotion({ ...base, ...io, signal: new AbortController().signal })
    ).rejects.toBeInstanceOf(PromotionFailedError)
    expect(io.calls.filter((c) => c === 'post')).toHaveLength(5)
    expect(io.calls.slice(0, 3)).toEqual(['post', 'guard-read', 'post'])
    // Moved down from e2e ("gives up after 5 attempts"), which slept through 1 + 2 + 4 + 8 s.
    await expect(
      runPromotion({
        ...base,
        ...scripted(
          Array.from({ length: 5 }, () => kube(429, 'TooManyRequests', RATE_LIMITED)),
          []
        ),
        signal: new AbortController().signal
      })
    ).rejects.toThrow('did not complete after 5 attempts')
  })

  it('fails at once on a permanent error', async () => {
    const io = scripted([kube(403, 'Forbidden', 'forbidden')], [])
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
    const clock = new FakeClock(0, () => controller.abort(new Error('SIGTERM')))
    const io = scripted([kube(429, 'TooManyRequests', RATE_LIMITED), created('Promoted')], [])
    const promise = runPromotion({ ...base, ...io, sleep: clock.sleep, signal: controller.signal })
    await expect(promise).rejects.toBeInstanceOf(PromotionCancelledError)
    await expect(promise).rejects.toThrow('nothing was promoted')
    expect(io.calls).toEqual(['post'])
  })

  it('says the outcome is unknown when cancelled in the pause after an unclear answer', async () => {
    const controller = new AbortController()
    const clock = new FakeClock(0, () => controller.abort())
    // No answer, and the re-read finds the previous version still active: a retry after a pause.
    const io = scripted([{ httpStatus: 0, message: 'socket hang up' }], [PREVIOUS])
    const promise = runPromotion({ ...base, ...io, sleep: clock.sleep, signal: controller.signal })
    await expect(promise).rejects.toThrow('may or may not be active')
    expect(io.calls).toEqual(['post', 'read'])
  })
})
