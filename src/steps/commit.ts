// Step 4, commit: the CoderTemplateTest manifest in the GitOps repository, in one commit that also
// removes the older manifests keep-tests lets go. Commit mode writes to gitops-branch; pull-request
// mode to coder-template-gate/<test-name>, created from gitops-branch. Safe to run twice: identical
// content and nothing to remove make no commit.
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import type { ChangeOutcome, GitHost } from '../gitops/host.js'
import { type DroppedRemoval, droppedRemovalText, type TestState } from '../gitops/prune.js'
import { prunable } from './commit-prune.js'
import { manifestPathOf, pullRequestBranch } from '../gitops/naming.js'
import { buildTestManifest, parseManifest, renderManifest, sameTest } from '../objects/manifest.js'
import type { Settings } from '../settings/settings.js'
import type { PlannedTest } from '../settings/preset-selection.js'
import { defaultPlan } from './presets.js'
import type { Preflight } from './preflight.js'
import type { Pushed } from './push.js'
import { callOf, failed, messageOf, type StepContext, type StepResult, succeeded } from './step.js'

/** One test of the run as committed: the default test, or one per preset (test-presets). */
export interface CommittedTest {
  name: string
  /** '' for the default test. */
  preset: string
  manifest: CoderTemplateTest
  manifestPath: string
}

export interface Committed {
  /** The first test's manifest and path (the outputs test-name and manifest-path). */
  manifest: CoderTemplateTest
  manifestPath: string
  /** Every test of the run, in one commit; the first is `manifest`. */
  tests: CommittedTest[]
  /** The branch the commit went to. */
  branch: string
  /** '' when Git already held this exact change. */
  commitSha: string
  /** Absent when Git already held this exact change, or the host gave no link. */
  commitUrl?: string
  pruned: string[]
  /** keep-tests removals judged the gate's this run, still present or not (the branch guard). */
  removals?: string[]
  /** keep-tests removals left out because the file at the path changed (or went) meanwhile. */
  prunedDropped: DroppedRemoval[]
  /** Pull-request mode: gitops-branch already holds this manifest, so no pull request is needed. */
  onBase: boolean
}

export interface CommitInput {
  settings: Settings
  preflight: Pick<Preflight, 'organization' | 'branch' | 'startingActive'>
  pushed: Pick<Pushed, 'template' | 'versionName'>
  host: GitHost
  /**
   * keep-tests orders the manifests by their version's creation: name -> Coder's created_at, read
   * by the push step (Pushed.versionCreatedAt). A name missing here counts as the oldest.
   */
  versionCreatedAt: Readonly<Record<string, string>>
  /** The tests to commit (the presets step); absent: the one default test of the settings. */
  plan?: PlannedTest[]
  /** Whether a test keep-tests chose still runs (src/kube/test-state.ts); absent: not asked. */
  testState?: (name: string, signal: AbortSignal) => Promise<TestState>
}

/** What a failed commit leaves: whether it may have landed (the branch could not tell). */
export interface CommitFacts {
  outcomeUnknown: boolean
}

export async function commitManifest(
  input: CommitInput,
  context: StepContext
): Promise<StepResult<Committed, CommitFacts>> {
  const { settings, preflight } = input
  const { gitops, test } = settings
  const tests = committedTests(input)
  const { manifest, manifestPath } = tests[0] as CommittedTest
  const paths = tests.map((t) => t.manifestPath)
  const toPullRequest = gitops.delivery === 'pull-request'
  try {
    const deletions = gitops.keepTests > 0 ? await prunable(input, paths, context) : []
    if (toPullRequest && deletions.length === 0 && (await isOnBase(input, tests, context)))
      return succeeded(
        {
          manifest,
          manifestPath,
          tests,
          branch: preflight.branch,
          commitSha: '',
          pruned: [],
          prunedDropped: [],
          onBase: true
        },
        `${paths.join(', ')} ${paths.length > 1 ? 'are' : 'is'} already on ${gitops.owner}/${gitops.repo}@${preflight.branch}; no pull request needed`
      )
    const call = callOf(context)
    if (toPullRequest)
      await input.host.forwardSpentBranch(pullRequestBranch(test.name), preflight.branch, call)
    const outcome = await input.host.commit(
      {
        branch: toPullRequest ? pullRequestBranch(test.name) : preflight.branch,
        ...(toPullRequest ? { baseBranch: preflight.branch } : {}),
        manifests: tests.map((t) => ({
          path: t.manifestPath,
          content: renderManifest(t.manifest),
          isSame: (existing: string) => sameTest(parseManifest(existing), t.manifest)
        })),
        deletions,
        message: commitMessage(input, tests)
      },
      // guess: the sync-timeout also bounds the race for the branch, the wait that follows it.
      { ...call, deadline: context.now() + settings.test.syncTimeoutSeconds * 1000 }
    )
    logOutcome(outcome, context)
    const result = committed(input, tests, outcome)
    const removals = deletions.map((deletion) => deletion.path)
    return result.ok ? { ...result, value: { ...result.value, removals } } : result
  } catch (error) {
    if (context.signal.aborted) throw error
    return commitFailure(input.host, error)
  }
}

function logOutcome(outcome: ChangeOutcome, context: StepContext): void {
  for (const dropped of outcome.dropped) context.log.warning(droppedRemovalText(dropped))
  if (outcome.lostRaces > 0)
    context.log.info(`another writer moved the branch first ${outcome.lostRaces} times`)
  if (outcome.rateLimitPauses)
    context.log.info(`waited for GitHub's rate limit ${outcome.rateLimitPauses} times`)
}

/** A failed commit; outcomeUnknown when it may have landed (the branch could not tell). */
function commitFailure(host: GitHost, error: unknown): StepResult<never, CommitFacts> {
  const outcomeUnknown = host.failureOf(error)?.kind === 'outcome-unknown'
  return failed('commit', messageOf(error), {
    advice: commitAdvice(host, error),
    ...(outcomeUnknown ? { facts: { outcomeUnknown } } : {})
  })
}

function committedTests(input: CommitInput): CommittedTest[] {
  const { test, gitops } = input.settings
  const plan = input.plan ?? defaultPlan(test).tests
  return plan.map((planned) => ({
    name: planned.name,
    preset: planned.preset,
    manifestPath: manifestPathOf(gitops.path, planned.name),
    manifest: buildTestManifest({
      testName: planned.name,
      namespace: test.namespace,
      controlPlane: test.controlPlane,
      organization: input.preflight.organization,
      template: input.pushed.template,
      // mode: verify tests the version active when the controller resolves the test.
      version: input.settings.mode === 'verify' ? { active: true } : input.pushed.versionName,
      parameters: planned.parameters,
      timeoutSeconds: test.timeoutSeconds
    })
  }))
}

/** Pull-request mode: gitops-branch already holds these same tests, so no branch or pull request. */
async function isOnBase(
  input: CommitInput,
  tests: CommittedTest[],
  context: StepContext
): Promise<boolean> {
  for (const { manifestPath, manifest } of tests) {
    const onBase = await input.host.readFile(input.preflight.branch, manifestPath, callOf(context))
    if (onBase === null || !sameTest(parseManifest(onBase), manifest)) return false
  }
  return true
}

function committed(
  input: CommitInput,
  tests: CommittedTest[],
  outcome: ChangeOutcome
): StepResult<Committed> {
  const { manifest, manifestPath } = tests[0] as CommittedTest
  const shown = tests.map((t) => t.manifestPath).join(', ')
  const { gitops } = input.settings
  const where = `${gitops.owner}/${gitops.repo}@${outcome.branch}`
  const kept = outcome.dropped.filter((d) => d.reason === 'replaced').length
  const pruned =
    (outcome.deleted.length > 0 ? `; removed ${outcome.deleted.length} older test manifests` : '') +
    (kept > 0 ? `; kept ${kept} that changed since keep-tests chose them` : '')
  return succeeded(
    {
      manifest,
      manifestPath,
      tests,
      branch: outcome.branch,
      commitSha: outcome.commitSha,
      commitUrl: outcome.commitUrl,
      pruned: outcome.deleted,
      prunedDropped: outcome.dropped,
      onBase: gitops.delivery !== 'pull-request'
    },
    outcome.status === 'created'
      ? `committed ${shown} to ${where}${pruned}`
      : `${shown} ${tests.length > 1 ? 'were' : 'was'} already on ${where}; no commit`
  )
}

function commitAdvice(host: GitHost, error: unknown): string[] {
  const failure = host.failureOf(error)?.kind
  if (failure === 'branch-protected')
    return [
      'Set `gitops-mode: pull-request`: the gate then opens a pull request into the branch and waits for its merge.'
    ]
  if (failure === 'manifest-conflict')
    return ['Use a new version name, or remove the old manifest if it is really unused.']
  // A rate limit is not a permission problem (the error names the limit and when it ends).
  if (failure === 'rate-limited')
    return ["Start fewer gates at once (the matrix's max-parallel), or re-run after that time."]
  return [`Check that gitops-token may write to the GitOps repository (${host.tokenNeeds.write}).`]
}

function commitMessage(input: CommitInput, tests: CommittedTest[]): string {
  const { settings, preflight, pushed } = input
  const what =
    settings.mode === 'verify'
      ? `Verify the active version of ${preflight.organization}.${pushed.template}`
      : `Test ${preflight.organization}.${pushed.template} version ${pushed.versionName}`
  const lines = tests.map(
    (t) =>
      `CoderTemplateTest ${settings.test.namespace}/${t.name} (${t.manifestPath})${t.preset ? `, preset ${JSON.stringify(t.preset)}` : ''}, written by coder-template-gate.`
  )
  return [what, '', ...lines, `Run: ${settings.runUrl}`].join('\n')
}
