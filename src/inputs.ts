// Every input of action.yml parsed and validated into one typed Settings object, before any step
// runs. Pure: the caller passes the raw values and the run context, so every rule has a table test.
// The input names and defaults are fixed by shared/design/interface.md.
import path from 'node:path'
import type { NameValue } from './api.js'
import {
  coderNameProblem,
  deriveVersion,
  dnsLabelProblem,
  dnsSubdomainProblem,
  type RevisionContext,
  testNameFor,
  type VersionSource,
  versionNameProblem
} from './naming.js'

export const INPUT_NAMES = [
  'coder-url',
  'coder-token',
  'template',
  'organization',
  'directory',
  'version',
  'message',
  'variables',
  'coder-cli',
  'namespace',
  'control-plane',
  'test-name',
  'test-parameters',
  'test-timeout-seconds',
  'gitops-repository',
  'gitops-branch',
  'gitops-path',
  'gitops-token',
  'kubeconfig',
  'kube-context',
  'promote',
  'wait-timeout-seconds',
  'sync-timeout-seconds'
] as const
export type InputName = (typeof INPUT_NAMES)[number]

/** Inputs whose values are never shown in an error. */
export const SECRET_INPUTS: readonly InputName[] = ['coder-token', 'gitops-token', 'kubeconfig']

/**
 * The wait allowance on top of test-timeout-seconds. The test's clock starts only at
 * status.startTime (coder-k8s-api.md §1.9), so the wait must also cover the controller starting or
 * recovering before that; §5.4 adds the workspace delete too, although §1.2 counts the delete build
 * inside timeoutSeconds. 600 s covers a controller restart and the delete with room to spare.
 */
export const WAIT_ALLOWANCE_SECONDS = 600
/** The longest wait any input may ask for: 5 days, the job limit of self-hosted runners. */
export const MAX_WAIT_SECONDS = 432_000
/** Coder accepts up to 1 MiB, but the message goes on the CLI's command line. */
export const MESSAGE_MAX = 65_536

export const TEST_TIMEOUT_MIN = 60
export const TEST_TIMEOUT_MAX = 7200
export const TEST_PARAMETERS_MAX = 64
export const PARAMETER_NAME_MAX = 128
export const PARAMETER_VALUE_MAX = 4096

export type PromoteMode = 'promote' | 'skip' | 'dry-run'

export interface RunContext extends RevisionContext {
  serverUrl: string
  repository: string
  runId: string
  runAttempt: string
  workspace: string
  /** First line of the head commit message or the PR title, for the default version message. */
  subject: string
}

/** Everything but the kubeconfig, which main.ts loads first of all so that its credentials are
 * masked before any other input is read (src/kube/config.ts). */
export interface Settings {
  coderUrl: string
  coderToken: string
  template: string
  /** '' or 'default' means the default organization, resolved through the Coder API later. */
  organization: string
  directory: string
  version: string
  versionSource: VersionSource | 'input'
  /** The text the version was derived from, when sanitising changed it. */
  versionRaw: string
  message: string
  /** The commit checked out (GITHUB_SHA): a version of this name that names it was pushed by us. */
  commitSha: string
  variables: NameValue[]
  coderCli: string
  namespace: string
  controlPlane: string
  /** The test-name input, or <template>-<version> mapped to a DNS-1123 label (lowercase, so the
   * template's casing does not matter). */
  testName: string
  testParameters: NameValue[]
  testTimeoutSeconds: number
  gitops: { owner: string; repo: string; branch: string; path: string; token: string }
  promote: PromoteMode
  waitTimeoutSeconds: number
  syncTimeoutSeconds: number
  runUrl: string
}

export interface InputError {
  input: InputName
  message: string
}

export type ParseResult = { ok: true; settings: Settings } | { ok: false; errors: InputError[] }

export function parseInputs(
  read: (name: InputName) => string,
  context: RunContext,
  isDirectory: (absolutePath: string) => boolean
): ParseResult {
  const errors: InputError[] = []
  const raw = (name: InputName): string => read(name).trim()
  const fail = (input: InputName, rule: string): void => {
    const value = raw(input)
    const shown = SECRET_INPUTS.includes(input) ? '' : ` ${JSON.stringify(value)}`
    errors.push({ input, message: `Input "${input}"${shown} is invalid: ${rule}.` })
  }
  const required = (input: InputName): string => {
    const value = raw(input)
    if (!value) errors.push({ input, message: `Input "${input}" is required and was empty.` })
    return value
  }

  const coderUrl = required('coder-url')
  if (coderUrl && !isHttpUrl(coderUrl)) fail('coder-url', 'must be an http:// or https:// URL')
  const coderToken = required('coder-token')

  const template = required('template')
  const templateProblem = template ? coderNameProblem(template) : null
  if (templateProblem) fail('template', `a Coder template name ${templateProblem}`)

  const organization = raw('organization')
  if (organization && organization !== 'default') {
    const problem = coderNameProblem(organization)
    if (problem) fail('organization', `a Coder organization name ${problem}`)
  }

  const directory = path.resolve(context.workspace, raw('directory') || '.')
  if (!isDirectory(directory)) fail('directory', `${directory} is not a directory`)

  let version = raw('version')
  let versionSource: Settings['versionSource'] = 'input'
  let versionRaw = version
  if (version) {
    const problem = versionNameProblem(version)
    if (problem) fail('version', `a Coder template version name ${problem}`)
  } else {
    const derived = deriveVersion(context)
    version = derived.name
    versionSource = derived.source
    versionRaw = derived.raw
    const problem = version ? versionNameProblem(version) : 'nothing usable is left'
    if (problem) {
      errors.push({
        input: 'version',
        message: `Input "version" is empty, and no version name can be derived from the ${derived.source} "${derived.raw}" (${problem}): set it.`
      })
    }
  }

  const variables = parseNameValues('variables', raw('variables'), errors)
  const testParameters = parseNameValues('test-parameters', raw('test-parameters'), errors)
  if (testParameters.length > TEST_PARAMETERS_MAX) {
    fail('test-parameters', `at most ${TEST_PARAMETERS_MAX} entries (got ${testParameters.length})`)
  }
  for (const { name, value } of testParameters) {
    if (name.length > PARAMETER_NAME_MAX) {
      fail(
        'test-parameters',
        `the name "${name.slice(0, 40)}…" is longer than ${PARAMETER_NAME_MAX} characters`
      )
    }
    if (value.length > PARAMETER_VALUE_MAX) {
      fail(
        'test-parameters',
        `the value of "${name}" is longer than ${PARAMETER_VALUE_MAX} characters`
      )
    }
  }

  const namespace = required('namespace')
  const namespaceProblem = namespace ? dnsLabelProblem(namespace) : null
  if (namespaceProblem) fail('namespace', `a Kubernetes namespace ${namespaceProblem}`)

  const controlPlane = raw('control-plane') || 'coder'
  const controlPlaneProblem = dnsSubdomainProblem(controlPlane)
  if (controlPlaneProblem) fail('control-plane', `a CoderControlPlane name ${controlPlaneProblem}`)

  const testNameOverride = raw('test-name')
  const testNameProblem = testNameOverride ? dnsLabelProblem(testNameOverride) : null
  if (testNameProblem) fail('test-name', `a test name ${testNameProblem}`)

  const testTimeoutSeconds = parseInteger(
    'test-timeout-seconds',
    raw('test-timeout-seconds') || '900',
    TEST_TIMEOUT_MIN,
    TEST_TIMEOUT_MAX,
    errors
  )

  const repository = raw('gitops-repository') || context.repository
  const [owner = '', repo = ''] = repository.split('/')
  if (
    !/^[A-Za-z0-9](?:[A-Za-z0-9-]*)\/[A-Za-z0-9._-]+$/.test(repository) ||
    repo === '.' ||
    repo === '..'
  ) {
    fail('gitops-repository', 'must be "owner/name"')
  }
  const branch = raw('gitops-branch')
  if (branch && !isGitBranchName(branch)) fail('gitops-branch', 'must be a valid git branch name')
  const gitopsPath = normaliseRelativePath(raw('gitops-path'), 'coder-template-tests')
  if (gitopsPath === null) {
    fail(
      'gitops-path',
      'must be a relative folder path without ".." segments, a leading "/" or "\\"'
    )
  }
  const gitopsToken = required('gitops-token')

  const promote = parsePromote(raw('promote') || 'true')
  if (!promote) fail('promote', 'must be "true", "false" or "dry-run"')

  const waitInput = raw('wait-timeout-seconds')
  const waitTimeoutSeconds = waitInput
    ? parseInteger('wait-timeout-seconds', waitInput, 1, MAX_WAIT_SECONDS, errors)
    : testTimeoutSeconds + WAIT_ALLOWANCE_SECONDS
  const syncTimeoutSeconds = parseInteger(
    'sync-timeout-seconds',
    raw('sync-timeout-seconds') || '600',
    1,
    MAX_WAIT_SECONDS,
    errors
  )

  const message = raw('message')
  if (message.length > MESSAGE_MAX) fail('message', `at most ${MESSAGE_MAX} characters`)

  if (errors.length > 0) return { ok: false, errors }

  const runUrl = `${context.serverUrl}/${context.repository}/actions/runs/${context.runId}`
  return {
    ok: true,
    settings: {
      coderUrl: coderUrl.replace(/\/+$/, ''),
      coderToken,
      template,
      organization,
      directory,
      version,
      versionSource,
      versionRaw,
      message: message || defaultMessage(context, runUrl),
      commitSha: revisionOf(context),
      variables,
      coderCli: raw('coder-cli'),
      namespace,
      controlPlane,
      testName: testNameOverride || testNameFor(template, version),
      testParameters,
      testTimeoutSeconds,
      gitops: { owner, repo, branch, path: gitopsPath ?? '', token: gitopsToken },
      promote: promote ?? 'promote',
      waitTimeoutSeconds,
      syncTimeoutSeconds,
      runUrl
    }
  }
}

/** Multiline NAME=VALUE: blank lines are skipped, names must be non-empty and unique. */
export function parseNameValues(input: InputName, text: string, errors: InputError[]): NameValue[] {
  const entries: NameValue[] = []
  const seen = new Set<string>()
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim()) return
    const equals = line.indexOf('=')
    const name = (equals < 0 ? line : line.slice(0, equals)).trim()
    const where = `line ${index + 1}`
    if (equals < 0) {
      errors.push({ input, message: `Input "${input}" ${where} is invalid: expected NAME=VALUE.` })
      return
    }
    if (!name) {
      errors.push({
        input,
        message: `Input "${input}" ${where} is invalid: the name before "=" is empty.`
      })
      return
    }
    if (seen.has(name)) {
      errors.push({
        input,
        message: `Input "${input}" ${where} is invalid: the name "${name}" is given twice.`
      })
      return
    }
    seen.add(name)
    entries.push({ name, value: line.slice(equals + 1).trim() })
  })
  return entries
}

function parseInteger(
  input: InputName,
  text: string,
  min: number,
  max: number,
  errors: InputError[]
): number {
  const value = /^\d+$/.test(text) ? Number(text) : NaN
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = `a whole number from ${min} to ${max}`
    errors.push({
      input,
      message: `Input "${input}" ${JSON.stringify(text)} is invalid: must be ${range}.`
    })
    return min
  }
  return value
}

function parsePromote(text: string): PromoteMode | null {
  switch (text) {
    case 'true':
      return 'promote'
    case 'false':
      return 'skip'
    case 'dry-run':
      return 'dry-run'
    default:
      return null
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password
  } catch {
    return false
  }
}

/** git check-ref-format, the parts that matter for a branch name. */
function isGitBranchName(name: string): boolean {
  return (
    // eslint-disable-next-line no-control-regex -- git refuses control characters in ref names
    !/[\s~^:?*[\\\x00-\x1f\x7f]/.test(name) &&
    !name.includes('..') &&
    !name.includes('@{') &&
    !name.startsWith('/') &&
    !name.endsWith('/') &&
    !name.endsWith('.') &&
    !name.endsWith('.lock') &&
    !name.includes('//') &&
    name !== '@' &&
    !name.split('/').some((part) => part.startsWith('.'))
  )
}

/** '' gives the default; returns null when the path is absolute or climbs out with "..". */
export function normaliseRelativePath(text: string, fallback: string): string | null {
  const value = text || fallback
  if (value.startsWith('/') || value.includes('\\') || /^[A-Za-z]:/.test(value)) return null
  const parts = value.split('/').filter((part) => part !== '' && part !== '.')
  if (parts.some((part) => part === '..')) return null
  return parts.join('/')
}

/**
 * The commit a version of this run is named after: the PR head for pull requests (as in
 * pr-<number>-<sha7>), else GITHUB_SHA. A new run of the same PR head, after its base moved, has
 * another merge commit but the same version name, and must still know the version as its own.
 */
function revisionOf(context: RunContext): string {
  return context.pullRequest && context.eventName.startsWith('pull_request')
    ? context.pullRequest.headSha
    : context.sha
}

function defaultMessage(context: RunContext, runUrl: string): string {
  const sha = revisionOf(context)
  const subject = context.subject.split(/\r?\n/)[0]?.trim() || `Commit ${sha.slice(0, 7)}`
  const commit = sha ? `commit ${sha.slice(0, 12)}, ` : ''
  return `${subject} (${commit}${runUrl})`
}
