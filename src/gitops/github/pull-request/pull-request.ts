// Pull-request mode (Kargo's git-open-pr, git-merge-pr and git-wait-for-pr are the model): open or
// reuse the pull request of the gate's branch, have it merged as pull-request-merge says, and wait
// for the merge with conditional requests. The decisions live in pull-request-state.ts.
import { readViewer } from './branch-changes.js'
import {
  type Account,
  describeForeign,
  ForeignChangeError,
  sameAccount
} from '../../branch-guard.js'
import {
  type GitHubCall,
  githubCall,
  githubError,
  repoOf,
  requestOptions,
  userError
} from '../client/call.js'
import type { HostPullRequest, OpenInput } from '../../host.js'
import type { GitOpsOctokit } from '../client/octokit.js'
import { mergedIsDone, pullRequestState } from './state.js'
import { GITOPS_TOKEN, type PullJson } from './wait-for-merge.js'

export {
  AutoMergeNotAllowedError,
  ClosedWithoutMergeError,
  MergeRefusedError,
  MergeTimeoutError,
  pullRequestState
} from './state.js'
export { type MergeRequested, requestMerge, type RequestMergeInput } from './merge-request.js'
export {
  type MergedPullRequest,
  type ObservedPullRequest,
  waitForMerge,
  type WaitForMergeInput
} from './wait-for-merge.js'

export interface OpenPullRequestInput extends GitHubCall, OpenInput {}

type PullListItem = Awaited<ReturnType<GitOpsOctokit['rest']['pulls']['list']>>['data'][number]

// ---- opening ----

/** Reuses the open pull request of head into base, or a merged one of the branch's tip; else opens one. */
export async function openPullRequest(input: OpenPullRequestInput): Promise<HostPullRequest> {
  const tipSha = await branchTip(input)
  const existing = await findPullRequest(input, tipSha)
  if (existing) return withLabels(input, await ownOnly(input, existing))
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
      if (again?.pullRequest.state === 'open') return withLabels(input, await ownOnly(input, again))
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

/**
 * A pull request that another account opened from the gate's branch is never reused, nor merged:
 * the gate cannot open a second one for the same head and base, so the run fails and names it.
 */
async function ownOnly(input: OpenPullRequestInput, existing: Found): Promise<Found> {
  const viewer = await readViewer(input)
  const { openedBy, pullRequest } = existing
  if (openedBy !== undefined && sameAccount(openedBy, viewer)) return existing
  const found = describeForeign({ reason: 'opened-by', login: openedBy?.login })
  throw new ForeignChangeError(
    input.head,
    `pull request #${pullRequest.number} (${pullRequest.url}): ${found}`
  )
}

interface Found {
  /** Who opened it. */
  openedBy?: Account
  pullRequest: HostPullRequest
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
  const onBase = input.manifestOnBase ?? true
  const merged = (await list('closed')).data.find((pr) =>
    mergedIsDone(
      { merged: pullRequestState(pr) === 'merged', headSha: pr.head.sha },
      tipSha,
      onBase
    )
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
      author: pr.user?.login ?? null,
      state: pr.state === 'open' ? 'open' : 'closed',
      merged: pullRequestState(pr) === 'merged',
      reused
    },
    labels: pr.labels.map((label) => label.name.toLowerCase()),
    openedBy: pr.user ? { login: pr.user.login, id: pr.user.id } : undefined
  }
}

/** Adds the labels an open pull request lacks; POST .../labels keeps the ones it has. */
async function withLabels(input: OpenPullRequestInput, found: Found): Promise<HostPullRequest> {
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

function call<T>(
  input: GitHubCall,
  doing: string,
  send: (request: { signal: AbortSignal }) => Promise<T>
): Promise<T> {
  return githubCall(input, GITOPS_TOKEN, doing, send)
}
