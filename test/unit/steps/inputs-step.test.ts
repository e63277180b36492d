// The invalid-input table that ran end to end (three servers and the bundle per row) runs here
// through the inputs step itself, with action.yml's defaults, a real workspace folder and a real
// kubeconfig: the step refuses each value, names the input and reports the failure kind that the
// summary calls "Invalid input". One row stays end to end (test/e2e/gate.test.ts) to prove that a
// refusal sends no request and writes nothing.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from '@jest/globals'
import type { InputName } from '../../../src/settings/parse.js'
import { validateInputs } from '../../../src/steps/inputs.js'
import { actionDefaults } from '../../sandbox/action-runner.js'

const workspace = mkdtempSync(join(tmpdir(), 'inputs-step-'))
mkdirSync(join(workspace, 'docker'))
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

const KUBECONFIG = [
  'apiVersion: v1',
  'kind: Config',
  'current-context: sandbox',
  'clusters:',
  '- name: sandbox',
  '  cluster:',
  '    server: https://127.0.0.1:6443',
  'contexts:',
  '- name: sandbox',
  '  context: { cluster: sandbox, user: gate }',
  'users:',
  '- name: gate',
  '  user: { token: kube-token-for-the-gate }',
  ''
].join('\n')

/** The inputs of a run that passes this step, as test/sandbox/world.ts gives them. */
const VALID: Record<string, string> = {
  ...actionDefaults(),
  'coder-url': 'http://127.0.0.1:7080',
  'coder-token': 'coder-token-for-the-gate',
  template: 'docker',
  directory: 'docker',
  namespace: 'coder-tests',
  'control-plane': 'coder',
  'test-timeout-seconds': '900',
  'gitops-repository': 'acme/gitops',
  'gitops-path': 'coder-template-tests',
  'gitops-token': 'gitops-token-for-the-gate',
  kubeconfig: KUBECONFIG,
  promote: 'true',
  'sync-timeout-seconds': '600'
}

function runStep(overrides: Record<string, string>) {
  const inputs = { ...VALID, ...overrides }
  return validateInputs({
    read: (name: InputName) => inputs[name] ?? '',
    env: {
      GITHUB_EVENT_NAME: 'push',
      GITHUB_REF: 'refs/tags/v1.0.0',
      GITHUB_SHA: '3f2a9c1d5e7b8a6c4d2e0f1a3b5c7d9e1f2a3b4c',
      GITHUB_REPOSITORY: 'acme/templates',
      GITHUB_WORKSPACE: workspace
    },
    mask: () => undefined
  })
}

describe('the inputs step refuses each invalid input (moved down from e2e)', () => {
  it('passes the valid inputs of the e2e world', () => {
    const result = runStep({})
    expect(result.ok ? [] : result.failure.problems).toEqual([])
  })

  it.each<[string, Record<string, string>, string]>([
    ['a reserved template name', { template: 'new' }, 'Input "template" "new" is invalid'],
    ['an invalid version', { version: 'feature/x' }, 'Input "version" "feature/x" is invalid'],
    ['a test timeout out of range', { 'test-timeout-seconds': '30' }, 'from 60 to 7200'],
    ['an unknown promote mode', { promote: 'yes' }, 'Input "promote" "yes" is invalid'],
    [
      'duplicate test parameters',
      { 'test-parameters': 'cpu=1\ncpu=2' },
      'the name "cpu" is given twice'
    ],
    ['a GitOps path that climbs out', { 'gitops-path': '../elsewhere' }, 'Input "gitops-path"'],
    ['a namespace with capitals', { namespace: 'Coder' }, 'Input "namespace" "Coder" is invalid'],
    [
      'a missing template directory',
      { directory: 'nowhere' },
      'Input "directory" "nowhere" is invalid'
    ],
    ['an unknown kube context', { 'kube-context': 'nope' }, 'Input "kube-context" is invalid'],
    ['a kubeconfig that is not YAML', { kubeconfig: 'token: [' }, 'Input "kubeconfig" is invalid'],
    ['a missing token', { 'coder-token': '' }, 'Input "coder-token" is required'],
    ['a Coder URL without a scheme', { 'coder-url': 'coder.example.com' }, 'Input "coder-url"'],
    ['an organization with a space', { organization: 'acme corp' }, 'Input "organization"'],
    [
      'a repository without an owner',
      { 'gitops-repository': 'gitops' },
      'Input "gitops-repository"'
    ],
    ['a branch with ".."', { 'gitops-branch': 'a..b' }, 'Input "gitops-branch"'],
    ['a control plane with capitals', { 'control-plane': 'Coder' }, 'Input "control-plane"'],
    ['a test name with "_"', { 'test-name': 'docker_v1' }, 'Input "test-name"'],
    ['a variable without "="', { variables: 'region' }, 'Input "variables" line 1'],
    [
      'a parameter value over 4096 characters',
      { 'test-parameters': `x=${'v'.repeat(4097)}` },
      'longer than 4096'
    ],
    ['a wait timeout of 0', { 'wait-timeout-seconds': '0' }, 'Input "wait-timeout-seconds"'],
    [
      'a sync timeout beyond 5 days',
      { 'sync-timeout-seconds': '432001' },
      'Input "sync-timeout-seconds"'
    ]
  ])('refuses %s', (_, overrides, message) => {
    const result = runStep(overrides)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.failure.kind).toBe('invalid-input')
    expect(result.failure.problems).toEqual([expect.stringContaining(message)])
    expect(result.failure.message).toContain('nothing was pushed, committed or promoted')
  })
})
