// The run and the inputs every settings test starts from: a tag push of acme/templates, and the
// inputs without which no run starts (action.yml). Shared so that each table adds only its rule.
import { expect } from '@jest/globals'
import {
  type FileAccess,
  type InputName,
  parseInputs,
  type ParseResult,
  type RunContext
} from '../../../src/settings/parse.js'

export type Inputs = Partial<Record<InputName, string>>

export const RUN_CONTEXT: RunContext = {
  eventName: 'push',
  ref: 'refs/tags/v1.2.3',
  sha: '0123456789abcdef0123456789abcdef01234567',
  serverUrl: 'https://github.com',
  repository: 'acme/templates',
  runId: '77',
  runAttempt: '1',
  workspace: '/work/repo',
  subject: 'Add Go to the docker template'
}

export const REQUIRED_INPUTS: Inputs = {
  'coder-url': 'https://coder.example.com/',
  'coder-token': 'coder-secret-token',
  template: 'docker',
  namespace: 'coder-tests',
  'gitops-repository': 'acme/gitops',
  'gitops-token': 'ghs_secret'
}

/** parseInputs over REQUIRED_INPUTS and `overrides`; by default every directory exists, no file. */
export function parseWith(
  overrides: Inputs = {},
  context: RunContext = RUN_CONTEXT,
  files: FileAccess = { isDirectory: () => true, readText: () => null }
) {
  const inputs = { ...REQUIRED_INPUTS, ...overrides }
  return parseInputs((name) => inputs[name] ?? '', context, files)
}

/** The messages of a parse that must fail on `input` alone. */
export function refusalsIn(input: InputName, result: ParseResult): string[] {
  expect(result.ok).toBe(false)
  if (result.ok) return []
  expect(result.errors.map((e) => e.input)).toEqual([input])
  return result.errors.map((e) => e.message)
}
