// Step 4c of pull-request mode (Kargo's git-wait-for-pr is the model): have the gate's pull
// request merged as pull-request-merge says, only while it is exactly the gate's change
// (gitops/branch-guard.ts), and wait for the merge. Every way out after asking for auto-merge turns
// it off again, and says so in the facts that a cancel keeps too.
import { ForeignChangeError } from '../gitops/branch-guard.js'
import { renderManifest } from '../objects/manifest.js'
import type { OpenedPullRequest, PullRequestInput } from './pull-request.js'
import {
  callOf,
  type FactSink,
  failed,
  messageOf,
  type StepContext,
  type StepResult,
  succeeded
} from './step.js'

export interface Merged {
  mergeCommitSha: string
  /** The merge commit on the host; absent when unknown. */
  mergeCommitUrl?: string
}

/** The time limit of turning auto-merge off, which runs after a cancel too. */
export const AUTO_MERGE_OFF_MS = 2500

export interface MergeFacts {
  pullRequest: OpenedPullRequest
  /** Whether the gate asked GitHub for auto-merge (absent: not known, e.g. older facts). */
  autoMergeAsked?: boolean
  /**
   * auto: whether auto-merge is off again after the gate asked for it (false: still on, or not
   * known to be off, e.g. a cancel cut the request that turns it off).
   */
  autoMergeOff?: boolean
}

type MergeContext = StepContext & Partial<FactSink<MergeFacts>>

export async function mergeGatePullRequest(
  input: PullRequestInput & { pullRequest: OpenedPullRequest },
  context: MergeContext
): Promise<StepResult<Merged, MergeFacts>> {
  const { gitops, pullRequest, host } = input
  const deadline = context.now() + gitops.mergeTimeoutSeconds * 1000
  const call = { ...callOf(context), deadline }
  let asked = false
  // A cancel that cuts the step keeps the last facts published (journal.ts).
  context.publish?.({ pullRequest, autoMergeAsked: false })
  try {
    if (!pullRequest.merged) {
      await host.guardBranch(guardInput(input, pullRequest.headSha), call)
      asked = gitops.merge === 'auto'
      // From here auto-merge may be on.
      if (asked) context.publish?.({ pullRequest, autoMergeAsked: true, autoMergeOff: false })
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
  context: MergeContext,
  autoMergeAsked: boolean,
  error: unknown
): Promise<StepResult<never, MergeFacts>> {
  const { pullRequest } = input
  const foreign = await asForeign(input, context, error)
  const timedOut = input.host.failureOf(error)?.kind === 'merge-timeout'
  // Nothing may merge once no run watches: every way out of the wait after asking for auto-merge
  // (errors, lost answers, deadlines, cancels) turns it off again.
  let autoMergeOff: boolean | undefined
  const turnOff = disableAutoMergeCommand(input.host.repository, pullRequest.number)
  if (autoMergeAsked) {
    autoMergeOff = await input.host.disableAutoMerge(pullRequest, AUTO_MERGE_OFF_MS)
    if (autoMergeOff)
      context.log.info(
        `Turned auto-merge off on ${pullRequest.url}: nothing merges while no run watches.`
      )
    else
      context.log.warning(
        `Auto-merge is still on for ${pullRequest.url}: the gate could not turn it off, so a later push may merge with no run watching. Turn it off: ${turnOff}`
      )
  }
  const facts = {
    pullRequest,
    autoMergeAsked,
    ...(autoMergeOff === undefined ? {} : { autoMergeOff })
  }
  // A cancel ends the step as cancelled, with these facts: the summary says whether it is still on.
  context.publish?.(facts)
  if (context.signal.aborted) throw error
  const stillOn =
    autoMergeOff === false ? [`Auto-merge is still on: turn it off with \`${turnOff}\`.`] : []
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
