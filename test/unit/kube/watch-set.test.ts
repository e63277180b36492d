// The wait for a set of tests as a reducer: one list, one watch for all of them; deadlines per test.
import { describe, expect, it } from '@jest/globals'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import {
  advanceSet,
  hasEnded,
  pendingNames,
  type SetAction,
  type SetEvent,
  type SetRules,
  type SetState,
  setDeadline,
  startSet
} from '../../../src/kube/watch-set.js'

// Times in ms: the sync deadline is 1000, each test's wait deadline 500 ms after its first sight.
const RULES: SetRules = {
  names: ['t-small', 't-large'],
  isFinal: (t) => t.status?.phase === 'Succeeded' || t.status?.phase === 'Failed',
  syncDeadline: 1000,
  waitTimeoutMs: 500,
  backoff: { initialMs: 100, maxMs: 400 },
  minHealthyWatchMs: 50
}

function test(name: string, rv: string, phase = 'Running'): CoderTemplateTest {
  return {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTest',
    metadata: { name, namespace: 'coder-tests', resourceVersion: rv },
    spec: { controlPlaneRef: { name: 'coder' }, template: 'acme.docker', version: { name: 'v1' } },
    status: { phase }
  } as CoderTemplateTest
}

/** Feeds events at the given times; returns the last step's action and state. */
function run(events: [number, SetEvent][]): { next: SetAction; state: SetState } {
  let { state, next } = startSet(RULES.names)
  for (const [at, event] of events) ({ state, next } = advanceSet(state, event, at, RULES))
  return { next, state }
}

const listed = (rv: string, ...objects: CoderTemplateTest[]): SetEvent => ({
  type: 'listed',
  objects,
  resourceVersion: rv
})
const modified = (object: CoderTemplateTest): SetEvent => ({ type: 'MODIFIED', object })
const deleted = (object: CoderTemplateTest): SetEvent => ({ type: 'DELETED', object })
/** Being deleted: a finalizer holds it, the API server set deletionTimestamp. */
const deleting = (object: CoderTemplateTest): CoderTemplateTest => ({
  ...object,
  metadata: { ...object.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' }
})
/** t-large final from the start: only t-small's ending decides the next action. */
const largeDone = test('t-large', '9', 'Succeeded')

describe('the set wait reducer', () => {
  it.each<[string, [number, SetEvent][], SetAction]>([
    ['starts with one list', [], { do: 'list' }],
    [
      'a list then one watch from its resourceVersion',
      [[0, listed('10')]],
      { do: 'watch', resourceVersion: '10' }
    ],
    [
      'an event of one test keeps the one watch',
      [
        [0, listed('10')],
        [10, modified(test('t-small', '11'))]
      ],
      { do: 'keep-watching' }
    ],
    [
      'done only when every test is final',
      [
        [0, listed('10', test('t-small', '9', 'Succeeded'))],
        [10, modified(test('t-large', '11', 'Failed'))]
      ],
      { do: 'done' }
    ],
    [
      'every test final in the list: done without a watch',
      [[0, listed('10', test('t-small', '8', 'Succeeded'), test('t-large', '9', 'Failed'))]],
      { do: 'done' }
    ],
    [
      'another object of the namespace only moves the resourceVersion',
      [
        [0, listed('10')],
        [10, modified(test('someone-else', '12', 'Succeeded'))],
        [20, { type: 'stream-ended' }]
      ],
      { do: 'watch', resourceVersion: '12' }
    ],
    [
      'a clean end resumes from the newest resourceVersion, bookmarks included',
      [
        [0, listed('10')],
        [10, { type: 'BOOKMARK', resourceVersion: '20' }],
        [60, { type: 'stream-ended' }]
      ],
      { do: 'watch', resourceVersion: '20' }
    ],
    [
      '410 Gone re-lists',
      [
        [0, listed('10')],
        [100, { type: 'ERROR', code: 410 }]
      ],
      { do: 'list' }
    ],
    [
      'a broken stream backs off',
      [
        [0, listed('10')],
        [10, { type: 'stream-error' }]
      ],
      { do: 'back-off', ms: 100 }
    ],
    ['a failed list backs off', [[0, { type: 'read-failed' }]], { do: 'back-off', ms: 100 }],
    [
      'past the sync deadline with no test seen: done (each times out)',
      [
        [0, listed('10')],
        [1000, { type: 'tick' }]
      ],
      { do: 'done' }
    ],
    [
      'one test final, the other past its own wait deadline: done',
      [
        [0, listed('10', test('t-small', '9', 'Succeeded'), test('t-large', '8'))],
        [500, { type: 'tick' }]
      ],
      { do: 'done' }
    ],
    [
      'one test past its deadline, the other still in time: keep watching',
      [
        [0, listed('10', test('t-small', '9'))],
        [400, modified(test('t-large', '11'))],
        [500, { type: 'tick' }]
      ],
      { do: 'keep-watching' }
    ]
  ])('%s', (_, events, next) => {
    expect(run(events).next).toEqual(next)
  })
})

describe('the set wait reducer: a test deleted before it was final', () => {
  it.each<[string, [number, SetEvent][], SetAction]>([
    [
      'a DELETED event of a seen test ends it at once: the other final, done',
      [
        [0, listed('10', test('t-small', '8'), largeDone)],
        [10, deleted(test('t-small', '11'))]
      ],
      { do: 'done' }
    ],
    [
      'a seen test absent from the list after a 410: deleted, done',
      [
        [0, listed('10', test('t-small', '8'), largeDone)],
        [10, { type: 'ERROR', code: 410 }],
        [20, listed('12', largeDone)]
      ],
      { do: 'done' }
    ],
    [
      'a test marked for deletion and not final: deleted, done',
      [
        [0, listed('10', test('t-small', '8'), largeDone)],
        [10, modified(deleting(test('t-small', '11')))]
      ],
      { do: 'done' }
    ],
    [
      'marked for deletion in the first list: deleted, done',
      [[0, listed('10', deleting(test('t-small', '8')), largeDone)]],
      { do: 'done' }
    ],
    [
      'a deleted test while the other still runs: the other goes on being watched',
      [
        [0, listed('10', test('t-small', '8'), test('t-large', '9'))],
        [10, deleted(test('t-small', '11'))],
        [20, { type: 'stream-ended' }]
      ],
      { do: 'watch', resourceVersion: '11' }
    ],
    [
      'never seen and absent from a list: not deleted, it may still appear',
      [
        [0, listed('10', largeDone)],
        [10, { type: 'ERROR', code: 410 }],
        [20, listed('12', largeDone)]
      ],
      { do: 'watch', resourceVersion: '12' }
    ],
    [
      'a final test marked for deletion stays final: the other still runs',
      [
        [0, listed('10', test('t-small', '8', 'Succeeded'), test('t-large', '9'))],
        [10, modified(deleting(test('t-small', '11', 'Succeeded')))]
      ],
      { do: 'keep-watching' }
    ]
  ])('%s', (_, events, next) => {
    expect(run(events).next).toEqual(next)
  })

  it('keeps the last read before the deletion, and ignores a re-creation', () => {
    const { state } = run([
      [0, listed('10', test('t-small', '8'), test('t-large', '9'))],
      [10, deleted(test('t-small', '11'))],
      [20, { type: 'ADDED', object: test('t-small', '12', 'Succeeded') }]
    ])
    expect(state.sights['t-small']).toMatchObject({
      deleted: true,
      present: false,
      last: { metadata: { resourceVersion: '8' } }
    })
    expect(state.resourceVersion).toBe('12')
    expect(pendingNames(state, RULES, 20)).toEqual(['t-large'])
  })

  it('a final test deleted later keeps its final read: never judged deleted', () => {
    const { state } = run([
      [0, listed('10', test('t-small', '8', 'Succeeded'), test('t-large', '9'))],
      [10, deleted(test('t-small', '11', 'Succeeded'))],
      [20, listed('12', test('t-large', '9'))]
    ])
    expect(state.sights['t-small']).toMatchObject({ present: true })
    expect(state.sights['t-small']?.deleted).toBeUndefined()
    expect(hasEnded(state.sights['t-small']!, RULES)).toBe(true)
  })

  it('deadlines are per test: the sync deadline until seen, then its own wait timeout', () => {
    const { state } = run([
      [0, listed('10')],
      [300, modified(test('t-small', '11'))]
    ])
    expect(pendingNames(state, RULES, 300)).toEqual(['t-small', 't-large'])
    // t-small: 300 + 500; t-large: never seen, the sync deadline 1000.
    expect(setDeadline(state, RULES, 300)).toBe(800)
    expect(pendingNames(state, RULES, 800)).toEqual(['t-large'])
    expect(setDeadline(state, RULES, 800)).toBe(1000)
  })

  it('reports each test on the first list, present or not', () => {
    const step = advanceSet(
      startSet(RULES.names).state,
      listed('10', test('t-large', '9')),
      0,
      RULES
    )
    expect(step.observed.map((o) => [o.name, o.object?.metadata?.name ?? null])).toEqual([
      ['t-small', null],
      ['t-large', 't-large']
    ])
  })
})
