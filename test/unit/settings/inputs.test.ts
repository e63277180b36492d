import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from '@jest/globals'
import {
  type InputName,
  type Settings,
  WAIT_ALLOWANCE_SECONDS
} from '../../../src/settings/parse.js'
import { validateInputs } from '../../../src/steps/inputs.js'
import { hasVersionMarker } from '../../../src/coder/version-identity.js'
import { type Inputs, parseWith, refusalsIn, RUN_CONTEXT as CONTEXT } from './settings-fixture.js'

const MARKER = '(commit 0123456789ab, https://github.com/acme/templates/actions/runs/77)'

/** A value that must never show in an error: it stands for a secret in a variables file. */
const FILE_SECRET = 'Wd3Hs8Kp1Qm6'
const FILES: Record<string, string> = {
  '/work/repo/vars.yaml': `region: eu\nimage_tag: 1.10\nmask: 0x1F\nflag: True\nempty: ~\nsize: small\npassword: ${FILE_SECRET}\n`,
  '/work/repo/broken.yaml': `a: [unclosed ${FILE_SECRET}`,
  '/work/repo/list.yaml': `- ${FILE_SECRET}`,
  '/work/repo/nested.yaml': `db:\n  password: ${FILE_SECRET}\n`,
  '/work/repo/twice.yaml': `a: ${FILE_SECRET}\na: ${FILE_SECRET}\n`
}

// Secret values that look like nothing else, so that a part of one cannot occur by chance.
const SECRETS = {
  'coder-token': 'Qz7xLm2VwR4t8KyP',
  'gitops-token': 'ghp_Hn3JqB6sWd9FcX1Z',
  'github-token': 'ghs_Tu5MvY8kGe2NaR7L',
  variables: ['Vq9sK3dLp7Wm', 'Jx4cN8bTz2Hr', 'Fy6wQ1gUe5Ao', 'Bk2mZ7vXr9Ld']
} as const
const URL_USER = 'adminPw7Xc3'
const URL_PASSWORD = 'Rk8Lq2Ts6Vn'
/** A secret counts as shown when this many of its characters appear in a row. */
const SECRET_PART = 5

/** Every part of a secret (SECRET_PART characters or more) found in `text`. */
function secretPartsIn(text: string, extra: string[] = []): string[] {
  const secrets = [
    SECRETS['coder-token'],
    SECRETS['gitops-token'],
    SECRETS['github-token'],
    ...SECRETS.variables,
    URL_USER,
    URL_PASSWORD,
    FILE_SECRET,
    ...extra
  ]
  const found: string[] = []
  for (const secret of secrets)
    for (let at = 0; at + SECRET_PART <= secret.length; at += 1) {
      const part = secret.slice(at, at + SECRET_PART)
      if (text.includes(part)) found.push(secret.length === SECRET_PART ? part : secret)
    }
  return [...new Set(found)]
}

/** Every input broken at once, the secret ones holding real values. */
const EVERY_RULE_BROKEN: Inputs = {
  'coder-url': `https://${URL_USER}:${URL_PASSWORD}@coder.example.com`,
  'coder-token': SECRETS['coder-token'],
  template: 'new',
  organization: 'acme corp',
  directory: '../elsewhere',
  version: 'feature/x',
  message: 'm'.repeat(65537),
  // Every line rule of NAME=VALUE, each line holding a secret.
  variables: [
    `db_password=${SECRETS.variables[0]}`,
    `db_password=${SECRETS.variables[1]}`,
    `=${SECRETS.variables[2]}`,
    SECRETS.variables[3]
  ].join('\n'),
  'variables-file': 'broken.yaml',
  'create-template': 'yes',
  'test-parameters': 'a=1\na=2',
  'test-timeout-seconds': '59',
  namespace: 'Coder_Tests',
  'control-plane': 'Coder',
  'test-name': 'Docker_V2',
  'gitops-repository': 'acme',
  'gitops-branch': 'bad..branch',
  'gitops-path': '/abs',
  'gitops-token': SECRETS['gitops-token'],
  promote: 'maybe',
  'allow-rollback': 'yes',
  'wait-timeout-seconds': '0',
  'sync-timeout-seconds': 'ten',
  'gitops-mode': 'pr',
  'pull-request-merge': 'squash',
  'pull-request-merge-method': 'ff',
  'pull-request-labels': 'l'.repeat(51),
  'merge-timeout-seconds': '0',
  'keep-tests': '-1',
  'comment-on-pr': 'True',
  'github-token': SECRETS['github-token']
}
const BROKEN_INPUTS = Object.keys(EVERY_RULE_BROKEN)
  .filter((name) => !['coder-token', 'gitops-token', 'github-token'].includes(name))
  .sort()

function parse(overrides: Inputs = {}, context = CONTEXT, reads: string[] = []) {
  return parseWith(overrides, context, {
    isDirectory: (path) => path.startsWith('/work/repo'),
    readText: (path) => {
      reads.push(path)
      return FILES[path] ?? null
    }
  })
}

function errorsOf(overrides: Inputs): string[] {
  const result = parse(overrides)
  return result.ok ? [] : result.errors.map((e) => e.message)
}

function settingsOf(overrides: Inputs = {}): Settings {
  const result = parse(overrides)
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'))
  return result.settings
}

/** The errors of a parse that must fail on `input` alone. */
function refusalsOf(input: InputName, overrides: Inputs): string[] {
  return refusalsIn(input, parse(overrides))
}

describe('parseInputs', () => {
  it('gives typed settings with the documented defaults', () => {
    const s = settingsOf()
    expect(s.coder.url).toBe('https://coder.example.com')
    expect(s.coder.version).toBe('v1.2.3')
    expect(s.coder.versionSource).toBe('tag')
    expect(s.test.name).toBe('docker-v1-2-3')
    expect(s.coder.directory).toBe('/work/repo')
    expect(s.test.controlPlane).toBe('coder')
    expect(s.test.timeoutSeconds).toBe(900)
    expect(s.test.waitTimeoutSeconds).toBe(900 + WAIT_ALLOWANCE_SECONDS)
    expect(s.test.syncTimeoutSeconds).toBe(600)
    expect(s.test.presets).toEqual({ kind: 'none' })
    expect(s.promote).toBe('promote')
    expect(s.gitops).toEqual({
      owner: 'acme',
      repo: 'gitops',
      branch: '',
      path: 'coder-template-tests',
      token: 'ghs_secret',
      delivery: 'commit',
      merge: 'auto',
      mergeMethod: 'squash',
      labels: [],
      mergeTimeoutSeconds: 3600,
      keepTests: 0,
      refresh: []
    })
    expect(s.coder.message).toBe(`Add Go to the docker template ${MARKER}`)
    expect(s.runUrl).toBe('https://github.com/acme/templates/actions/runs/77')
    expect(s.coder.commitSha).toBe(CONTEXT.sha)
    expect(s.coder.variables).toEqual([])
    expect([s.coder.createTemplate, s.allowRollback, s.commentOnPr]).toEqual([false, false, false])
    expect(s.pullRequestNumber).toBeNull()
  })

  it('takes every optional input', () => {
    const s = settingsOf({
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
      'test-name': 'my-test',
      'test-presets': 'small\nLarge GPU'
    })
    expect(s.test.presets).toEqual({ kind: 'named', names: ['small', 'Large GPU'] })
    expect(s.coder.directory).toBe('/work/repo/templates/docker')
    expect(s.coder.version).toBe('V2.0_rc1')
    expect(s.coder.message).toBe(`hello ${MARKER}`)
    expect(s.coder.variables).toEqual([
      { name: 'region', value: 'eu' },
      { name: 'size', value: 'large=xl' }
    ])
    expect(s.test.parameters).toEqual([
      { name: 'cpu', value: '2' },
      { name: 'memory', value: '4' }
    ])
    expect(s.gitops.path).toBe('clusters/prod/tests')
    expect(s.promote).toBe('dry-run')
    expect(s.test.waitTimeoutSeconds).toBe(60)
    expect(s.test.syncTimeoutSeconds).toBe(30)
    expect(s.test.timeoutSeconds).toBe(1200)
    expect(s.test.name).toBe('my-test')
  })

  it.each<[Inputs, string]>([
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
    [{ 'test-presets': 'all,large' }, 'Input "test-presets" "all,large" is invalid: "all" stands'],
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

  it('never shows a secret value in an error, with every rule failing at once', () => {
    const result = parse(EVERY_RULE_BROKEN)
    expect(result.ok).toBe(false)
    if (result.ok) return
    // Each rule built its message: every broken input is named.
    expect([...new Set(result.errors.map((e) => e.input))].sort()).toEqual(BROKEN_INPUTS)
    expect(secretPartsIn(result.errors.map((e) => e.message).join('\n'))).toEqual([])
  })

  it('the secret check finds a secret and a part of one', () => {
    expect(secretPartsIn(`token ${SECRETS['coder-token']}`)).toContain(SECRETS['coder-token'])
    expect(secretPartsIn(`a ${URL_PASSWORD.slice(2, 2 + SECRET_PART)} b`)).toHaveLength(1)
    expect(secretPartsIn(`${URL_PASSWORD.slice(0, SECRET_PART - 1)}`)).toEqual([])
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
    expect(result.ok && result.settings.coder.version).toBe('pr-7-abcdef0')
    // The version is named after the PR head, and so is its owner mark, not the merge commit.
    expect(result.ok && result.settings.coder.commitSha).toBe('abcdef0123456789')
    expect(result.ok && result.settings.coder.message).toContain('commit abcdef012345,')
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

describe('parseInputs: the pull-request, pruning and switch inputs', () => {
  const FIELD: Partial<Record<InputName, (s: Settings) => unknown>> = {
    'gitops-mode': (s) => s.gitops.delivery,
    'pull-request-merge': (s) => s.gitops.merge,
    'pull-request-merge-method': (s) => s.gitops.mergeMethod,
    'keep-tests': (s) => s.gitops.keepTests,
    'merge-timeout-seconds': (s) => s.gitops.mergeTimeoutSeconds,
    'create-template': (s) => s.coder.createTemplate,
    'allow-rollback': (s) => s.allowRollback,
    'comment-on-pr': (s) => s.commentOnPr
  }
  const TOKEN = { 'github-token': 'ghs_comment' }

  it.each<[InputName, string, unknown]>([
    ['gitops-mode', 'commit', 'commit'],
    ['gitops-mode', ' pull-request ', 'pull-request'],
    ['pull-request-merge', '', 'auto'],
    ['pull-request-merge', 'immediate', 'immediate'],
    ['pull-request-merge', 'manual', 'manual'],
    ['pull-request-merge-method', 'merge', 'merge'],
    ['pull-request-merge-method', 'squash', 'squash'],
    ['pull-request-merge-method', 'rebase', 'rebase'],
    ['keep-tests', '0', 0],
    ['keep-tests', '2', 2],
    ['keep-tests', '1000', 1000],
    ['merge-timeout-seconds', '1', 1],
    ['merge-timeout-seconds', '432000', 432000],
    ['create-template', 'true', true],
    ['create-template', 'false', false],
    ['allow-rollback', 'true', true],
    ['allow-rollback', '', false],
    ['comment-on-pr', 'true', true],
    ['comment-on-pr', 'false', false]
  ])('%s %j gives %j', (input, value, expected) => {
    expect(FIELD[input]?.(settingsOf({ ...TOKEN, [input]: value }))).toEqual(expected)
  })

  it.each<[InputName, string, string]>([
    ['gitops-mode', 'pr', 'must be "commit" or "pull-request"'],
    ['gitops-mode', 'Commit', 'must be "commit" or "pull-request"'],
    ['gitops-mode', 'pull_request', 'must be "commit" or "pull-request"'],
    ['pull-request-merge', 'squash', 'must be "auto", "immediate" or "manual"'],
    ['pull-request-merge', 'Auto', 'must be "auto", "immediate" or "manual"'],
    ['pull-request-merge-method', 'fast-forward', 'must be "merge", "squash" or "rebase"'],
    ['pull-request-merge-method', 'Rebase', 'must be "merge", "squash" or "rebase"'],
    ['keep-tests', '-1', 'must be a whole number from 0 to 1000'],
    ['keep-tests', '1.5', 'must be a whole number from 0 to 1000'],
    ['keep-tests', '1001', 'must be a whole number from 0 to 1000'],
    ['keep-tests', 'x', 'must be a whole number from 0 to 1000'],
    ['merge-timeout-seconds', '0', 'must be a whole number from 1 to 432000'],
    ['merge-timeout-seconds', '-60', 'must be a whole number from 1 to 432000'],
    ['merge-timeout-seconds', '1.5', 'must be a whole number from 1 to 432000'],
    ['merge-timeout-seconds', '432001', 'must be a whole number from 1 to 432000'],
    ['merge-timeout-seconds', 'soon', 'must be a whole number from 1 to 432000'],
    ...(['create-template', 'allow-rollback', 'comment-on-pr'] as const).flatMap((input) =>
      ['yes', 'True', '1', 'no'].map((value): [InputName, string, string] => [
        input,
        value,
        'must be "true" or "false"'
      ])
    )
  ])('%s %j is refused: %s', (input, value, rule) => {
    expect(refusalsOf(input, { ...TOKEN, [input]: value })).toEqual([
      `Input "${input}" ${JSON.stringify(value)} is invalid: ${rule}.`
    ])
  })

  it('comment-on-pr needs github-token, and comments on the pull request of the event', () => {
    expect(refusalsOf('github-token', { 'comment-on-pr': 'true' })).toEqual([
      'Input "github-token" is required when comment-on-pr is "true" and was empty.'
    ])
    const pr = { ...CONTEXT, eventName: 'pull_request', pullRequest: { number: 7, headSha: 'ab' } }
    const result = parse({ ...TOKEN, 'comment-on-pr': 'true' }, pr)
    expect(result.ok && result.settings.pullRequestNumber).toBe(7)
    expect(result.ok && result.settings.githubToken).toBe('ghs_comment')
  })

  it.each<[string, string[]]>([
    ['', []],
    ['bug', ['bug']],
    [' needs review , gate ', ['needs review', 'gate']],
    ['a,\n, b,,\r\nc\n\n', ['a', 'b', 'c']],
    ['gate,gate', ['gate']],
    ['l'.repeat(50), ['l'.repeat(50)]],
    ['é'.repeat(50), ['é'.repeat(50)]]
  ])('pull-request-labels %j gives %j', (value, labels) => {
    expect(settingsOf({ 'pull-request-labels': value }).gitops.labels).toEqual(labels)
  })

  it.each<[string, string]>([
    ['l'.repeat(51), `the label "${'l'.repeat(20)}…" is longer than 50 characters`],
    [`ok, ${'é'.repeat(51)}`, 'is longer than 50 characters'],
    ['ok,a\tb', 'the label "a\\tb" holds a control character']
  ])('pull-request-labels %j is refused: %s', (value, rule) => {
    const [message = ''] = refusalsOf('pull-request-labels', { 'pull-request-labels': value })
    expect(message).toMatch(/^Input "pull-request-labels" .*is invalid: /)
    expect(message).toContain(rule)
  })
})

describe('parseInputs: variables-file', () => {
  const INPUT_SECRET = 'input-secret-value'

  it('reads the file relative to the workspace through FileAccess, `variables` over it', () => {
    const reads: string[] = []
    const result = parse(
      { 'variables-file': './vars.yaml', variables: `size=large\ntoken=${INPUT_SECRET}` },
      CONTEXT,
      reads
    )
    expect(reads).toEqual(['/work/repo/vars.yaml'])
    expect(result.ok && result.settings.coder.variables).toEqual([
      { name: 'region', value: 'eu' },
      // As the CLI reads the file (a map of strings): scalars as written, null as ''.
      { name: 'image_tag', value: '1.10' },
      { name: 'mask', value: '0x1F' },
      { name: 'flag', value: 'True' },
      { name: 'empty', value: '' },
      { name: 'size', value: 'large' },
      { name: 'password', value: FILE_SECRET },
      { name: 'token', value: INPUT_SECRET }
    ])
  })

  it.each<[string, string]>([
    ['missing.yaml', '/work/repo/missing.yaml cannot be read'],
    ['broken.yaml', 'must be YAML (a map of variable names to values)'],
    ['twice.yaml', 'must be YAML (a map of variable names to values)'],
    ['list.yaml', 'must be a YAML map of variable names to values'],
    ['nested.yaml', 'the value of "db" must be a string, a number or a boolean']
  ])('%s is refused: %s, without a value', (file, rule) => {
    const inputs = { 'variables-file': file, variables: `token=${INPUT_SECRET}` }
    expect(refusalsOf('variables-file', inputs)).toEqual([
      `Input "variables-file" "${file}" is invalid: ${rule}.`
    ])
    const text = JSON.stringify(parse(inputs))
    expect(text).not.toContain(FILE_SECRET)
    expect(text).not.toContain(INPUT_SECRET)
  })
})

describe('parseInputs: coder-url credentials and the version message', () => {
  const RULE =
    'Input "coder-url" is invalid: must not contain credentials (user:password@); pass the session token as coder-token.'

  it.each([
    'https://admin:pa55word@coder.example.com',
    'https://admin:pa55word@coder.example.com/path?x=1',
    'http://admin:pa55word@',
    'admin:pa55word@coder.example.com',
    'https:\\\\admin:pa55word@coder.example.com',
    'https://admin:pa55w@rd@coder.example.com'
  ])('%s is refused without the password', (url) => {
    expect(refusalsOf('coder-url', { 'coder-url': url })).toEqual([RULE])
    expect(JSON.stringify(parse({ 'coder-url': url }))).not.toMatch(/pa55w/)
  })

  it('refuses a user without a password too', () => {
    expect(refusalsOf('coder-url', { 'coder-url': 'https://ci@coder.example.com' })).toEqual([RULE])
  })

  it.each([
    ['', `Add Go to the docker template ${MARKER}`],
    ['  Release 2.0  ', `Release 2.0 ${MARKER}`],
    ['first line\nsecond line', `first line\nsecond line ${MARKER}`],
    [
      'ends like a marker (commit aaaaaaaaaaaa, x)',
      `ends like a marker (commit aaaaaaaaaaaa, x) ${MARKER}`
    ]
  ])('message %j ends with the commit marker', (message, expected) => {
    const { coder } = settingsOf({ message })
    expect(coder.message).toBe(expected)
    expect(hasVersionMarker(coder.message, CONTEXT.sha)).toBe(true)
  })
})

// The inputs step adds the kubeconfig: its errors must not show the content's secrets either,
// with every other rule failing beside it.
describe('validateInputs: no secret in any error, the kubeconfig included', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'inputs-secrets-'))
  writeFileSync(join(workspace, 'broken.yaml'), `a: [unclosed ${FILE_SECRET}`)
  afterAll(() => rmSync(workspace, { recursive: true, force: true }))
  const KUBE = {
    token: 'Kt5Rw9Zb3Nq7',
    password: 'Pm4Xs8Dv2Lc6',
    keyData: Buffer.from('Ek7Yh3Ju9Wf1 private key').toString('base64')
  }
  const kubeSecrets = [KUBE.token, KUBE.password, KUBE.keyData, 'Ek7Yh3Ju9Wf1']
  const users = `users:\n- name: ci\n  user:\n    token: ${KUBE.token}\n    password: ${KUBE.password}\n    client-key-data: ${KUBE.keyData}\n`
  const cluster = 'clusters:\n- name: c\n  cluster:\n    server: https://k8s.example.com\n'
  const context = (name: string, clusterName = 'c') =>
    `contexts:\n- name: ${name}\n  context:\n    cluster: ${clusterName}\n    user: ci\n`

  it.each<[string, string, string]>([
    ['broken YAML around the token', `apiVersion: v1\n${users}   bad: [`, ''],
    ['an unclosed quote in the token', `${users.replace(KUBE.token, `"${KUBE.token}`)}`, ''],
    ['the token alone', KUBE.token, ''],
    ['a list of secrets', `- ${KUBE.token}\n- ${KUBE.password}`, ''],
    ['no current-context', `apiVersion: v1\nkind: Config\n${cluster}${context('ci')}${users}`, ''],
    [
      'a kube-context that does not exist',
      `apiVersion: v1\nkind: Config\n${cluster}${context('ci')}${users}current-context: ci\n`,
      'missing'
    ],
    [
      'a context naming no cluster',
      `apiVersion: v1\nkind: Config\n${context('ci', 'gone')}${users}current-context: ci\n`,
      ''
    ]
  ])('%s', (_, kubeconfig, kubeContext) => {
    const inputs: Inputs = { ...EVERY_RULE_BROKEN, kubeconfig, 'kube-context': kubeContext }
    const masked: string[] = []
    const result = validateInputs({
      read: (name) => inputs[name] ?? '',
      env: {
        GITHUB_WORKSPACE: workspace,
        GITHUB_REPOSITORY: 'acme/templates',
        GITHUB_SHA: CONTEXT.sha
      },
      mask: (secret) => masked.push(secret)
    })
    expect(result.ok).toBe(false)
    if (result.ok) return
    const problems = result.failure.problems
    // The kubeconfig's own error is among them, beside one per broken input.
    expect(problems.filter((p) => /^Input "(kubeconfig|kube-context)"/.test(p))).toHaveLength(1)
    expect(problems.length).toBeGreaterThanOrEqual(BROKEN_INPUTS.length + 1)
    expect(secretPartsIn(JSON.stringify(result), kubeSecrets)).toEqual([])
    // Every secret input is masked before anything can be logged.
    for (const secret of [SECRETS['coder-token'], SECRETS['gitops-token'], URL_PASSWORD])
      expect(masked).toContain(secret)
  })
})
