import { describe, expect, it } from '@jest/globals'
import {
  type InputName,
  parseInputs,
  type RunContext,
  WAIT_ALLOWANCE_SECONDS
} from '../../src/inputs.js'

const CONTEXT: RunContext = {
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

const VALID: Partial<Record<InputName, string>> = {
  'coder-url': 'https://coder.example.com/',
  'coder-token': 'coder-secret-token',
  template: 'docker',
  namespace: 'coder-tests',
  'gitops-repository': 'acme/gitops',
  'gitops-token': 'ghs_secret'
}

function parse(overrides: Partial<Record<InputName, string>> = {}, context = CONTEXT) {
  const inputs = { ...VALID, ...overrides }
  return parseInputs(
    (name) => inputs[name] ?? '',
    context,
    (path) => path.startsWith('/work/repo')
  )
}

function errorsOf(overrides: Partial<Record<InputName, string>>): string[] {
  const result = parse(overrides)
  return result.ok ? [] : result.errors.map((e) => e.message)
}

describe('parseInputs', () => {
  it('gives typed settings with the documented defaults', () => {
    const result = parse()
    expect(result.ok).toBe(true)
    if (!result.ok) return
    const s = result.settings
    expect(s.coderUrl).toBe('https://coder.example.com')
    expect(s.version).toBe('v1.2.3')
    expect(s.versionSource).toBe('tag')
    expect(s.testName).toBe('docker-v1-2-3')
    expect(s.directory).toBe('/work/repo')
    expect(s.controlPlane).toBe('coder')
    expect(s.testTimeoutSeconds).toBe(900)
    expect(s.waitTimeoutSeconds).toBe(900 + WAIT_ALLOWANCE_SECONDS)
    expect(s.syncTimeoutSeconds).toBe(600)
    expect(s.promote).toBe('promote')
    expect(s.gitops).toEqual({
      owner: 'acme',
      repo: 'gitops',
      branch: '',
      path: 'coder-template-tests',
      token: 'ghs_secret'
    })
    expect(s.message).toBe(
      'Add Go to the docker template (commit 0123456789ab, https://github.com/acme/templates/actions/runs/77)'
    )
    expect(s.runUrl).toBe('https://github.com/acme/templates/actions/runs/77')
    expect(s.commitSha).toBe(CONTEXT.sha)
  })

  it('takes every optional input', () => {
    const result = parse({
      organization: 'default',
      directory: 'templates/docker',
      version: 'V2.0_rc1',
      message: 'hello',
      variables: 'region=eu\n\nsize = large=xl\n',
      'test-parameters': 'cpu=2\nmemory=4',
      'test-timeout-seconds': '1200',
      'gitops-branch': 'main',
      'gitops-path': './clusters/prod/tests/',
      promote: 'dry-run',
      'wait-timeout-seconds': '60',
      'sync-timeout-seconds': '30',
      'test-name': 'my-test'
    })
    expect(result.ok).toBe(true)
    if (!result.ok) return
    const s = result.settings
    expect(s.directory).toBe('/work/repo/templates/docker')
    expect(s.version).toBe('V2.0_rc1')
    expect(s.variables).toEqual([
      { name: 'region', value: 'eu' },
      { name: 'size', value: 'large=xl' }
    ])
    expect(s.testParameters).toEqual([
      { name: 'cpu', value: '2' },
      { name: 'memory', value: '4' }
    ])
    expect(s.gitops.path).toBe('clusters/prod/tests')
    expect(s.promote).toBe('dry-run')
    expect(s.waitTimeoutSeconds).toBe(60)
    expect(s.testName).toBe('my-test')
  })

  it.each<[Partial<Record<InputName, string>>, string]>([
    [{ 'coder-url': '' }, 'Input "coder-url" is required'],
    [
      { 'coder-url': 'coder.example.com' },
      'Input "coder-url" "coder.example.com" is invalid: must be an http'
    ],
    [{ 'coder-token': '' }, 'Input "coder-token" is required'],
    [{ template: '' }, 'Input "template" is required'],
    [
      { template: 'new' },
      'Input "template" "new" is invalid: a Coder template name must not be "new" or "create"'
    ],
    [{ template: 'create' }, 'must not be "new" or "create"'],
    [{ template: 'my_template' }, 'Input "template" "my_template" is invalid'],
    [{ template: 'x'.repeat(33) }, 'must be at most 32 characters'],
    [{ organization: 'acme corp' }, 'Input "organization" "acme corp" is invalid'],
    [{ directory: '../elsewhere' }, 'Input "directory" "../elsewhere" is invalid'],
    [
      { version: 'feature/x' },
      'Input "version" "feature/x" is invalid: a Coder template version name'
    ],
    [{ version: 'v'.repeat(65) }, 'must be at most 64 characters'],
    [
      { 'test-timeout-seconds': '59' },
      'Input "test-timeout-seconds" "59" is invalid: must be a whole number from 60 to 7200'
    ],
    [{ 'test-timeout-seconds': '7201' }, 'from 60 to 7200'],
    [{ 'test-timeout-seconds': '90.5' }, 'from 60 to 7200'],
    [{ promote: 'yes' }, 'Input "promote" "yes" is invalid: must be "true", "false" or "dry-run"'],
    [{ promote: 'True' }, 'must be "true", "false" or "dry-run"'],
    [{ variables: 'novalue' }, 'Input "variables" line 1 is invalid: expected NAME=VALUE'],
    [{ variables: '=x' }, 'the name before "=" is empty'],
    [{ variables: 'a=1\na=2' }, 'the name "a" is given twice'],
    [
      { 'test-parameters': 'a=1\na=2' },
      'Input "test-parameters" line 2 is invalid: the name "a" is given twice'
    ],
    [
      { 'test-parameters': Array.from({ length: 65 }, (_, i) => `p${i}=1`).join('\n') },
      'at most 64 entries'
    ],
    [{ 'test-parameters': `${'n'.repeat(129)}=1` }, 'longer than 128 characters'],
    [{ 'test-parameters': `n=${'v'.repeat(4097)}` }, 'longer than 4096 characters'],
    [
      { 'gitops-repository': 'acme' },
      'Input "gitops-repository" "acme" is invalid: must be "owner/name"'
    ],
    [{ 'gitops-repository': 'acme/gitops/extra' }, 'must be "owner/name"'],
    [
      { 'gitops-path': '/abs' },
      'Input "gitops-path" "/abs" is invalid: must be a relative folder path'
    ],
    [{ 'gitops-path': 'a/../../b' }, 'must be a relative folder path'],
    [{ 'gitops-branch': 'bad..branch' }, 'Input "gitops-branch" "bad..branch" is invalid'],
    [
      { namespace: 'Coder_Tests' },
      'Input "namespace" "Coder_Tests" is invalid: a Kubernetes namespace must be a DNS-1123 label'
    ],
    [{ namespace: '' }, 'Input "namespace" is required'],
    [
      { 'control-plane': 'Coder' },
      'Input "control-plane" "Coder" is invalid: a CoderControlPlane name must be a DNS-1123 subdomain'
    ],
    [{ 'test-name': 'Docker_V2' }, 'Input "test-name" "Docker_V2" is invalid'],
    [{ 'test-name': 'x'.repeat(64) }, 'must be at most 63 characters'],
    [
      { 'wait-timeout-seconds': '0' },
      'Input "wait-timeout-seconds" "0" is invalid: must be a whole number from 1 to 432000'
    ],
    [{ 'wait-timeout-seconds': '-5' }, 'from 1 to 432000'],
    [{ 'sync-timeout-seconds': '2147484' }, 'from 1 to 432000'],
    [{ message: 'm'.repeat(65537) }, 'Input "message"'],
    [{ 'sync-timeout-seconds': 'ten' }, 'Input "sync-timeout-seconds" "ten" is invalid'],
    [{ 'gitops-token': '' }, 'Input "gitops-token" is required']
  ])('%j is refused', (overrides, message) => {
    const errors = errorsOf(overrides)
    expect(errors.join('\n')).toContain(message)
  })

  it('reports every invalid input at once', () => {
    expect(errorsOf({ template: 'new', namespace: 'X', promote: 'maybe' })).toHaveLength(3)
  })

  it('never shows a secret value in an error', () => {
    const result = parse({ 'coder-token': '  ', 'gitops-token': '' })
    expect(result.ok).toBe(false)
    const text = JSON.stringify(result)
    expect(text).not.toContain('coder-secret-token')
    expect(text).not.toContain('ghs_secret')
  })

  it('derives the version of a pull request from its head sha', () => {
    const result = parse(
      {},
      {
        ...CONTEXT,
        eventName: 'pull_request',
        ref: 'refs/pull/7/merge',
        pullRequest: { number: 7, headSha: 'abcdef0123456789' }
      }
    )
    expect(result.ok && result.settings.version).toBe('pr-7-abcdef0')
    // The version is named after the PR head, and so is its owner mark, not the merge commit.
    expect(result.ok && result.settings.commitSha).toBe('abcdef0123456789')
    expect(result.ok && result.settings.message).toContain('commit abcdef012345,')
  })

  it('refuses a branch version without a sha', () => {
    const result = parse({}, { ...CONTEXT, ref: 'refs/heads/main', sha: '' })
    expect(JSON.stringify(result)).toContain('no version name can be derived from the branch')
  })

  it('refuses a tag that leaves no usable version name', () => {
    const result = parse({}, { ...CONTEXT, ref: 'refs/tags/日本' })
    expect(result.ok).toBe(false)
    expect(JSON.stringify(result)).toContain('no version name can be derived from the tag')
  })
})
