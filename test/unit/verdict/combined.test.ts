// The verdict of several tests (test-presets): each judged from its own read, then combined.
import { describe, expect, it } from '@jest/globals'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import {
  combineVerdicts,
  type JudgedTest,
  judgeTest,
  type TestEnding,
  type TestJudgment
} from '../../../src/verdict/combined.js'
import { buildTestManifest } from '../../../src/objects/manifest.js'

const OUR_ID = '11111111-1111-4111-8111-111111111111'
const pushed = { id: OUR_ID, name: 'v2' }

const manifestOf = (name: string) =>
  buildTestManifest({
    testName: name,
    namespace: 'coder-tests',
    controlPlane: 'coder',
    organization: 'acme',
    template: 'docker',
    version: 'v2',
    parameters: [{ name: 'size', value: name }],
    timeoutSeconds: 600
  })

type Status = Record<string, unknown>
function live(
  name: string,
  status: Status = {},
  spec?: Record<string, unknown>
): CoderTemplateTest {
  const manifest = manifestOf(name)
  return {
    ...manifest,
    metadata: { ...manifest.metadata, generation: 1 },
    spec: { ...manifest.spec, ...spec },
    status: {
      observedGeneration: 1,
      phase: 'Succeeded',
      reason: 'Succeeded',
      message: 'workspace built',
      templateVersionID: OUR_ID,
      templateVersionName: 'v2',
      conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1 }],
      ...status
    }
  } as CoderTemplateTest
}
const failedStatus = { phase: 'Failed', reason: 'WorkspaceBuildFailed', message: 'no GPU.' }

describe('judgeTest', () => {
  it.each<[string, TestEnding, CoderTemplateTest | null, TestJudgment, string]>([
    ['passed', 'final', live('t-small'), 'passed', 'Succeeded / Succeeded'],
    ['failed', 'final', live('t-small', failedStatus), 'failed', 'WorkspaceBuildFailed: no GPU'],
    ['never seen', 'sync-timeout', null, 'sync-timeout', 'did not appear'],
    [
      'seen, not final in time',
      'wait-timeout',
      live('t-small', { phase: 'Running', reason: 'Building', conditions: [] }),
      'wait-timeout',
      'last: Running / Building'
    ],
    [
      'another spec under our name',
      'final',
      live('t-small', {}, { parameters: [{ name: 'size', value: 'other' }] }),
      'integrity',
      'does not prove'
    ],
    [
      'another version in the status',
      'final',
      live('t-small', { templateVersionID: '22222222-2222-4222-8222-222222222222' }),
      'integrity',
      'does not prove'
    ],
    [
      'deleted before it was final: deleted, naming the last read and the likely pruning',
      'deleted',
      live('t-small', { phase: 'Running', reason: 'WaitingForAgents', conditions: [] }),
      'deleted',
      'was deleted (or is being deleted) before it was final (last: Running / WaitingForAgents): most likely its manifest was removed from Git and the GitOps engine pruned the object'
    ],
    [
      'deleted, and its last read was of another version: integrity first',
      'deleted',
      live('t-small', {
        phase: 'Running',
        conditions: [],
        templateVersionID: '22222222-2222-4222-8222-222222222222'
      }),
      'integrity',
      'does not prove'
    ],
    [
      'Succeeded without Ready=True at the current generation is not final',
      'final',
      live('t-small', { conditions: [] }),
      'wait-timeout',
      'not final'
    ]
  ])('%s', (_, ending, last, judgment, detail) => {
    const test = { name: 't-small', preset: 'small', spec: manifestOf('t-small').spec }
    const judged = judgeTest(test, ending, last, pushed)
    expect(judged.judgment).toBe(judgment)
    expect(judged.detail).toContain(detail)
    expect(judged.problems.length > 0).toBe(judgment === 'integrity')
  })
})

const t = (preset: string, judgment: TestJudgment, detail: string = judgment): JudgedTest => ({
  name: `docker-v2-${preset}`,
  preset,
  judgment,
  detail,
  problems: []
})

describe('combineVerdicts', () => {
  it.each<[string, JudgedTest[], ReturnType<typeof combineVerdicts> | Record<string, unknown>]>([
    ['all passed', [t('small', 'passed'), t('large', 'passed')], { ok: true }],
    ['one test that passed', [t('', 'passed')], { ok: true }],
    [
      'one failed: the run fails and names it',
      [t('small', 'passed'), t('large', 'failed', 'Failed / WorkspaceBuildFailed')],
      {
        ok: false,
        kind: 'test-failed',
        status: 'failed',
        failing: ['large'],
        message:
          '1 of 2 tests did not pass: preset "large" (docker-v2-large) Failed / WorkspaceBuildFailed. Nothing was promoted.'
      }
    ],
    [
      'one timed out: the run timed out',
      [t('small', 'passed'), t('xl', 'wait-timeout')],
      { ok: false, kind: 'wait-timeout', status: 'timed out', failing: ['xl'] }
    ],
    [
      'one never appeared',
      [t('small', 'sync-timeout'), t('xl', 'passed')],
      { ok: false, kind: 'sync-timeout', status: 'timed out', failing: ['small'] }
    ],
    [
      'one with an integrity failure: integrity, although the others passed',
      [t('small', 'passed'), t('large', 'integrity'), t('xl', 'passed')],
      { ok: false, kind: 'integrity', status: 'failed', failing: ['large'] }
    ],
    [
      'integrity beats a failure, a failure beats a timeout; every failing test named',
      [t('a', 'wait-timeout'), t('b', 'failed'), t('c', 'integrity')],
      { ok: false, kind: 'integrity', status: 'failed', failing: ['a', 'b', 'c'] }
    ],
    [
      'a failure and a timeout: failed, not timed out',
      [t('a', 'wait-timeout'), t('b', 'failed')],
      { ok: false, kind: 'test-failed', status: 'failed', failing: ['a', 'b'] }
    ],
    [
      'one deleted: the run fails (not timed out), names it and why',
      [t('small', 'passed'), t('large', 'deleted', 'was deleted (or is being deleted)')],
      {
        ok: false,
        kind: 'wait-failed',
        status: 'failed',
        failing: ['large'],
        message:
          '1 of 2 tests did not pass: preset "large" (docker-v2-large) was deleted (or is being deleted). Nothing was promoted.'
      }
    ],
    [
      'a deletion and a timeout: failed as deleted',
      [t('a', 'sync-timeout'), t('b', 'deleted')],
      { ok: false, kind: 'wait-failed', status: 'failed', failing: ['a', 'b'] }
    ],
    [
      'a failure beats a deletion',
      [t('a', 'deleted'), t('b', 'failed')],
      { ok: false, kind: 'test-failed', status: 'failed', failing: ['a', 'b'] }
    ],
    ['no test at all never passes', [], { ok: false, kind: 'wait-failed', failing: [] }]
  ])('%s', (_, tests, expected) => {
    const combined = combineVerdicts(tests)
    if (combined.ok) return expect(combined).toEqual(expected)
    const { failing, ...rest } = combined
    const { failing: wanted, ...restWanted } = expected as { failing: string[] }
    expect(failing.map((f) => f.preset)).toEqual(wanted)
    expect(rest).toMatchObject(restWanted)
  })
})
