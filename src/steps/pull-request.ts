// Steps 4b and 4c of pull-request mode (Kargo's git-open-pr and git-wait-for-pr are the model):
// open, or reuse, the pull request of the gate's branch into gitops-branch; then have it merged as
// pull-request-merge says and wait for the merge. Safe to run twice: the open pull request of the
// branch is reused, and a merged one is reported as merged.
import type { GitOpsOctokit } from '../gitops/octokit.js'
import {
  MergeTimeoutError,
  openPullRequest,
  requestMerge,
  waitForMerge
} from '../gitops/pull-request.js'
import type { GitOpsSettings, TestSettings } from '../settings.js'
import type { Committed } from './commit.js'
import type { Preflight } from './preflight.js'
import type { Pushed } from './push.js'
import { failed, messageOf, type StepContext, type StepResult, succeeded } from './step.js'

export interface OpenedPullRequest {
  number: number
  url: string
  nodeId: string
  merged: boolean
  reused: boolean
}

export interface Merged {
  mergeCommitSha: string
}

export interface PullRequestInput {
  gitops: GitOpsSettings
  test: Pick<TestSettings, 'namespace' | 'name'>
  preflight: Pick<Preflight, 'organization' | 'branch'>
  pushed: Pick<Pushed, 'template' | 'versionName' | 'versionId'>
  committed: Pick<Committed, 'branch' | 'manifestPath' | 'pruned'>
  runUrl: string
  octokit: GitOpsOctokit
}

export async function openGatePullRequest(
  input: PullRequestInput,
  context: StepContext
): Promise<StepResult<OpenedPullRequest>> {
  const { gitops, preflight, pushed, committed } = input
  try {
    const pr = await openPullRequest({
      octokit: input.octokit,
      owner: gitops.owner,
      repo: gitops.repo,
      head: committed.branch,
      base: preflight.branch,
      title: `Test ${preflight.organization}.${pushed.template} version ${pushed.versionName}`,
      body: pullRequestBody(input),
      labels: gitops.labels,
      signal: context.signal
    })
    const value = {
      number: pr.number,
      url: pr.url,
      nodeId: pr.nodeId,
      merged: pr.merged,
      reused: pr.reused
    }
    return succeeded(
      value,
      `${pr.reused ? 'reused' : 'opened'} pull request #${pr.number} into ${preflight.branch}`
    )
  } catch (error) {
    if (context.signal.aborted) throw error
    return failed('pull-request', messageOf(error), {
      advice: [
        'Check that gitops-token may open pull requests in the GitOps repository (pull-requests: write).'
      ]
    })
  }
}

function pullRequestBody(input: PullRequestInput): string {
  const { test, pushed, committed } = input
  const lines = [
    `The Coder template gate tests version \`${pushed.versionName}\` (\`${pushed.versionId}\`) of \`${input.preflight.organization}.${pushed.template}\` with the CoderTemplateTest \`${test.namespace}/${test.name}\` in \`${committed.manifestPath}\`.`,
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

export async function mergeGatePullRequest(
  input: PullRequestInput & { pullRequest: OpenedPullRequest },
  context: StepContext
): Promise<StepResult<Merged, { pullRequest: OpenedPullRequest }>> {
  const { gitops, pullRequest } = input
  const facts = { pullRequest }
  const deadline = context.now() + gitops.mergeTimeoutSeconds * 1000
  try {
    if (!pullRequest.merged) {
      await requestMerge({
        octokit: input.octokit,
        owner: gitops.owner,
        repo: gitops.repo,
        pullRequest,
        strategy: gitops.merge,
        method: gitops.mergeMethod,
        deadline,
        signal: context.signal
      })
      if (gitops.merge === 'manual')
        context.log.info(
          `Waiting up to ${gitops.mergeTimeoutSeconds} s for someone to merge ${pullRequest.url}.`
        )
    }
    const merged = await waitForMerge({
      octokit: input.octokit,
      owner: gitops.owner,
      repo: gitops.repo,
      number: pullRequest.number,
      deadline,
      signal: context.signal
    })
    return succeeded(
      { mergeCommitSha: merged.mergeCommitSha },
      `merged #${pullRequest.number} (${gitops.merge})`
    )
  } catch (error) {
    if (context.signal.aborted) throw error
    const timedOut = error instanceof MergeTimeoutError
    return failed('pull-request', messageOf(error), {
      status: timedOut ? 'timed out' : 'failed',
      facts,
      advice: timedOut
        ? [`Merge ${pullRequest.url}, or raise merge-timeout-seconds; the pull request stays open.`]
        : [`Look at ${pullRequest.url}: its checks, reviews and merge settings.`]
    })
  }
}
