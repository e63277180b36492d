// The wait for a pull request's merge (Kargo's git-wait-for-pr is the model): conditional reads
// (If-None-Match; a 304 costs no rate limit) with a growing pause, until it is merged (the merge
// commit), closed without merge, or the deadline passes.
import { backoff } from '../../../timing/backoff.js'
import { describeForeign, ForeignChangeError } from '../../branch-guard.js'
import {
  callClock,
  type GitHubCall,
  githubCall,
  githubError,
  repoOf,
  requestOptions,
  type TokenAdvice,
  userError
} from '../client/call.js'
import type { MergedPullRequest } from '../../host.js'
import type { GitOpsOctokit } from '../client/octokit.js'
import {
  ClosedWithoutMergeError,
  MergeRefusedError,
  MergeTimeoutError,
  pullRequestState,
  type PullRequestState
} from './state.js'

export const GITOPS_TOKEN: TokenAdvice = {
  input: 'gitops-token',
  needs: '`contents: write` and `pull-requests: write`'
}

export type PullJson = Awaited<ReturnType<GitOpsOctokit['rest']['pulls']['get']>>['data']

export interface ObservedPullRequest {
  number: number
  state: PullRequestState
  mergeableState: string
  autoMerge: boolean
}

export interface WaitForMergeInput extends GitHubCall {
  number: number
  /** Epoch ms (merge-timeout-seconds from the start of the merge step). */
  deadline: number
  /** First pause between reads; 1.5 times longer after each unchanged read, at most 30 s. Default 5000. */
  pollMs?: number
  /** Each answer that changed (not the 304s). */
  onObserved?: (pr: ObservedPullRequest) => void
  /**
   * The head the gate checked: an open pull request whose head moved away from it fails at once
   * (auto-merge stays on for a push with write access, so GitHub would merge that push).
   */
  expectedHeadSha?: string
  /**
   * gitops-branch: a pull request whose base is another branch is never the gate's change, merged
   * or not (GitHub keeps auto-merge on when a writer changes the base; see the issue's report).
   */
  expectedBase?: string
}

/** Throws ForeignChangeError when the pull request's base is not the one the gate opened it into. */
export function checkBase(pr: Pick<PullJson, 'base' | 'head'>, merged: boolean, base?: string) {
  if (base === undefined || pr.base.ref === base) return
  const found = describeForeign({ reason: 'base', base: pr.base.ref, expected: base })
  throw new ForeignChangeError(pr.head.ref, found, merged)
}

export type { MergedPullRequest } from '../../host.js'

export const MAX_PAUSE_MS = 30000

export async function waitForMerge(input: WaitForMergeInput): Promise<MergedPullRequest> {
  const clock = callClock(input)
  // Reads since the last change: each one unchanged makes the next pause 1.5 times longer.
  let unchanged = 0
  let last: { data: PullJson; etag: string | undefined } | null = null
  for (;;) {
    const read = await readIfChanged(input, last?.etag)
    if (read) {
      last = read
      unchanged = 0
      input.onObserved?.(observed(read.data))
    } else unchanged += 1
    const pr = last!.data
    const state = pullRequestState(pr)
    checkBase(pr, state === 'merged', input.expectedBase)
    if (state === 'merged') {
      return {
        number: pr.number,
        url: pr.html_url,
        // guess: GitHub always sets merge_commit_sha on a merged pull request.
        mergeCommitSha: pr.merge_commit_sha ?? '',
        mergedBy: pr.merged_by?.login ?? null,
        headSha: pr.head.sha
      }
    }
    if (state === 'closed') throw await closedError(input, pr)
    if (input.expectedHeadSha !== undefined && pr.head.sha !== input.expectedHeadSha)
      throw new MergeRefusedError(
        pr.number,
        pr.html_url,
        'head-moved',
        `head is now ${pr.head.sha}`
      )
    const left = input.deadline - clock.now()
    if (left <= 0) throw new MergeTimeoutError(pr.number, pr.html_url, describe(pr))
    const pause = backoff({
      attempt: unchanged + 1,
      initialMs: input.pollMs ?? 5000,
      maxMs: MAX_PAUSE_MS,
      factor: 1.5
    })
    await clock.sleep(Math.min(pause, left), input.signal)
  }
}

/** The pull request, or null when GitHub answers 304 Not Modified to our ETag. */
async function readIfChanged(
  input: WaitForMergeInput,
  etag: string | undefined
): Promise<{ data: PullJson; etag: string | undefined } | null> {
  try {
    const answer = await input.octokit.rest.pulls.get({
      ...repoOf(input),
      pull_number: input.number,
      headers: etag ? { 'if-none-match': etag } : {},
      request: requestOptions(input)
    })
    return { data: answer.data, etag: answer.headers.etag }
  } catch (error) {
    // Octokit throws on a 304.
    if (etag && !input.signal?.aborted && githubError(error)?.status === 304) return null
    throw userError(error, input, GITOPS_TOKEN, `reading pull request #${input.number}`)
  }
}

function observed(pr: PullJson): ObservedPullRequest {
  return {
    number: pr.number,
    state: pullRequestState(pr),
    mergeableState: pr.mergeable_state,
    autoMerge: Boolean(pr.auto_merge)
  }
}

function describe(pr: PullJson): string {
  return `open, mergeable_state ${pr.mergeable_state}${pr.auto_merge ? ', auto-merge on' : ''}`
}

/** Who closed it comes from the issue side (closed_by); best effort. */
export async function closedError(
  input: GitHubCall,
  pr: Pick<PullJson, 'number' | 'html_url'>
): Promise<ClosedWithoutMergeError> {
  let closedBy: string | null = null
  try {
    const { data } = await githubCall(input, GITOPS_TOKEN, 'reading who closed it', (request) =>
      input.octokit.rest.issues.get({ ...repoOf(input), issue_number: pr.number, request })
    )
    closedBy = data.closed_by?.login ?? null
  } catch (error) {
    if (input.signal?.aborted) throw error
  }
  return new ClosedWithoutMergeError(pr.number, pr.html_url, closedBy)
}
