import { inactivityLimitMs } from '../../../src/kube/watch-stream.js'
import { describe, expect, it } from '@jest/globals'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import {
  advance,
  deadlineOf,
  eventOfWatch,
  eventOfWatchEnd,
  startWaiting
} from '../../../src/kube/watch-state.js'
import type { NextAction, Step, WatchEvent, WatchRules } from '../../../src/kube/watch-state.js'

const NAME = 'docker-v1'
// Times are ms; the sync deadline is 1000, the wait deadline 500 ms after the first sight.
const RULES: WatchRules = {
  isFinal: (t) => t.status?.phase === 'Succeeded',
  syncDeadline: 1000,
  waitTimeoutMs: 500,
  backoff: { initialMs: 100, maxMs: 400 },
  minHealthyWatchMs: 50
}

function testObject(rv: string, phase = 'Running', uid = 'uid-1'): CoderTemplateTest {
  return {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTest',
    metadata: { name: NAME, namespace: 'coder', uid, resourceVersion: rv },
    spec: { controlPlaneRef: { name: 'coder' }, template: 'acme.docker', version: { name: 'v1' } },
    status: { phase }
  } as CoderTemplateTest
}

const got = (object: CoderTemplateTest | null): WatchEvent => ({ type: 'got', object })
const listed = (rv: string, object: CoderTemplateTest | null = null): WatchEvent => ({
  type: 'listed',
  object,
  resourceVersion: rv
})
const event = (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: CoderTemplateTest): WatchEvent => ({
  type,
  object
})
const bookmark = (rv: string): WatchEvent => ({ type: 'BOOKMARK', resourceVersion: rv })
const ended: WatchEvent = { type: 'stream-ended' }
const inactive: WatchEvent = { type: 'inactive' }
const broken: WatchEvent = { type: 'stream-error' }
const tick: WatchEvent = { type: 'tick' }
const gone: WatchEvent = { type: 'ERROR', code: 410 }
const readFailed: WatchEvent = { type: 'read-failed' }

/** Feeds [at, event] pairs from the start; every step, in order. */
function play(events: [number, WatchEvent][]): Step[] {
  const steps: Step[] = []
  let state = startWaiting().state
  for (const [at, e] of events) {
    const step = advance(state, e, at, RULES)
    steps.push(step)
    state = step.state
  }
  return steps
}
const last = (events: [number, WatchEvent][]): Step => play(events).at(-1)!
const watching: [number, WatchEvent][] = [[10, got(testObject('20'))]]

describe('watch-state: the first read', () => {
  it('starts with a GET', () => {
    expect(startWaiting().next).toEqual({ do: 'get' })
  })

  it.each<[string, [number, WatchEvent][], NextAction, CoderTemplateTest | null | undefined]>([
    [
      'a final object is done',
      [[10, got(testObject('20', 'Succeeded'))]],
      { do: 'done', object: testObject('20', 'Succeeded') },
      testObject('20', 'Succeeded')
    ],
    [
      'a final object past every deadline is still done',
      [[5000, got(testObject('20', 'Succeeded'))]],
      { do: 'done', object: testObject('20', 'Succeeded') },
      testObject('20', 'Succeeded')
    ],
    [
      'an object in progress is watched from its resourceVersion',
      [[10, got(testObject('20'))]],
      { do: 'watch', resourceVersion: '20' },
      testObject('20')
    ],
    ['NotFound lists for a current resourceVersion', [[10, got(null)]], { do: 'list' }, null],
    [
      'NotFound past the sync deadline is a sync timeout',
      [[1000, got(null)]],
      { do: 'timeout', kind: 'sync' },
      null
    ],
    [
      'a LIST without the object watches from the list, reporting nothing twice',
      [
        [10, got(null)],
        [20, listed('30')]
      ],
      { do: 'watch', resourceVersion: '30' },
      undefined
    ],
    [
      'a LIST with the object watches from the list',
      [
        [10, got(null)],
        [20, listed('30', testObject('29'))]
      ],
      { do: 'watch', resourceVersion: '30' },
      testObject('29')
    ],
    ['a failed GET backs off', [[10, readFailed]], { do: 'back-off', ms: 100 }, undefined],
    // Its timer cut the read a moment before the deadline: a pause, never a watch step (was an
    // internal error "keep-watching outside a watch").
    [
      'a GET cut by its timer before the deadline backs off',
      [[10, tick]],
      { do: 'back-off', ms: 100 },
      undefined
    ],
    [
      'then reads again',
      [
        [10, readFailed],
        [110, tick]
      ],
      { do: 'get' },
      undefined
    ],
    [
      'a failed LIST is retried as a LIST',
      [
        [10, got(null)],
        [20, readFailed],
        [120, tick]
      ],
      { do: 'list' },
      undefined
    ],
    [
      'a failing read stops at the sync deadline',
      [
        [10, readFailed],
        [1000, tick]
      ],
      { do: 'timeout', kind: 'sync' },
      undefined
    ]
  ])('%s', (_name, events, next, observed) => {
    const step = last(events)
    expect(step.next).toEqual(next)
    expect(step.observed).toEqual(observed)
  })
})

const deleting = {
  ...testObject('23'),
  metadata: { ...testObject('23').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' }
} as CoderTemplateTest

describe('watch-state: events on the watch', () => {
  it.each<[string, [number, WatchEvent][], NextAction]>([
    [
      'a change in progress keeps watching',
      [[20, event('MODIFIED', testObject('21'))]],
      { do: 'keep-watching' }
    ],
    [
      'a final change is done',
      [[20, event('MODIFIED', testObject('21', 'Succeeded'))]],
      { do: 'done', object: testObject('21', 'Succeeded') }
    ],
    ['a bookmark keeps watching', [[20, bookmark('40')]], { do: 'keep-watching' }],
    [
      'a deletion of the seen object ends the wait at once',
      [[20, event('DELETED', testObject('22'))]],
      { do: 'deleted', last: testObject('20') }
    ],
    [
      'a NotFound after the object was seen ends it too',
      [
        [300, broken],
        [400, tick],
        [410, got(null)]
      ],
      { do: 'deleted', last: testObject('20') }
    ],
    [
      'an object being deleted (deletionTimestamp, a finalizer holds it) ends it too',
      [[20, event('MODIFIED', deleting)]],
      { do: 'deleted', last: deleting }
    ],
    ['410 Gone re-lists', [[300, gone]], { do: 'list' }],
    ['another ERROR backs off', [[20, { type: 'ERROR', code: 500 }]], { do: 'back-off', ms: 100 }],
    ['a broken stream backs off', [[20, broken]], { do: 'back-off', ms: 100 }],
    [
      'and then re-reads with a GET',
      [
        [20, broken],
        [120, tick]
      ],
      { do: 'get' }
    ],
    [
      'a clean end after news resumes from the newest resourceVersion',
      [
        [20, bookmark('40')],
        [300, ended]
      ],
      { do: 'watch', resourceVersion: '40' }
    ],
    [
      'an inactivity end after news resumes too',
      [
        [20, event('MODIFIED', testObject('33'))],
        [300, inactive]
      ],
      { do: 'watch', resourceVersion: '33' }
    ],
    [
      'a clean end without news resumes from the object, with no GET',
      [[300, ended]],
      { do: 'watch', resourceVersion: '20' }
    ],
    [
      'an inactivity end without news resumes too, with no GET',
      [[300, inactive]],
      { do: 'watch', resourceVersion: '20' }
    ],
    ['a quick end without news backs off', [[30, ended]], { do: 'back-off', ms: 100 }],
    [
      'a quick 410 without news backs off before the LIST',
      [
        [30, gone],
        [130, tick]
      ],
      { do: 'list' }
    ],
    [
      'a clock tick before the wait deadline keeps watching',
      [[400, tick]],
      { do: 'keep-watching' }
    ],
    ['the wait deadline fires on a quiet watch', [[510, tick]], { do: 'timeout', kind: 'wait' }],
    [
      'a late change in progress is a wait timeout',
      [[600, event('MODIFIED', testObject('21'))]],
      { do: 'timeout', kind: 'wait' }
    ],
    [
      'a late final change is still done',
      [[600, event('MODIFIED', testObject('21', 'Succeeded'))]],
      { do: 'done', object: testObject('21', 'Succeeded') }
    ]
  ])('%s', (_name, events, next) => {
    expect(last([...watching, ...events]).next).toEqual(next)
  })

  it.each<[string, WatchEvent, CoderTemplateTest | null | undefined]>([
    ['an object', event('MODIFIED', testObject('21')), testObject('21')],
    ['a deletion as null', event('DELETED', testObject('22')), null],
    ['not a bookmark', bookmark('40'), undefined],
    ['not a stream end', ended, undefined]
  ])('reports %s', (_name, e, observed) => {
    expect(last([...watching, [20, e]]).observed).toEqual(observed)
  })
})

describe('watch-state: which resourceVersion the next watch starts from', () => {
  it.each<[string, [number, WatchEvent][], string | undefined]>([
    [
      'an idle watch: the last bookmark',
      [
        [20, bookmark('40')],
        [30, bookmark('41')],
        [300, ended]
      ],
      '41'
    ],
    [
      'bookmark after bookmark, across watches',
      [
        [20, bookmark('40')],
        [100, ended],
        [120, bookmark('45')],
        [200, ended]
      ],
      '45'
    ],
    [
      'after a quiet watch the GET of the same object keeps the newer one',
      [
        [20, bookmark('40')],
        [300, ended],
        [400, ended],
        [410, got(testObject('20'))]
      ],
      '40'
    ],
    [
      'after a quiet watch a changed object is watched from its own',
      [
        [20, bookmark('40')],
        [300, ended],
        [400, ended],
        [410, got(testObject('50'))]
      ],
      '50'
    ],
    [
      'a deletion moves it on',
      [
        [20, event('DELETED', testObject('22'))],
        [300, ended]
      ],
      '22'
    ],
    [
      '410 Gone: the LIST gives it',
      [
        [20, bookmark('40')],
        [300, gone],
        [310, listed('90', testObject('20'))]
      ],
      '90'
    ]
  ])('%s', (_name, events, resourceVersion) => {
    expect(last([...watching, ...events]).next).toEqual({ do: 'watch', resourceVersion })
  })

  it('a re-created object (new uid) after a quiet watch is watched from its own version', () => {
    const steps = play([
      ...watching,
      [20, bookmark('40')],
      [300, ended],
      [400, ended],
      [410, got(testObject('20', 'Running', 'uid-2'))]
    ])
    expect(steps.at(-1)?.next).toEqual({ do: 'watch', resourceVersion: '20' })
  })
})

describe('watch-state: the object followed', () => {
  it('is a new object once deleted and re-created with a new uid; the first sight stays', () => {
    const steps = play([
      ...watching,
      [20, event('DELETED', testObject('22'))],
      [30, event('ADDED', testObject('23', 'Pending', 'uid-2'))]
    ])
    const deleted = steps[1]!.state
    expect(deleted).toMatchObject({ present: false, uid: 'uid-1', last: testObject('20') })
    const recreated = steps[2]!.state
    expect(recreated).toMatchObject({
      present: true,
      uid: 'uid-2',
      last: testObject('23', 'Pending', 'uid-2')
    })
    expect(recreated.firstSeenAt).toBe(10)
  })

  it('ends at once on a deletion found by the LIST after a 410, naming the last object', () => {
    const steps = play([...watching, [300, gone], [310, listed('90')]])
    expect(steps.at(-1)).toMatchObject({
      next: { do: 'deleted', last: { metadata: { resourceVersion: '20' } } },
      observed: null
    })
  })

  it('ends on a deletion even past the deadline: the deletion is the news, not the timeout', () => {
    const steps = play([...watching, [5000, event('DELETED', testObject('22'))]])
    expect(steps.at(-1)!.next).toMatchObject({ do: 'deleted' })
  })

  it.each<[string, [number, WatchEvent][], number]>([
    ['never seen: the sync deadline', [[10, got(null)]], 1000],
    [
      'seen: the wait deadline from the first sight',
      [
        [10, got(null)],
        [20, listed('30')],
        [200, event('ADDED', testObject('31'))]
      ],
      700
    ],
    [
      'later changes do not move it',
      [
        [10, got(testObject('20'))],
        [300, event('MODIFIED', testObject('21'))]
      ],
      510
    ]
  ])('deadline: %s', (_name, events, deadline) => {
    expect(deadlineOf(last(events).state, RULES)).toBe(deadline)
  })
})

describe('watch-state: backoff', () => {
  it.each<[string, [number, WatchEvent][], NextAction]>([
    [
      'doubles',
      [
        [10, readFailed],
        [110, tick],
        [120, readFailed]
      ],
      { do: 'back-off', ms: 200 }
    ],
    [
      'is capped',
      [
        [10, readFailed],
        [20, tick],
        [30, readFailed],
        [40, tick],
        [50, readFailed],
        [60, tick],
        [70, readFailed]
      ],
      { do: 'back-off', ms: 400 }
    ],
    [
      'survives a good read',
      [
        [10, readFailed],
        [110, tick],
        [120, got(testObject('20'))],
        [130, broken]
      ],
      { do: 'back-off', ms: 200 }
    ],
    [
      'resets after a healthy watch',
      [
        [10, readFailed],
        [110, tick],
        [120, got(testObject('20'))],
        [400, ended],
        [410, got(testObject('20'))],
        [420, broken]
      ],
      { do: 'back-off', ms: 100 }
    ]
  ])('%s', (_name, events, next) => {
    expect(last(events).next).toEqual(next)
  })
})

describe('watch-state: client-node callbacks as events', () => {
  it.each<[string, string, unknown, WatchEvent | undefined]>([
    ['ADDED of the test', 'ADDED', testObject('1'), event('ADDED', testObject('1'))],
    ['MODIFIED of the test', 'MODIFIED', testObject('2'), event('MODIFIED', testObject('2'))],
    ['DELETED of the test', 'DELETED', testObject('3'), event('DELETED', testObject('3'))],
    ['another object', 'MODIFIED', { ...testObject('4'), metadata: { name: 'other' } }, undefined],
    ['an unknown type', 'SURPRISE', testObject('5'), undefined],
    ['a bookmark', 'BOOKMARK', { metadata: { resourceVersion: '77' } }, bookmark('77')],
    ['410 Gone', 'ERROR', { kind: 'Status', code: 410, reason: 'Expired' }, gone],
    ['another ERROR', 'ERROR', { kind: 'Status', code: 500 }, { type: 'ERROR', code: 500 }]
  ])('%s', (_name, type, object, expected) => {
    expect(eventOfWatch(NAME, type, object)).toEqual(expected)
  })

  const withStatus = (statusCode: number): Error =>
    Object.assign(new Error('Forbidden'), { statusCode })
  it.each<[string, unknown, ReturnType<typeof eventOfWatchEnd>]>([
    ['a clean end', null, ended],
    ['the inactivity timeout', new DOMException('timed out', 'TimeoutError'), inactive],
    ['an HTTP 410 answer', withStatus(410), gone],
    ['an HTTP 403 answer', withStatus(403), { type: 'refused', status: 403, detail: 'Forbidden' }],
    ['an HTTP 401 answer', withStatus(401), { type: 'refused', status: 401, detail: 'Forbidden' }],
    ['an HTTP 500 answer', withStatus(500), broken],
    ['a dropped connection', new TypeError('terminated'), broken]
  ])('done: %s', (_name, err, expected) => {
    expect(eventOfWatchEnd(err)).toEqual(expected)
  })
})

describe('watch-stream: the client-side inactivity limit', () => {
  it.each([1, 60, 300, 3600])('is above timeoutSeconds = %i', (timeoutSeconds) => {
    expect(inactivityLimitMs(timeoutSeconds)).toBeGreaterThan(timeoutSeconds * 1000)
  })
})
