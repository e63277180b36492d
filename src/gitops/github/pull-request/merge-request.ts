// Having the gate's pull request merged (Kargo's git-merge-pr is the model): GitHub's auto-merge
// through GraphQL, or a REST merge once GitHub allows it. Both name the head the gate checked
// (`expectedHeadOid`, `sha`), so a commit pushed after the check is never merged with the gate's
// token: GitHub refuses, and so does the gate when it reads a head it did not expect.
import type { MergeMethod, MergeStrategy } from '../../../settings/settings.js'
import { backoff } from '../../../timing/backoff.js'
import {
  callClock,
  type GitHubCall,
  githubCall,
  githubError,
  repoOf,
  requestOptions,
  userError
} from '../client/call.js'
import {
  AutoMergeNotAllowedError,
  autoMergeDecision,
  type GraphqlError,
  mergeAnswerDecision,
  mergeReadiness,
  MergeRefusedError,
  MergeTimeoutError,
  pullRequestState
} from './state.js'
import type { MergeRequested } from '../../host.js'
import {
  checkBase,
  closedError,
  GITOPS_TOKEN,
  MAX_PAUSE_MS,
  type PullJson
} from './wait-for-merge.js'

export interface RequestMergeInput extends GitHubCall {
  /** headSha: the head the gate checked; GitHub merges only that commit. */
  pullRequest: { number: number; nodeId: string; url?: string; headSha: string }
  strategy: MergeStrategy
  method: MergeMethod
  /** gitops-branch: a pull request into another base is never merged (wait-for-merge.ts). */
  expectedBase?: string
  /** Epoch ms: `immediate` retries a merge that GitHub does not allow yet until then. */
  deadline: number
  /** First pause between merge attempts; doubles up to 30 s. Default 2000. */
  pollMs?: number
}

export type { MergeRequested } from '../../host.js'

const ENABLE_AUTO_MERGE = `mutation EnableAutoMerge($input: EnablePullRequestAutoMergeInput!) {
  enablePullRequestAutoMerge(input: $input) { pullRequest { number } }
}`

/** auto: GitHub's auto-merge (GraphQL); immediate: a REST merge once GitHub allows it; manual: nothing. */
export async function requestMerge(input: RequestMergeInput): Promise<MergeRequested> {
  if (input.strategy === 'manual') return { kind: 'manual' }
  if (input.strategy === 'immediate') return mergeWhenAllowed(input)
  const { pullRequest } = input
  try {
    await input.octokit.graphql(ENABLE_AUTO_MERGE, {
      input: {
        pullRequestId: pullRequest.nodeId,
        mergeMethod: input.method.toUpperCase(),
        // GitHub refuses when the head is no longer this commit (graphql-schema:
        // EnablePullRequestAutoMergeInput.expectedHeadOid).
        expectedHeadOid: pullRequest.headSha
      },
      request: requestOptions(input)
    })
    return { kind: 'auto-merge-enabled' }
  } catch (error) {
    const errors = (error as { errors?: GraphqlError[] }).errors
    if (input.signal?.aborted || !Array.isArray(errors)) {
      const doing = `enabling auto-merge on pull request #${pullRequest.number}`
      throw userError(error, input, GITOPS_TOKEN, doing)
    }
    const reason = errors.map((e) => e.message).join('; ')
    const decision = autoMergeDecision(errors)
    if (decision === 'merge-now') return mergeWhenAllowed(input)
    if (decision === 'not-allowed') {
      throw new AutoMergeNotAllowedError(`${input.owner}/${input.repo}`, pullRequest.number, reason)
    }
    if (decision === 'forbidden') {
      throw new MergeRefusedError(pullRequest.number, urlOf(input), 'forbidden', reason)
    }
    // Refused for a reason of its own, e.g. the head moved, or someone merged or closed it
    // meanwhile: the pull request itself tells which, not GitHub's sentence.
    const { data: pr } = await readPull(input)
    const state = pullRequestState(pr)
    checkBase(pr, state === 'merged', input.expectedBase)
    if (headMoved(input, pr)) throw headMovedError(input, pr, reason)
    if (state === 'merged') return { kind: 'merged', mergeCommitSha: pr.merge_commit_sha ?? '' }
    if (state === 'closed') throw await closedError(input, pr)
    throw new MergeRefusedError(pullRequest.number, pr.html_url, 'other', reason)
  }
}

function headMoved(input: RequestMergeInput, pr: PullJson): boolean {
  return pr.head.sha !== input.pullRequest.headSha
}

function headMovedError(input: RequestMergeInput, pr: PullJson, said: string): MergeRefusedError {
  return new MergeRefusedError(input.pullRequest.number, pr.html_url, 'head-moved', said)
}

function readPull(input: RequestMergeInput) {
  const { number } = input.pullRequest
  return githubCall(input, GITOPS_TOKEN, `reading pull request #${number}`, (request) =>
    input.octokit.rest.pulls.get({ ...repoOf(input), pull_number: number, request })
  )
}

async function mergeWhenAllowed(input: RequestMergeInput): Promise<MergeRequested> {
  const { number } = input.pullRequest
  const clock = callClock(input)
  for (let attempt = 1; ; attempt++) {
    const { data: pr } = await readPull(input)
    const state = pullRequestState(pr)
    checkBase(pr, state === 'merged', input.expectedBase)
    if (state === 'merged') return { kind: 'merged', mergeCommitSha: pr.merge_commit_sha ?? '' }
    if (state === 'closed') throw await closedError(input, pr)
    // A push since the check: never reported as a conflict, never merged.
    if (headMoved(input, pr)) throw headMovedError(input, pr, `head is now ${pr.head.sha}`)
    const readiness = mergeReadiness(pr)
    if (readiness === 'conflicts' || readiness === 'draft') {
      const said = `mergeable_state ${pr.mergeable_state}`
      throw new MergeRefusedError(number, pr.html_url, readiness, said)
    }
    let waitingFor = 'GitHub is still computing whether it can be merged'
    if (readiness === 'try') {
      const answer = await tryMerge(input, pr.html_url)
      if (answer.merged) return { kind: 'merged', mergeCommitSha: answer.sha }
      waitingFor = answer.reason
    }
    const left = input.deadline - clock.now()
    if (left <= 0) throw new MergeTimeoutError(number, pr.html_url, `open; ${waitingFor}`)
    const pause = backoff({ attempt, initialMs: input.pollMs ?? 2000, maxMs: MAX_PAUSE_MS })
    await clock.sleep(Math.min(pause, left), input.signal)
  }
}

async function tryMerge(
  input: RequestMergeInput,
  url: string
): Promise<{ merged: true; sha: string } | { merged: false; reason: string }> {
  const { number, headSha } = input.pullRequest
  try {
    const { data } = await input.octokit.rest.pulls.merge({
      ...repoOf(input),
      pull_number: number,
      merge_method: input.method,
      // Merge only what the gate checked: a commit pushed since answers 409 (REST docs).
      sha: headSha,
      // The loop here retries what may change; the retry plugin would re-send a 405 at once.
      request: { ...requestOptions(input), retries: 0 }
    })
    return { merged: true, sha: data.sha }
  } catch (error) {
    // 405 (not now), 409 (head moved) and 422 are GitHub's answers about this merge; the rest
    // (access, rate limits, outages) are the call's.
    const github = githubError(error)
    if (input.signal?.aborted || !github?.answered || ![405, 409, 422].includes(github.status)) {
      throw userError(error, input, GITOPS_TOKEN, `merging pull request #${number}`)
    }
    const decision = mergeAnswerDecision(github.status, github.message)
    if (decision.action === 'retry') return { merged: false, reason: decision.reason }
    throw new MergeRefusedError(number, url, decision.kind, decision.reason)
  }
}

function urlOf(input: RequestMergeInput): string {
  return input.pullRequest.url ?? `#${input.pullRequest.number} of ${input.owner}/${input.repo}`
}
