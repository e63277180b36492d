// Every input of action.yml parsed and validated into one typed Settings object, before any step
// runs. Pure: the caller passes the raw values, the run context and the file reads, so every rule
// has a table test. The input names and defaults are fixed by action.yml.
import path from 'node:path'
import type { NameValue } from '../objects/coder-k8s.js'
import {
  InputReader,
  isGitBranchName,
  labelProblem,
  normaliseRelativePath,
  parseVariablesYaml,
  urlProblem
} from './rules.js'
import {
  coderNameProblem,
  deriveVersion,
  dnsLabelProblem,
  dnsSubdomainProblem,
  testNameFor,
  versionNameProblem
} from './naming.js'
import {
  type CoderSettings,
  type FileAccess,
  type Delivery,
  type GitOpsSettings,
  type InputError,
  type InputName,
  KEEP_TESTS_MAX,
  KEEP_VERSIONS_MAX,
  MAX_WAIT_SECONDS,
  MERGE_STRATEGIES,
  type MergeMethod,
  type MergeStrategy,
  MESSAGE_MAX,
  PARAMETER_NAME_MAX,
  PARAMETER_VALUE_MAX,
  type RunContext,
  SECRET_INPUTS,
  type Settings,
  TEST_PARAMETERS_MAX,
  TEST_TIMEOUT_MAX,
  TEST_TIMEOUT_MIN,
  type TestSettings,
  WAIT_ALLOWANCE_SECONDS
} from './settings.js'
import { parseMode } from './mode.js'
import { parsePresetSelection, type PresetSelection } from './presets.js'
import { liveTestName, parseLive } from './live.js'
import { parseRefreshTargets } from './refresh.js'
import { withVersionMarker } from '../coder/version-identity.js'
import { defaultSubject, revisionOf, runUrlWithoutAttempt } from './run-context.js'

export * from './settings.js'

export type ParseResult = { ok: true; settings: Settings } | { ok: false; errors: InputError[] }

type Reader = InputReader<InputName>

export function parseInputs(
  read: (name: InputName) => string,
  context: RunContext,
  files: FileAccess
): ParseResult {
  const reader = new InputReader<InputName>(read, SECRET_INPUTS)
  const coder = parseCoder(reader, context, files)
  const test = parseTest(reader, coder)
  const gitops = parseGitOps(reader, context)
  const promote = reader.choice('promote', 'true', ['true', 'false', 'dry-run'])
  const promoteMode = promote === 'true' ? 'promote' : promote === 'false' ? 'skip' : 'dry-run'
  const modes = parseMode(reader, promoteMode)
  const live = parseLive(reader, modes.mode, context)
  const allowRollback = reader.boolean('allow-rollback', 'false')
  const commentOnPr = reader.boolean('comment-on-pr', 'false')
  const tidy = {
    keepVersions: reader.integer('keep-versions', '0', 0, KEEP_VERSIONS_MAX),
    archiveFailed: reader.boolean('archive-failed', 'false')
  }
  const githubToken = reader.raw('github-token')
  if (commentOnPr && !githubToken) reader.required('github-token', 'when comment-on-pr is "true"')
  if (reader.errors.length > 0) return { ok: false, errors: reader.errors }
  return {
    ok: true,
    settings: {
      coder,
      // mode: verify: one new test per run and attempt, never an old result.
      test:
        modes.mode === 'verify'
          ? { ...test, name: liveTestName(coder.template, context.runId, context.runAttempt) }
          : test,
      gitops,
      ...modes,
      live,
      tidy,
      allowRollback,
      commentOnPr,
      githubToken,
      runUrl: runUrlWithoutAttempt(context),
      pullRequestNumber:
        context.pullRequest && context.eventName.startsWith('pull_request')
          ? context.pullRequest.number
          : null
    }
  }
}

function parseCoder(reader: Reader, context: RunContext, files: FileAccess): CoderSettings {
  const url = reader.required('coder-url')
  const problem = url ? urlProblem(url) : null
  // A URL with credentials is never echoed: it holds a password.
  if (problem) reader.fail('coder-url', problem, { hideValue: problem.includes('credentials') })
  const token = reader.required('coder-token')

  const template = reader.required('template')
  const templateProblem = template ? coderNameProblem(template) : null
  if (templateProblem) reader.fail('template', `a Coder template name ${templateProblem}`)

  const organization = reader.raw('organization')
  const orgProblem =
    organization && organization !== 'default' ? coderNameProblem(organization) : null
  if (orgProblem) reader.fail('organization', `a Coder organization name ${orgProblem}`)

  const directory = path.resolve(context.workspace, reader.raw('directory') || '.')
  if (!files.isDirectory(directory)) reader.fail('directory', `${directory} is not a directory`)

  const version = parseVersion(reader, context)
  const message = reader.raw('message')
  if (message.length > MESSAGE_MAX) reader.fail('message', `at most ${MESSAGE_MAX} characters`)
  const commitSha = revisionOf(context) || undefined
  return {
    url: url.replace(/\/+$/, ''),
    token,
    template,
    organization,
    directory,
    ...version,
    message: withVersionMarker(
      message || defaultSubject(context),
      commitSha,
      runUrlWithoutAttempt(context)
    ),
    commitSha,
    variables: parseVariables(reader, context, files),
    createTemplate: reader.boolean('create-template', 'false'),
    cli: reader.raw('coder-cli')
  }
}

function parseVersion(
  reader: Reader,
  context: RunContext
): Pick<CoderSettings, 'version' | 'versionSource' | 'versionRaw'> {
  const given = reader.raw('version')
  if (given) {
    const problem = versionNameProblem(given)
    if (problem) reader.fail('version', `a Coder template version name ${problem}`)
    return { version: given, versionSource: 'input', versionRaw: given }
  }
  const derived = deriveVersion(context)
  const problem = derived.name ? versionNameProblem(derived.name) : 'nothing usable is left'
  if (problem) {
    reader.errors.push({
      input: 'version',
      message: `Input "version" is empty, and no version name can be derived from the ${derived.source} "${derived.raw}" (${problem}): set it.`
    })
  }
  return { version: derived.name, versionSource: derived.source, versionRaw: derived.raw }
}

/** variables-file (a YAML map, the CLI's `--variables-file` format), then `variables` over it. */
function parseVariables(reader: Reader, context: RunContext, files: FileAccess): NameValue[] {
  const fromInput = reader.nameValues('variables')
  const file = reader.raw('variables-file')
  if (!file) return fromInput
  const absolute = path.resolve(context.workspace, file)
  const text = files.readText(absolute)
  if (text === null) {
    reader.fail('variables-file', `${absolute} cannot be read`)
    return fromInput
  }
  const fromFile = parseVariablesYaml(text)
  if (typeof fromFile === 'string') {
    reader.fail('variables-file', fromFile)
    return fromInput
  }
  const merged = new Map(fromFile.map((entry) => [entry.name, entry.value]))
  for (const { name, value } of fromInput) merged.set(name, value)
  return [...merged].map(([name, value]) => ({ name, value }))
}

function parseTest(reader: Reader, coder: CoderSettings): TestSettings {
  const parameters = reader.nameValues('test-parameters')
  if (parameters.length > TEST_PARAMETERS_MAX) {
    reader.fail(
      'test-parameters',
      `at most ${TEST_PARAMETERS_MAX} entries (got ${parameters.length})`
    )
  }
  for (const { name, value } of parameters) {
    if (name.length > PARAMETER_NAME_MAX) {
      const shown = `${name.slice(0, 40)}…`
      reader.fail(
        'test-parameters',
        `the name "${shown}" is longer than ${PARAMETER_NAME_MAX} characters`
      )
    }
    if (value.length > PARAMETER_VALUE_MAX) {
      reader.fail(
        'test-parameters',
        `the value of "${name}" is longer than ${PARAMETER_VALUE_MAX} characters`
      )
    }
  }
  const namespace = reader.required('namespace')
  const namespaceProblem = namespace ? dnsLabelProblem(namespace) : null
  if (namespaceProblem) reader.fail('namespace', `a Kubernetes namespace ${namespaceProblem}`)

  const controlPlane = reader.raw('control-plane') || 'coder'
  const controlPlaneProblem = dnsSubdomainProblem(controlPlane)
  if (controlPlaneProblem)
    reader.fail('control-plane', `a CoderControlPlane name ${controlPlaneProblem}`)

  const nameOverride = reader.raw('test-name')
  const nameProblem = nameOverride ? dnsLabelProblem(nameOverride) : null
  if (nameProblem) reader.fail('test-name', `a test name ${nameProblem}`)

  const timeoutSeconds = reader.integer(
    'test-timeout-seconds',
    '900',
    TEST_TIMEOUT_MIN,
    TEST_TIMEOUT_MAX
  )
  const waitGiven = reader.raw('wait-timeout-seconds') !== ''
  return {
    namespace,
    controlPlane,
    name: nameOverride || testNameFor(coder.template, coder.version),
    parameters,
    presets: parsePresets(reader),
    timeoutSeconds,
    waitTimeoutSeconds: waitGiven
      ? reader.integer('wait-timeout-seconds', '', 1, MAX_WAIT_SECONDS)
      : timeoutSeconds + WAIT_ALLOWANCE_SECONDS,
    syncTimeoutSeconds: reader.integer('sync-timeout-seconds', '600', 1, MAX_WAIT_SECONDS)
  }
}

function parsePresets(reader: Reader): PresetSelection {
  const parsed = parsePresetSelection(reader.raw('test-presets'))
  if (typeof parsed !== 'string') return parsed
  reader.fail('test-presets', parsed)
  return { kind: 'none' }
}

function parseGitOps(reader: Reader, context: RunContext): GitOpsSettings {
  const repository = reader.raw('gitops-repository') || context.repository
  const [owner = '', repo = ''] = repository.split('/')
  const validRepository =
    /^[A-Za-z0-9](?:[A-Za-z0-9-]*)\/[A-Za-z0-9._-]+$/.test(repository) &&
    repo !== '.' &&
    repo !== '..'
  if (!validRepository) reader.fail('gitops-repository', 'must be "owner/name"')
  const branch = reader.raw('gitops-branch')
  if (branch && !isGitBranchName(branch))
    reader.fail('gitops-branch', 'must be a valid git branch name')
  const gitopsPath = normaliseRelativePath(reader.raw('gitops-path'), 'coder-template-tests')
  if (gitopsPath === null) {
    reader.fail(
      'gitops-path',
      'must be a relative folder path without ".." segments, a leading "/" or "\\"'
    )
  }
  const labels = reader.list('pull-request-labels')
  for (const label of labels) {
    const problem = labelProblem(label)
    if (problem) reader.fail('pull-request-labels', problem)
  }
  return {
    owner,
    repo,
    branch,
    path: gitopsPath ?? '',
    token: reader.required('gitops-token'),
    delivery: reader.choice<Delivery>('gitops-mode', 'commit', ['commit', 'pull-request']),
    merge: reader.choice<MergeStrategy>('pull-request-merge', 'auto', MERGE_STRATEGIES),
    mergeMethod: reader.choice<MergeMethod>('pull-request-merge-method', 'squash', [
      'merge',
      'squash',
      'rebase'
    ]),
    labels: [...new Set(labels)],
    mergeTimeoutSeconds: reader.integer('merge-timeout-seconds', '3600', 1, MAX_WAIT_SECONDS),
    keepTests: reader.integer('keep-tests', '0', 0, KEEP_TESTS_MAX),
    refresh: parseRefreshTargets(reader)
  }
}
