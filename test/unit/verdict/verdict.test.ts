import { describe, expect, it } from '@jest/globals'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import { verdictOf } from '../../../src/verdict/verdict.js'

const ready = (status: string) => ({ type: 'Ready', status })

function test(status: unknown, metadata: Record<string, unknown> = {}): CoderTemplateTest {
  return {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTest',
    metadata: { name: 't', generation: 2, ...metadata },
    spec: { controlPlaneRef: { name: 'coder' }, template: 'acme.docker', version: { name: 'v1' } },
    ...(status === undefined ? {} : { status: status as CoderTemplateTest['status'] })
  }
}

describe('verdictOf', () => {
  it.each<[string, CoderTemplateTest, string, string]>([
    ['no status', test(undefined), 'waiting', 'no-status'],
    ['status null', test(null), 'waiting', 'no-status'],
    [
      'no observedGeneration',
      test({ phase: 'Succeeded', conditions: [ready('True')] }),
      'waiting',
      'stale-generation'
    ],
    [
      'stale observedGeneration',
      test({ observedGeneration: 1, phase: 'Succeeded', conditions: [ready('True')] }),
      'waiting',
      'stale-generation'
    ],
    [
      'observedGeneration as a string',
      test({ observedGeneration: '2', phase: 'Succeeded', conditions: [ready('True')] }),
      'waiting',
      'stale-generation'
    ],
    [
      'Pending',
      test({ observedGeneration: 2, phase: 'Pending', reason: 'Initializing' }),
      'waiting',
      'in-progress'
    ],
    [
      'Running',
      test({ observedGeneration: 2, phase: 'Running', reason: 'WaitingForAgents' }),
      'waiting',
      'in-progress'
    ],
    [
      'Succeeded, Ready=True',
      test({ observedGeneration: 2, phase: 'Succeeded', conditions: [ready('True')] }),
      'passed',
      ''
    ],
    [
      'Succeeded, Ready=False',
      test({ observedGeneration: 2, phase: 'Succeeded', conditions: [ready('False')] }),
      'waiting',
      'succeeded-not-ready'
    ],
    [
      'Succeeded, Ready=Unknown',
      test({ observedGeneration: 2, phase: 'Succeeded', conditions: [ready('Unknown')] }),
      'waiting',
      'succeeded-not-ready'
    ],
    [
      'Succeeded, another condition True but no Ready',
      test({
        observedGeneration: 2,
        phase: 'Succeeded',
        conditions: [{ type: 'WorkspaceDeleted', status: 'True' }]
      }),
      'waiting',
      'succeeded-not-ready'
    ],
    [
      'Succeeded, conditions not a list',
      test({ observedGeneration: 2, phase: 'Succeeded', conditions: { Ready: 'True' } }),
      'waiting',
      'succeeded-not-ready'
    ],
    [
      'Succeeded, no conditions',
      test({ observedGeneration: 2, phase: 'Succeeded' }),
      'waiting',
      'succeeded-not-ready'
    ],
    [
      'Succeeded, Ready among others',
      test({
        observedGeneration: 2,
        phase: 'Succeeded',
        conditions: [{ type: 'Stalled', status: 'False' }, null, ready('True')]
      }),
      'passed',
      ''
    ],
    [
      'Succeeded, Ready=True of an older generation',
      test({
        observedGeneration: 2,
        phase: 'Succeeded',
        conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1 }]
      }),
      'waiting',
      'succeeded-not-ready'
    ],
    [
      'Succeeded, Ready=True of this generation',
      test({
        observedGeneration: 2,
        phase: 'Succeeded',
        conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2 }]
      }),
      'passed',
      ''
    ],
    [
      'Failed',
      test({
        observedGeneration: 2,
        phase: 'Failed',
        reason: 'AgentStartError',
        message: 'startup script exited 1'
      }),
      'failed',
      ''
    ],
    ['no phase', test({ observedGeneration: 2 }), 'waiting', 'unknown-phase'],
    [
      'unknown phase',
      test({ observedGeneration: 2, phase: 'Deleting' }),
      'waiting',
      'unknown-phase'
    ],
    [
      'deleting and Succeeded',
      test(
        { observedGeneration: 2, phase: 'Succeeded', conditions: [ready('True')] },
        { deletionTimestamp: '2026-12-02T10:00:00Z' }
      ),
      'waiting',
      'deleting'
    ],
    [
      'deleting and Failed',
      test(
        { observedGeneration: 2, phase: 'Failed' },
        { deletionTimestamp: '2026-12-02T10:00:00Z' }
      ),
      'waiting',
      'deleting'
    ]
  ])('%s -> %s', (_, object, state, why) => {
    const verdict = verdictOf(object)
    expect(verdict.state).toBe(state)
    if (verdict.state === 'waiting') expect(verdict.why).toBe(why)
  })

  it('carries the reason and the message of a failure', () => {
    expect(
      verdictOf(
        test({ observedGeneration: 2, phase: 'Failed', reason: 'BuildFailed', message: 'exit 1' })
      )
    ).toEqual({
      state: 'failed',
      phase: 'Failed',
      reason: 'BuildFailed',
      message: 'exit 1'
    })
  })
})
