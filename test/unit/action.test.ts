// action.yml must declare exactly the interface: every input that the code reads, every output
// that the code sets, on node24 with the bundle.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import YAML from 'yaml'
import { INPUT_NAMES } from '../../src/settings/parse.js'
import { outputsOf } from '../../src/report/outputs.js'
import { emptyReport } from '../../src/report/report.js'

const action = YAML.parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8'))

describe('action.yml', () => {
  it('runs the bundle on node24', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' })
    expect(action.branding.icon).toBeTruthy()
  })
  it('declares every input the code reads, with a description', () => {
    expect(Object.keys(action.inputs).sort()).toEqual([...INPUT_NAMES].sort())
    for (const [name, input] of Object.entries<{ description?: string }>(action.inputs)) {
      expect(`${name}: ${input.description ?? ''}`.length).toBeGreaterThan(name.length + 10)
    }
  })
  it('has the documented defaults', () => {
    const defaults = Object.fromEntries(
      Object.entries<{ default?: string }>(action.inputs).map(([k, v]) => [k, v.default])
    )
    expect(defaults).toMatchObject({
      organization: '',
      directory: '.',
      'control-plane': 'coder',
      'test-timeout-seconds': '900',
      'gitops-repository': '${{ github.repository }}',
      'gitops-path': 'coder-template-tests',
      'gitops-token': '${{ github.token }}',
      promote: 'true',
      'wait-timeout-seconds': '',
      'sync-timeout-seconds': '600',
      'variables-file': '',
      'create-template': 'false',
      'allow-rollback': 'false',
      'gitops-mode': 'commit',
      'pull-request-merge': 'auto',
      'pull-request-merge-method': 'squash',
      'pull-request-labels': '',
      'merge-timeout-seconds': '3600',
      'keep-tests': '0',
      'comment-on-pr': 'false',
      'github-token': '${{ github.token }}'
    })
    for (const required of ['coder-url', 'coder-token', 'template', 'namespace']) {
      expect(action.inputs[required].required).toBe(true)
    }
  })
  it('declares every output the code sets', () => {
    expect(Object.keys(action.outputs).sort()).toEqual(
      Object.keys(outputsOf(emptyReport(0))).sort()
    )
  })
})
