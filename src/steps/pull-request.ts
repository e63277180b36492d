// Steps 4b and 4c of pull-request mode (Kargo's git-open-pr and git-wait-for-pr are the model):
// open, or reuse, the pull request of the gate's branch into gitops-branch; then have it merged as
// pull-request-merge says and wait for the merge. Safe to run twice: the open pull request of the
// branch is reused, and a merged one is reported as merged.
import { ForeignChangeError } from '../gitops/branch-guard.js'
import type { GitHost, HostCall } from '../gitops/host.js'
import { parseManifest, renderManifest, sameTest } from '../objects/manifest.js'
import type { GitOpsSettings, TestSettings } from '../settings/settings.js'
import type { Committed } from './commit.js'
import type { Preflight } from './preflight.js'
import type { Pushed } from './push.js'
import { clockOf, failed, messageOf, type StepContext, type StepResult, succeeded } from './step.js'

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

export interface Merged {
  mergeCommitSha: string
  /** The merge commit on the host; '' when unknown. */
  mergeCommitUrl: string
}

export interface PullRequestInput {
  gitops: GitOpsSettings
  test: Pick<TestSettings, 'namespace' | 'name'>
  preflight: Pick<Preflight, 'organization' | 'branch'>
  pushed: Pick<Pushed, 'template' | 'versionName' | 'versionId'>
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
        title: `Test ${preflight.organization}.${pushed.template} version ${pushed.versionName}`,
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
  const lines = [
    `The Coder template gate tests version \`${pushed.versionName}\` (\`${pushed.versionId}\`) of \`${input.preflight.organization}.${pushed.template}\` with ${testsOf(input)}.`,
    '',
    'Merging this pull request lets Argo CD or Flux create the test; the gate promotes the version only after it passed.',
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

/** The time limit of turning auto-merge off, which runs after a cancel too. */
export const AUTO_MERGE_OFF_MS = 2500

export interface MergeFacts {
  pullRequest: OpenedPullRequest
  /** auto: the gate turned auto-merge off again (a timeout, a foreign change). */
  autoMergeOff?: boolean
}

export async function mergeGatePullRequest(
  input: PullRequestInput & { pullRequest: OpenedPullRequest },
  context: StepContext
): Promise<StepResult<Merged, MergeFacts>> {
  const { gitops, pullRequest, host } = input
  const deadline = context.now() + gitops.mergeTimeoutSeconds * 1000
  const call = { ...callOf(context), deadline }
  let asked = false
  try {
    if (!pullRequest.merged) {
      await host.guardBranch(guardInput(input, pullRequest.headSha), call)
      asked = gitops.merge === 'auto'
      await host.requestMerge(
        {
          pullRequest,
          strategy: gitops.merge,
          method: gitops.mergeMethod,
          deadline,
          expectedBase: input.preflight.branch
        },
        call
      )
      if (gitops.merge === 'manual')
        context.log.info(
          `Waiting up to ${gitops.mergeTimeoutSeconds} s for someone to merge ${pullRequest.url}.`
        )
    }
    const merged = await host.waitForMerge(
      {
        number: pullRequest.number,
        deadline,
        ...(pullRequest.merged
          ? {}
          : { expectedHeadSha: pullRequest.headSha, expectedBase: input.preflight.branch })
      },
      call
    )
    if (!pullRequest.merged && merged.headSha !== pullRequest.headSha)
      throw new ForeignChangeError(input.committed.branch, `commit ${merged.headSha}`, true)
    const mergeCommitUrl = host.links.commit(merged.mergeCommitSha)
    return succeeded(
      { mergeCommitSha: merged.mergeCommitSha, mergeCommitUrl },
      `merged #${pullRequest.number} (${gitops.merge})`
    )
  } catch (error) {
    return mergeFailed(input, context, asked, error)
  }
}

async function mergeFailed(
  input: PullRequestInput & { pullRequest: OpenedPullRequest },
  context: StepContext,
  autoMergeAsked: boolean,
  error: unknown
): Promise<StepResult<never, MergeFacts>> {
  const { pullRequest } = input
  const foreign = await asForeign(input, context, error)
  const timedOut = input.host.failureOf(error)?.kind === 'merge-timeout'
  // Nothing may merge once no run watches: every way out of the wait after asking for auto-merge
  // (errors, lost answers, deadlines, cancels) turns it off again.
  let autoMergeOff: boolean | undefined
  if (autoMergeAsked) {
    autoMergeOff = await input.host.disableAutoMerge(pullRequest, AUTO_MERGE_OFF_MS)
    const turnOff = disableAutoMergeCommand(input.host.repository, pullRequest.number)
    if (autoMergeOff)
      context.log.info(
        `Turned auto-merge off on ${pullRequest.url}: nothing merges while no run watches.`
      )
    else
      context.log.warning(
        `Auto-merge is still on for ${pullRequest.url}: the gate could not turn it off, so a later push may merge with no run watching. Turn it off: ${turnOff}`
      )
  }
  if (context.signal.aborted) throw error
  const facts = { pullRequest, ...(autoMergeOff === undefined ? {} : { autoMergeOff }) }
  const stillOn =
    autoMergeOff === false
      ? [
          `Auto-merge is still on: turn it off with \`${disableAutoMergeCommand(input.host.repository, pullRequest.number)}\`.`
        ]
      : []
  if (foreign)
    return failed('foreign-change', foreign.message, {
      facts,
      advice: [
        ...stillOn,
        `Look at who changed ${pullRequest.url} or pushed to ${input.committed.branch}, then close it, delete that branch and re-run: the gate writes it anew.`
      ]
    })
  const off = autoMergeOff ? 'Auto-merge is off again; ' : ''
  return failed('pull-request', messageOf(error), {
    status: timedOut ? 'timed out' : 'failed',
    facts,
    advice: [
      ...stillOn,
      timedOut
        ? `${off}merge ${pullRequest.url}, or raise merge-timeout-seconds; the pull request stays open.`
        : `Look at ${pullRequest.url}: its checks, reviews and merge settings.`
    ]
  })
}

/** A foreign change, found by the gate or by the host (its head moved), named by the compare. */
async function asForeign(
  input: PullRequestInput & { pullRequest: OpenedPullRequest },
  context: StepContext,
  error: unknown
): Promise<ForeignChangeError | null> {
  if (error instanceof ForeignChangeError) return error
  const failure = input.host.failureOf(error)
  if (failure?.kind !== 'head-moved') return null
  if (context.signal.aborted) return null
  try {
    await input.host.guardBranch(guardInput(input, input.committed.branch), callOf(context))
  } catch (found) {
    if (found instanceof ForeignChangeError) return found
  }
  return new ForeignChangeError(
    input.committed.branch,
    `its head moved while the gate merged (${input.host.name}: ${JSON.stringify(failure.said)})`
  )
}

/** The GitHub CLI command that turns a pull request's auto-merge off (cli.github.com/manual/gh_pr_merge). */
export function disableAutoMergeCommand(repository: string, number: number): string {
  return `gh pr merge ${number} --repo ${repository} --disable-auto`
}

function callOf(context: StepContext): HostCall {
  return { signal: context.signal, clock: clockOf(context) }
}

function guardInput(input: PullRequestInput & { pullRequest: OpenedPullRequest }, head: string) {
  const { committed, pullRequest } = input
  return {
    number: pullRequest.number,
    branch: committed.branch,
    headSha: head,
    gate: {
      base: input.preflight.branch,
      // The bytes this run renders (commit.ts writes exactly these), one manifest per test.
      manifests: (
        committed.tests ?? [{ manifestPath: committed.manifestPath, manifest: committed.manifest }]
      ).map((t) => ({
        path: t.manifestPath,
        text: t.manifest ? renderManifest(t.manifest) : ''
      })),
      removals: committed.removals ?? committed.pruned
    }
  }
}
