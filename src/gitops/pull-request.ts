// Pull-request mode (Kargo's git-open-pr, git-merge-pr and git-wait-for-pr are the model): open or
// reuse the pull request of the gate's branch, have it merged as pull-request-merge says, and wait
// for the merge with conditional requests. The decisions live in pull-request-state.ts.
import {
  type GitHubCall,
  githubCall,
  githubError,
  pauseFor,
  repoOf,
  requestOptions,
  userError
} from './github-call.js'
import type { MergeMethod, MergeStrategy } from '../settings.js'
import type { GitOpsOctokit } from './octokit.js'
import {
  AutoMergeNotAllowedError,
  autoMergeDecision,
  type GraphqlError,
  mergeAnswerDecision,
  mergeReadiness,
  MergeRefusedError,
  MergeTimeoutError,
  pullRequestState
} from './pull-request-state.js'
import { closedError, GITOPS_TOKEN, MAX_PAUSE_MS, type PullJson } from './wait-for-merge.js'

export {
  AutoMergeNotAllowedError,
  ClosedWithoutMergeError,
  MergeRefusedError,
  MergeTimeoutError,
  pullRequestState
} from './pull-request-state.js'
export {
  type MergedPullRequest,
  type ObservedPullRequest,
  waitForMerge,
  type WaitForMergeInput
} from './wait-for-merge.js'

export interface OpenPullRequestInput extends GitHubCall {
  head: string
  base: string
  title: string
  body: string
  labels: string[]
}

export interface OpenedPullRequest {
  number: number
  url: string
  nodeId: string
  headSha: string
  state: 'open' | 'closed'
  merged: boolean
  /** An existing pull request: open, or already merged. */
  reused: boolean
}

export interface RequestMergeInput extends GitHubCall {
  pullRequest: { number: number; nodeId: string; url?: string; headSha?: string }
  strategy: MergeStrategy
  method: MergeMethod
  /** Epoch ms: `immediate` retries a merge that GitHub does not allow yet until then. */
  deadline: number
  /** First pause between merge attempts; doubles up to 30 s. Default 2000. */
  pollMs?: number
}

export type MergeRequested =
  { kind: 'manual' } | { kind: 'auto-merge-enabled' } | { kind: 'merged'; mergeCommitSha: string }

type PullListItem = Awaited<ReturnType<GitOpsOctokit['rest']['pulls']['list']>>['data'][number]

// ---- opening ----

/** Reuses the open pull request of head into base, or a merged one of the branch's tip; else opens one. */
export async function openPullRequest(input: OpenPullRequestInput): Promise<OpenedPullRequest> {
  const tipSha = await branchTip(input)
  const existing = await findPullRequest(input, tipSha)
  if (existing) return withLabels(input, existing)
  try {
    const { data } = await input.octokit.rest.pulls.create({
      ...repoOf(input),
      head: input.head,
      base: input.base,
      title: input.title,
      body: input.body,
      request: requestOptions(input)
    })
    return await withLabels(input, found(data, false))
  } catch (error) {
    // 422 for a pull request that another run opened meanwhile ("A pull request already exists"):
    // resolved by reading it, so its text does not matter.
    if (!input.signal?.aborted && githubError(error)?.status === 422) {
      const again = await findPullRequest(input, tipSha)
      if (again?.pullRequest.state === 'open') return withLabels(input, again)
    }
    const doing = `opening a pull request from ${input.head} into ${input.base}`
    throw userError(error, input, GITOPS_TOKEN, doing)
  }
}

async function branchTip(input: OpenPullRequestInput): Promise<string> {
  try {
    const { data } = await input.octokit.rest.git.getRef({
      ...repoOf(input),
      ref: `heads/${input.head}`,
      request: requestOptions(input)
    })
    return data.object.sha
  } catch (error) {
    if (!input.signal?.aborted && githubError(error)?.status === 404) {
      throw new Error(
        `Branch ${input.head} does not exist in ${input.owner}/${input.repo}: the manifest is ` +
          'committed to it before the pull request is opened.',
        { cause: error }
      )
    }
    throw userError(error, input, GITOPS_TOKEN, `reading branch ${input.head}`)
  }
}

interface Found {
  pullRequest: OpenedPullRequest
  /** Its labels, lower case. */
  labels: string[]
}

async function findPullRequest(input: OpenPullRequestInput, tipSha: string): Promise<Found | null> {
  const list = (state: 'open' | 'closed') =>
    call(input, `listing pull requests of ${input.head}`, (request) =>
      input.octokit.rest.pulls.list({
        ...repoOf(input),
        head: `${input.owner}:${input.head}`,
        base: input.base,
        state,
        per_page: 100,
        request
      })
    )
  const open = (await list('open')).data[0]
  if (open) return found(open, true)
  // A merged pull request counts only if it merged what the branch holds now.
  const merged = (await list('closed')).data.find(
    (pr) => pullRequestState(pr) === 'merged' && pr.head.sha === tipSha
  )
  return merged ? found(merged, true) : null
}

function found(pr: PullListItem | PullJson, reused: boolean): Found {
  return {
    pullRequest: {
      number: pr.number,
      url: pr.html_url,
      nodeId: pr.node_id,
      headSha: pr.head.sha,
      state: pr.state === 'open' ? 'open' : 'closed',
      merged: pullRequestState(pr) === 'merged',
      reused
    },
    labels: pr.labels.map((label) => label.name.toLowerCase())
  }
}

/** Adds the labels an open pull request lacks; POST .../labels keeps the ones it has. */
async function withLabels(input: OpenPullRequestInput, found: Found): Promise<OpenedPullRequest> {
  const { pullRequest } = found
  const missing = input.labels.filter((label) => !found.labels.includes(label.toLowerCase()))
  if (pullRequest.state !== 'open' || missing.length === 0) return pullRequest
  await call(input, `adding labels to pull request #${pullRequest.number}`, (request) =>
    input.octokit.rest.issues.addLabels({
      ...repoOf(input),
      issue_number: pullRequest.number,
      labels: missing,
      request
    })
  )
  return pullRequest
}

// ---- merging ----

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
        ...(pullRequest.headSha ? { expectedHeadOid: pullRequest.headSha } : {})
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
    // Refused for a reason of its own, e.g. someone merged or closed it meanwhile: read it.
    const { data: pr } = await readPull(input)
    const state = pullRequestState(pr)
    if (state === 'merged') return { kind: 'merged', mergeCommitSha: pr.merge_commit_sha ?? '' }
    if (state === 'closed') throw await closedError(input, pr)
    throw new MergeRefusedError(pullRequest.number, pr.html_url, 'other', reason)
  }
}

function readPull(input: RequestMergeInput) {
  const { number } = input.pullRequest
  return call(input, `reading pull request #${number}`, (request) =>
    input.octokit.rest.pulls.get({ ...repoOf(input), pull_number: number, request })
  )
}

async function mergeWhenAllowed(input: RequestMergeInput): Promise<MergeRequested> {
  const { number } = input.pullRequest
  let pause = input.pollMs ?? 2000
  for (;;) {
    const { data: pr } = await readPull(input)
    const state = pullRequestState(pr)
    if (state === 'merged') return { kind: 'merged', mergeCommitSha: pr.merge_commit_sha ?? '' }
    if (state === 'closed') throw await closedError(input, pr)
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
    const left = input.deadline - Date.now()
    if (left <= 0) throw new MergeTimeoutError(number, pr.html_url, `open; ${waitingFor}`)
    await pauseFor(Math.min(pause, left), input.signal)
    pause = Math.min(pause * 2, MAX_PAUSE_MS)
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
      // Merge only what the gate committed: a foreign commit on the branch answers 409.
      ...(headSha ? { sha: headSha } : {}),
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

function call<T>(
  input: GitHubCall,
  doing: string,
  send: (request: { signal: AbortSignal }) => Promise<T>
): Promise<T> {
  return githubCall(input, GITOPS_TOKEN, doing, send)
}
