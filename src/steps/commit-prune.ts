// keep-tests for the commit step: this template's gate-written manifests beyond the newest N
// versions, decided by gitops/prune.ts (never a newer version, an unknown time or a test that still
// runs, which the cluster is asked about through CommitInput.testState).
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import {
  isGateManifestFor,
  type JudgedRemoval,
  type PruneCandidate,
  mayRemoveTest,
  planPrune,
  selectPrunableLive,
  PRUNE_KEPT_TEXT,
  type TestState
} from '../gitops/prune.js'
import { parseManifest } from '../objects/manifest.js'
import type { GitHost } from '../gitops/host.js'
import type { Settings } from '../settings/settings.js'
import type { Preflight } from './preflight.js'
import type { Pushed } from './push.js'
import { clockOf, type StepContext } from './step.js'

/** The part of the commit step's input that keep-tests reads (CommitInput in commit.ts). */
export interface KeepTestsInput {
  settings: Settings
  preflight: Pick<Preflight, 'organization' | 'branch' | 'startingActive'>
  pushed: Pick<Pushed, 'template' | 'versionName'>
  host: GitHost
  versionCreatedAt: Readonly<Record<string, string>>
  testState?: (name: string, signal: AbortSignal) => Promise<TestState>
}

/** keep-tests: this template's gate-written manifests beyond the newest N, by version creation. */
export async function prunable(
  input: KeepTestsInput,
  thisRunPaths: string[],
  context: StepContext
): Promise<JudgedRemoval[]> {
  const { settings, preflight, pushed } = input
  const { files, cut } = await input.host.listManifests(preflight.branch, settings.gitops.path, {
    signal: context.signal,
    clock: clockOf(context)
  })
  if (cut) context.log.warning(`keep-tests saw only part of ${settings.gitops.path}: ${cut}`)
  const blobOf = new Map(files.map((file) => [file.path, file.sha]))
  const { candidates, testOf } = gateManifests(input, files)
  const pruneInput = {
    candidates,
    keep: settings.gitops.keepTests,
    activeVersionName: preflight.startingActive?.name,
    thisRunPaths,
    thisRunVersionName: pushed.versionName,
    thisRunCreatedAt: timeOf(input, pushed.versionName)
  }
  // Live tests are ordered by the run and attempt in their names; a version's by its creation.
  const plan =
    settings.mode === 'verify'
      ? { remove: selectPrunableLive(pruneInput), kept: [] }
      : planPrune(pruneInput)
  for (const { path, why } of plan.kept)
    context.log.info(`keep-tests keeps ${path}: ${PRUNE_KEPT_TEXT[why]}`)
  // A version's manifests stay together: one test still running keeps them all.
  const versionOf = new Map(candidates.map((c) => [c.path, c.versionName || c.path]))
  const staying = new Set<string>()
  for (const path of plan.remove) {
    const state = input.testState
      ? await input.testState(testOf.get(path) ?? '', context.signal)
      : 'absent'
    if (mayRemoveTest(state)) continue
    staying.add(versionOf.get(path) ?? path)
    context.log.info(`keep-tests keeps ${path}: ${RUNNING_TEXT[state]}`)
  }
  return plan.remove
    .filter((path) => !staying.has(versionOf.get(path) ?? path))
    .map((path) => ({ path, blobSha: blobOf.get(path) ?? '' }))
}

/** This template's gate-written manifests of this run's kind (live or version tests). */
function gateManifests(
  input: KeepTestsInput,
  files: { path: string; content: string }[]
): { candidates: PruneCandidate[]; testOf: Map<string, string> } {
  const { settings, preflight, pushed } = input
  const testOf = new Map<string, string>()
  const candidates: PruneCandidate[] = []
  for (const file of files) {
    let parsed: CoderTemplateTest | null = null
    try {
      parsed = parseManifest(file.content)
    } catch {
      // not YAML: not a manifest of ours, never touched
    }
    if (!parsed) continue
    const ours = isGateManifestFor(parsed, {
      organization: preflight.organization,
      template: pushed.template,
      namespace: settings.test.namespace
    })
    if (!ours) continue
    // A live test (mode: verify) and a version's test are pruned each among their own kind.
    if ((parsed.spec.version?.active === true) !== (settings.mode === 'verify')) continue
    const versionName = parsed.spec.version?.name ?? ''
    candidates.push({ path: file.path, versionName, createdAt: timeOf(input, versionName) })
    testOf.set(file.path, parsed.metadata?.name ?? '')
  }
  return { candidates, testOf }
}

const RUNNING_TEXT: Record<TestState, string> = {
  running: 'its test is still running in the cluster',
  unread: 'the cluster could not tell whether its test still runs',
  final: '',
  absent: ''
}

/** Coder's created_at of a version by name, as the push step read it; absent when unknown. */
function timeOf(input: KeepTestsInput, versionName: string): string | undefined {
  return Object.hasOwn(input.versionCreatedAt, versionName)
    ? input.versionCreatedAt[versionName]
    : undefined
}
