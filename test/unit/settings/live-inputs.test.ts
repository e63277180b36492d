// mode: verify's inputs (interface.md, `mode`, `rollback-to`, `deployment-environment`) through
// parseInputs, and the live test's name.
import { describe, expect, it } from '@jest/globals'
import type { InputName } from '../../../src/settings/parse.js'
import { liveRunOf, liveTestName } from '../../../src/settings/live.js'
import { type Inputs, parseWith as parse, RUN_CONTEXT } from './settings-fixture.js'

const ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'

describe('mode: verify', () => {
  it.each<[Inputs, { rollbackTo: string; deploymentEnvironment: string }]>([
    [{ mode: 'verify' }, { rollbackTo: '', deploymentEnvironment: '' }],
    [
      { mode: 'verify', 'rollback-to': 'v1.0.0' },
      { rollbackTo: 'v1.0.0', deploymentEnvironment: '' }
    ],
    [
      { mode: 'verify', 'rollback-to': ID },
      { rollbackTo: ID, deploymentEnvironment: '' }
    ],
    [
      {
        mode: 'verify',
        'rollback-to': 'previous',
        'deployment-environment': 'coder-docker',
        'github-token': 'ghs_x'
      },
      { rollbackTo: 'previous', deploymentEnvironment: 'coder-docker' }
    ],
    [
      { 'deployment-environment': 'coder-docker', 'github-token': 'ghs_x' },
      { rollbackTo: '', deploymentEnvironment: 'coder-docker' }
    ]
  ])('%j gives %j', (inputs, expected) => {
    const result = parse(inputs)
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'))
    expect(result.settings.live).toEqual(expected)
  })

  it('names the live test per run and attempt, whatever the version', () => {
    const result = parse(
      { mode: 'verify' },
      { ...RUN_CONTEXT, runId: '9876543210', runAttempt: '3' }
    )
    if (!result.ok) throw new Error('refused')
    expect(result.settings.mode).toBe('verify')
    expect(result.settings.test.name).toBe('docker-live-9876543210-3')
  })

  it.each<[Inputs, InputName, string]>([
    [
      { 'rollback-to': 'v1.0.0' },
      'rollback-to',
      'Input "rollback-to" is for mode: verify only (this run\'s mode is gate): remove it, or set mode: verify.'
    ],
    [
      { mode: 'verify', 'rollback-to': 'previous' },
      'rollback-to',
      'Input "rollback-to" "previous" reads its target from the deployments of input "deployment-environment", which is empty: set deployment-environment, or name the version.'
    ],
    [
      { mode: 'verify', 'rollback-to': '../v1' },
      'rollback-to',
      'Input "rollback-to" "../v1" is invalid: it takes "previous", a version ID, or a version name, and as a name it must be letters and digits in runs joined by single "_", "." or "-" (^[a-zA-Z0-9]+([_.-][a-zA-Z0-9]+)*$).'
    ],
    [
      { 'deployment-environment': 'x'.repeat(256), 'github-token': 'ghs_x' },
      'deployment-environment',
      'Input "deployment-environment" is invalid: a GitHub environment name of at most 255 characters, on one line.'
    ],
    [
      { mode: 'verify', 'test-name': 'mine' },
      'test-name',
      'Input "test-name" and input "mode" "verify" contradict each other: a live test is named per run (<template>-live-<run ID>-<attempt>). Remove test-name.'
    ]
  ])('%j is refused on %s', (inputs, input, message) => {
    const result = parse(inputs)
    expect(result.ok ? [] : result.errors).toEqual([{ input, message }])
  })

  it('goes with gitops-mode: pull-request (the live test reaches gitops-branch through the pull request)', () => {
    const result = parse({ mode: 'verify', 'gitops-mode': 'pull-request' })
    expect(result.ok).toBe(true)
  })

  it('needs the run ID to name its test', () => {
    const result = parse({ mode: 'verify' }, { ...RUN_CONTEXT, runId: '' })
    expect(result.ok ? [] : result.errors.map((e) => e.input)).toEqual(['mode'])
  })
})

describe('the live test name', () => {
  it.each([
    ['docker', '4242', '1', 'docker-live-4242-1'],
    ['Docker-Big', '4242', '2', 'docker-big-live-4242-2'],
    [
      'a'.repeat(32),
      '12345678901234567890',
      '10',
      expect.stringMatching(/^a{32}-live-1234[0-9a-z-]*$/)
    ]
  ])('%s, run %s attempt %s', (template, runId, attempt, name) => {
    const mapped = liveTestName(template, runId, attempt)
    expect(mapped).toEqual(name)
    expect(mapped.length).toBeLessThanOrEqual(63)
  })

  it.each([
    ['docker-live-4242-1', { runId: 4242, attempt: 1 }],
    ['docker-v1-0-0', null],
    ['docker-live-x-1', null]
  ])('%s is the run %j', (name, run) => {
    expect(liveRunOf(name)).toEqual(run)
  })
})
