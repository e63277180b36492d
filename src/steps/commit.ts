// Step 4, commit: the CoderTemplateTest manifest in the GitOps repository, in one commit that also
// removes the older manifests keep-tests lets go. Commit mode writes to gitops-branch; pull-request
// mode to coder-template-gate/<test-name>, created from gitops-branch. Safe to run twice: identical
// content and nothing to remove make no commit.
import type { CoderTemplateTest } from '../kube/objects.js'
import type { ChangeOutcome, GitHost, HostCall } from '../gitops/host.js'
import {
  type DroppedRemoval,
  droppedRemovalText,
  isGateManifestFor,
  type JudgedRemoval,
  selectPrunable,
  selectPrunableLive
} from '../gitops/prune.js'
import {
  buildTestManifest,
  manifestPathOf,
  parseManifest,
  pullRequestBranch,
  renderManifest,
  sameTest
} from '../verdict/manifest.js'
import type { Settings } from '../settings/settings.js'
import type { Preflight } from './preflight.js'
import type { Pushed } from './push.js'
import { clockOf, failed, messageOf, type StepContext, type StepResult, succeeded } from './step.js'

export interface Committed {
  manifest: CoderTemplateTest
  manifestPath: string
  /** The branch the commit went to. */
  branch: string
  /** '' when Git already held this exact change. */
  commitSha: string
  commitUrl: string
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
}

export async function commitManifest(
  input: CommitInput,
  context: StepContext
): Promise<StepResult<Committed>> {
  const { settings, preflight } = input
  const { gitops, test } = settings
  const manifest = testManifestOf(input)
  const manifestPath = manifestPathOf(gitops.path, test.name)
  const toPullRequest = gitops.mode === 'pull-request'
  try {
    const deletions = gitops.keepTests > 0 ? await prunable(input, manifestPath, context) : []
    if (
      toPullRequest &&
      deletions.length === 0 &&
      (await isOnBase(input, manifestPath, manifest, context))
    )
      return succeeded(
        {
          manifest,
          manifestPath,
          branch: preflight.branch,
          commitSha: '',
          commitUrl: '',
          pruned: [],
          prunedDropped: [],
          onBase: true
        },
        `${manifestPath} is already on ${gitops.owner}/${gitops.repo}@${preflight.branch}; no pull request needed`
      )
    const call = callOf(context)
    if (toPullRequest)
      await input.host.forwardSpentBranch(pullRequestBranch(test.name), preflight.branch, call)
    const outcome = await input.host.commit(
      {
        branch: toPullRequest ? pullRequestBranch(test.name) : preflight.branch,
        ...(toPullRequest ? { baseBranch: preflight.branch } : {}),
        manifest: {
          path: manifestPath,
          content: renderManifest(manifest),
          isSame: (existing) => sameTest(parseManifest(existing), manifest)
        },
        deletions,
        message: commitMessage(input, manifestPath)
      },
      // guess: the sync-timeout also bounds the race for the branch, the wait that follows it.
      { ...call, deadline: context.now() + settings.test.syncTimeoutSeconds * 1000 }
    )
    for (const dropped of outcome.dropped) context.log.warning(droppedRemovalText(dropped))
    if (outcome.lostRaces > 0)
      context.log.info(`another writer moved the branch first ${outcome.lostRaces} times`)
    if (outcome.rateLimitPauses)
      context.log.info(`waited for GitHub's rate limit ${outcome.rateLimitPauses} times`)
    const result = committed(input, manifest, manifestPath, outcome)
    const removals = deletions.map((deletion) => deletion.path)
    return result.ok ? { ...result, value: { ...result.value, removals } } : result
  } catch (error) {
    if (context.signal.aborted) throw error
    return failed('commit', messageOf(error), { advice: commitAdvice(input.host, error) })
  }
}

function callOf(context: StepContext): HostCall {
  return { signal: context.signal, clock: clockOf(context) }
}

function testManifestOf(input: CommitInput): CoderTemplateTest {
  const { test } = input.settings
  return buildTestManifest({
    testName: test.name,
    namespace: test.namespace,
    controlPlane: test.controlPlane,
    organization: input.preflight.organization,
    template: input.pushed.template,
    // mode: verify tests the version active when the controller resolves the test.
    version: input.settings.mode === 'verify' ? { active: true } : input.pushed.versionName,
    parameters: test.parameters,
    timeoutSeconds: test.timeoutSeconds
  })
}

/** Pull-request mode: gitops-branch already holds this same test, so no branch or pull request. */
async function isOnBase(
  input: CommitInput,
  manifestPath: string,
  manifest: CoderTemplateTest,
  context: StepContext
): Promise<boolean> {
  const onBase = await input.host.readFile(input.preflight.branch, manifestPath, callOf(context))
  return onBase !== null && sameTest(parseManifest(onBase), manifest)
}

function committed(
  input: CommitInput,
  manifest: CoderTemplateTest,
  manifestPath: string,
  outcome: ChangeOutcome
): StepResult<Committed> {
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
      branch: outcome.branch,
      commitSha: outcome.commitSha,
      commitUrl: outcome.commitUrl,
      pruned: outcome.deleted,
      prunedDropped: outcome.dropped,
      onBase: gitops.mode !== 'pull-request'
    },
    outcome.status === 'created'
      ? `committed ${manifestPath} to ${where}${pruned}`
      : `${manifestPath} was already on ${where}; no commit`
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

function commitMessage(input: CommitInput, manifestPath: string): string {
  const { settings, preflight, pushed } = input
  const what =
    settings.mode === 'verify'
      ? `Verify the active version of ${preflight.organization}.${pushed.template}`
      : `Test ${preflight.organization}.${pushed.template} version ${pushed.versionName}`
  return [
    what,
    '',
    `CoderTemplateTest ${settings.test.namespace}/${settings.test.name} (${manifestPath}), written by coder-template-gate.`,
    `Run: ${settings.runUrl}`
  ].join('\n')
}

/** keep-tests: this template's gate-written manifests beyond the newest N, by version creation. */
async function prunable(
  input: CommitInput,
  thisRunPath: string,
  context: StepContext
): Promise<JudgedRemoval[]> {
  const { settings, preflight, pushed } = input
  const { files, cut } = await input.host.listManifests(
    preflight.branch,
    settings.gitops.path,
    callOf(context)
  )
  if (cut) context.log.warning(`keep-tests saw only part of ${settings.gitops.path}: ${cut}`)
  const blobOf = new Map(files.map((file) => [file.path, file.sha]))
  const candidates = []
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
    const createdAt = Object.hasOwn(input.versionCreatedAt, versionName)
      ? input.versionCreatedAt[versionName]
      : null
    candidates.push({ path: file.path, versionName, createdAt })
  }
  const paths = (settings.mode === 'verify' ? selectPrunableLive : selectPrunable)({
    candidates,
    keep: settings.gitops.keepTests,
    activeVersionName: preflight.startingActive?.name ?? null,
    thisRunPath
  })
  return paths.map((path) => ({ path, blobSha: blobOf.get(path) ?? '' }))
}
