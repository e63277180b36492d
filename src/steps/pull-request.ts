// Step 4b of pull-request mode (Kargo's git-open-pr is the model): open, or reuse, the pull request
// of the gate's branch into gitops-branch; merge.ts has it merged. Safe to run twice: the open pull
// request of the branch is reused, and a merged one is reported as merged.
import { ForeignChangeError } from '../gitops/branch-guard.js'
import type { GitHost } from '../gitops/host.js'
import { parseManifest, sameTest } from '../objects/manifest.js'
import type { GitOpsSettings, TestSettings } from '../settings/settings.js'
import type { Committed } from './commit.js'
import type { Preflight } from './preflight.js'
import type { Pushed } from './push.js'
import { callOf, failed, messageOf, type StepContext, type StepResult, succeeded } from './step.js'

export interface OpenedPullRequest {
  number: number
  url: string
  nodeId: string
  /** The head when it was opened or found: the only commit the gate merges. */
  headSha: string
  /** Who opened it (the gate's own account when the gate did). */
  author: string | null
  merged: boolean
  reused: boolean
}

export interface PullRequestInput {
  gitops: GitOpsSettings
  test: Pick<TestSettings, 'namespace' | 'name'>
  preflight: Pick<Preflight, 'organization' | 'branch'>
  pushed: Pick<Pushed, 'template' | 'versionName' | 'versionId'>
  /** mode: verify: the test is of the active version, and nothing is promoted after it. */
  live?: boolean
  committed: Pick<Committed, 'branch' | 'manifestPath' | 'pruned' | 'commitSha'> &
    Partial<Pick<Committed, 'removals' | 'manifest' | 'tests'>>
  runUrl: string
  host: GitHost
}

export async function openGatePullRequest(
  input: PullRequestInput,
  context: StepContext
): Promise<StepResult<OpenedPullRequest>> {
  const { gitops, preflight, pushed, committed } = input
  try {
    const pr = await input.host.openPullRequest(
      {
        manifestOnBase: await manifestOnBase(input, context),
        head: committed.branch,
        base: preflight.branch,
        title: input.live
          ? `Verify the active version of ${preflight.organization}.${pushed.template}`
          : `Test ${preflight.organization}.${pushed.template} version ${pushed.versionName}`,
        body: pullRequestBody(input),
        labels: gitops.labels
      },
      // Opening is the first part of the merge's time: a rate-limit wait may use it (bench --matrix
      // 50: without a deadline, 7 of 50 gates gave up opening after 2 retries).
      { ...callOf(context), deadline: context.now() + gitops.mergeTimeoutSeconds * 1000 }
    )
    const value = {
      number: pr.number,
      url: pr.url,
      nodeId: pr.nodeId,
      headSha: pr.headSha,
      author: pr.author,
      merged: pr.merged,
      reused: pr.reused
    }
    return succeeded(
      value,
      `${pr.reused ? 'reused' : 'opened'} pull request #${pr.number} into ${preflight.branch}`
    )
  } catch (error) {
    if (context.signal.aborted) throw error
    if (error instanceof ForeignChangeError)
      return failed('foreign-change', error.message, {
        advice: [
          `Close that pull request (or ask who opened it to), then re-run: the gate opens its own.`
        ]
      })
    return failed('pull-request', messageOf(error), {
      advice: [
        `Check that gitops-token may open pull requests in the GitOps repository (${input.host.tokenNeeds.pullRequests}).`
      ]
    })
  }
}

/** Whether gitops-branch holds this run's manifests: only then is a merged pull request done. */
async function manifestOnBase(input: PullRequestInput, context: StepContext): Promise<boolean> {
  const { committed } = input
  if (!committed.manifest) return true
  const tests = committed.tests ?? [
    { manifestPath: committed.manifestPath, manifest: committed.manifest }
  ]
  for (const { manifestPath, manifest } of tests) {
    const text = await input.host.readFile(input.preflight.branch, manifestPath, callOf(context))
    try {
      if (text === null || !sameTest(parseManifest(text), manifest)) return false
    } catch {
      return false // not YAML any more: not this manifest
    }
  }
  return true
}

function pullRequestBody(input: PullRequestInput): string {
  const { pushed, committed } = input
  const what = `\`${input.preflight.organization}.${pushed.template}\``
  const lines = [
    input.live
      ? `The Coder template gate tests the active version of ${what} with ${testsOf(input)}.`
      : `The Coder template gate tests version \`${pushed.versionName}\` (\`${pushed.versionId}\`) of ${what} with ${testsOf(input)}.`,
    '',
    input.live
      ? 'Merging this pull request lets Argo CD or Flux create the test; a failure may roll the template back (rollback-to).'
      : 'Merging this pull request lets Argo CD or Flux create the test; the gate promotes the version only after it passed.',
    ...(committed.pruned.length > 0
      ? [
          '',
          `It also removes older test manifests (keep-tests): ${committed.pruned.map((p) => `\`${p}\``).join(', ')}.`
        ]
      : []),
    '',
    `Run: ${input.runUrl}`
  ]
  return lines.join('\n')
}

function testsOf({ test, committed }: PullRequestInput): string {
  const tests = committed.tests ?? [{ name: test.name, manifestPath: committed.manifestPath }]
  const each = tests.map((t) => `\`${test.namespace}/${t.name}\` in \`${t.manifestPath}\``)
  return tests.length === 1
    ? `the CoderTemplateTest ${each[0]}`
    : `the CoderTemplateTests ${each.join(', ')}`
}
