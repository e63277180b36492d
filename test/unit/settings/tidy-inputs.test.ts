// keep-versions and archive-failed as inputs (interface.md): defaults, bounds, and the errors.
import { describe, it, expect } from '@jest/globals'
import { type InputName, parseInputs, type RunContext } from '../../../src/settings/parse.js'

const CONTEXT: RunContext = {
  eventName: 'push',
  ref: 'refs/tags/v1.2.3',
  sha: '0123456789abcdef0123456789abcdef01234567',
  serverUrl: 'https://github.com',
  repository: 'acme/templates',
  runId: '77',
  runAttempt: '1',
  workspace: '/work/repo',
  subject: 'Add Go'
}
const VALID: Partial<Record<InputName, string>> = {
  'coder-url': 'https://coder.example.com/',
  'coder-token': 'coder-secret-token',
  template: 'docker',
  namespace: 'coder-tests',
  'gitops-repository': 'acme/gitops',
  'gitops-token': 'ghs_secret'
}

function parse(overrides: Partial<Record<InputName, string>>) {
  const inputs = { ...VALID, ...overrides }
  return parseInputs((name) => inputs[name] ?? '', CONTEXT, {
    isDirectory: () => true,
    readText: () => null
  })
}

describe('keep-versions and archive-failed', () => {
  it.each<[Partial<Record<InputName, string>>, number, boolean]>([
    [{}, 0, false],
    [{ 'keep-versions': '0' }, 0, false],
    [{ 'keep-versions': ' 3 ' }, 3, false],
    [{ 'keep-versions': '1000' }, 1000, false],
    [{ 'archive-failed': 'true' }, 0, true],
    [{ 'archive-failed': 'false', 'keep-versions': '1' }, 1, false]
  ])('%j', (inputs, keepVersions, archiveFailed) => {
    const result = parse(inputs)
    expect(result.ok && result.settings.tidy).toEqual({ keepVersions, archiveFailed })
  })

  it.each<[InputName, string, string]>([
    ['keep-versions', '-1', 'must be a whole number from 0 to 1000'],
    ['keep-versions', '1.5', 'must be a whole number from 0 to 1000'],
    ['keep-versions', '1001', 'must be a whole number from 0 to 1000'],
    ['keep-versions', 'all', 'must be a whole number from 0 to 1000'],
    ['archive-failed', 'yes', 'archive-failed'],
    ['archive-failed', 'True', 'archive-failed']
  ])('%s %j is refused', (input, value, message) => {
    const result = parse({ [input]: value })
    expect(result.ok).toBe(false)
    const errors = result.ok ? [] : result.errors
    expect(errors.map((e) => e.input)).toEqual([input])
    expect(errors[0]?.message).toContain(message)
  })
})
