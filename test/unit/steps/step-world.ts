// What a step test of the commit and pull-request steps needs in-process: valid Settings from the
// action's inputs, a step context on a fake clock, and the in-memory Git host.
import type { HostCall } from '../../../src/gitops/host.js'
import type { InputName, RunContext } from '../../../src/settings/parse.js'
import { parseInputs } from '../../../src/settings/parse.js'
import type { Settings } from '../../../src/settings/settings.js'
import type { CommitInput, Committed } from '../../../src/steps/commit.js'
import type { PullRequestInput } from '../../../src/steps/pull-request.js'
import type { StepContext } from '../../../src/steps/step.js'
import { recordingLog } from '../../coder/helpers.js'
import { FakeClock } from '../../timing/fake-clock.js'
import { REQUIRED_INPUTS, RUN_CONTEXT } from '../settings/settings-fixture.js'
import { MemoryGitHost } from '../../gitops/memory/host.js'

// The settings tests' run, on a branch push rather than a tag.
const CONTEXT: RunContext = { ...RUN_CONTEXT, ref: 'refs/heads/main' }

export const MANIFEST_PATH = 'coder-template-tests/docker-v2.yaml'
export const GATE_BRANCH = 'coder-template-gate/docker-v2'

export function settingsFor(inputs: Partial<Record<InputName, string>> = {}): Settings {
  const all: Partial<Record<InputName, string>> = {
    ...REQUIRED_INPUTS,
    version: 'v2',
    'gitops-path': 'coder-template-tests',
    'test-name': 'docker-v2',
    ...inputs
  }
  const parsed = parseInputs((name) => all[name] ?? '', CONTEXT, {
    isDirectory: (path) => path.startsWith('/work/repo'),
    readText: () => null
  })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
  return parsed.settings
}

export function stepContext(clock = new FakeClock(1_000_000)) {
  const recorded = recordingLog()
  const abort = new AbortController()
  const context: StepContext = {
    signal: abort.signal,
    log: recorded.log,
    now: clock.now,
    sleep: clock.sleep,
    timeout: clock.timeout
  }
  return { context, clock, abort, ...recorded }
}

/** A host call outside a step. */
export function hostCall(clock = new FakeClock(1_000_000)): HostCall {
  return { signal: new AbortController().signal, clock }
}

export function commitInput(
  host: MemoryGitHost,
  settings: Settings,
  versionName = 'v2',
  versionCreatedAt: Record<string, string> = {}
): CommitInput {
  return {
    settings,
    preflight: { organization: 'acme', branch: 'main', startingActive: null },
    pushed: { template: 'docker', versionName },
    host,
    versionCreatedAt
  }
}

export function pullRequestInput(
  host: MemoryGitHost,
  settings: Settings,
  committed: Committed
): PullRequestInput {
  return {
    gitops: settings.gitops,
    test: settings.test,
    preflight: { organization: 'acme', branch: 'main' },
    pushed: { template: 'docker', versionName: 'v2', versionId: 'version-2' },
    committed,
    runUrl: settings.runUrl,
    host
  }
}
