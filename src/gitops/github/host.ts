// GitHub as the Git host of the GitOps repository (host.ts): the interface over the GitHub adapters
// of this folder, which keep their own contracts and tests. Built once in the wiring (clients.ts).
import { gitOpsProblems, inspectGitOpsRepository } from './access.js'
import { disableAutoMerge, guardGateBranch } from './pull-request/branch-changes.js'
import { BranchProtectedError, commitChange, ManifestConflictError } from './commit/change.js'
import { CommitOutcomeUnknown } from './commit/commit-on-branch.js'
import { type GitHubCall, githubCall, rateLimitOf, repoOf } from './client/call.js'
import type { GitHost, HostCall, HostFailure, HostLinks } from '../host.js'
import { listManifestFiles } from './commit/manifests.js'
import type { GitOpsOctokit } from './client/octokit-type.js'
import {
  MergeRefusedError,
  MergeTimeoutError,
  openPullRequest,
  requestMerge,
  waitForMerge
} from './pull-request/pull-request.js'
import { readFileAt } from './commit/read-file.js'
import { forwardSpentBranch } from './commit/spent-branch.js'

export interface GitHubHostOptions {
  octokit: GitOpsOctokit
  owner: string
  repo: string
  /** The web server of the repository (GITHUB_SERVER_URL), for links. */
  serverUrl: string
  /** Time limit of each call; tests shorten it. Default client/call.ts's. */
  requestTimeoutMs?: number
}

export class GitHubHost implements GitHost {
  readonly name = 'GitHub'
  readonly repository: string
  readonly links: HostLinks
  readonly tokenNeeds = { write: 'contents: write', pullRequests: 'pull-requests: write' }

  constructor(private readonly options: GitHubHostOptions) {
    this.repository = `${options.owner}/${options.repo}`
    this.links = gitHubLinks(options.serverUrl, options.owner, options.repo)
  }

  private call(call: HostCall): GitHubCall {
    const { octokit, owner, repo, requestTimeoutMs } = this.options
    return {
      octokit,
      owner,
      repo,
      signal: call.signal,
      clock: call.clock,
      ...(call.deadline === undefined ? {} : { deadline: call.deadline }),
      ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs })
    }
  }

  inspect: GitHost['inspect'] = (branch, call) =>
    inspectGitOpsRepository({ ...this.call(call), branch })

  problems: GitHost['problems'] = gitOpsProblems

  readFile: GitHost['readFile'] = (ref, path, call) => readFileAt({ ...this.call(call), ref, path })

  branchHead: GitHost['branchHead'] = async (branch, call) => {
    const github = this.call(call)
    const { data } = await githubCall(
      github,
      { input: 'gitops-token', needs: '`contents: read`' },
      `reading the branch ${branch}`,
      (request) => github.octokit.rest.repos.getBranch({ ...repoOf(github), branch, request })
    )
    return { sha: data.commit.sha, url: data.commit.html_url ?? '' }
  }

  listManifests: GitHost['listManifests'] = (ref, folder, call) =>
    listManifestFiles({ ...this.call(call), ref, folder })

  forwardSpentBranch: GitHost['forwardSpentBranch'] = (branch, base, call) =>
    forwardSpentBranch({ ...this.call(call), branch, base })

  commit: GitHost['commit'] = (change, call) => commitChange({ ...this.call(call), ...change })

  openPullRequest: GitHost['openPullRequest'] = (open, call) =>
    openPullRequest({ ...this.call(call), ...open })

  guardBranch: GitHost['guardBranch'] = (guard, call) =>
    guardGateBranch({ ...this.call(call), ...guard })

  requestMerge: GitHost['requestMerge'] = (merge, call) =>
    requestMerge({ ...this.call(call), ...merge })

  waitForMerge: GitHost['waitForMerge'] = (wait, call) =>
    waitForMerge({ ...this.call(call), ...wait })

  disableAutoMerge: GitHost['disableAutoMerge'] = (pullRequest, timeoutMs) => {
    const { octokit, owner, repo } = this.options
    return disableAutoMerge({ octokit, owner, repo, nodeId: pullRequest.nodeId }, timeoutMs)
  }

  failureOf: GitHost['failureOf'] = (error) => gitHubFailureOf(error)
}

/** The GitHub adapters' errors the steps answer differently. Pure. */
export function gitHubFailureOf(error: unknown): HostFailure | null {
  if (error instanceof BranchProtectedError) return { kind: 'branch-protected', said: '' }
  if (error instanceof ManifestConflictError) return { kind: 'manifest-conflict', said: '' }
  if (error instanceof CommitOutcomeUnknown) return { kind: 'outcome-unknown', said: '' }
  if (error instanceof MergeTimeoutError) return { kind: 'merge-timeout', said: error.lastSeen }
  if (error instanceof MergeRefusedError && error.kind === 'head-moved')
    return { kind: 'head-moved', said: error.githubReason }
  // A rate limit is not a permission problem; userError keeps GitHub's answer as the cause.
  const cause = error instanceof Error ? error.cause : undefined
  if (rateLimitOf(error, 0) ?? rateLimitOf(cause, 0)) return { kind: 'rate-limited', said: '' }
  return null
}

/** <server>/<owner>/<repo>/...: each part one encoded path segment; undefined without a server. */
export function gitHubLinks(serverUrl: string, owner: string, repo: string): HostLinks {
  let base = ''
  try {
    const url = new URL(serverUrl)
    if (/^https?:$/.test(url.protocol) && !url.username && !url.password)
      base = `${url.origin}${url.pathname}`.replace(/\/+$/, '')
  } catch {
    // not a URL: no links
  }
  const at = (...parts: string[]) =>
    base && owner && repo
      ? [base, ...[owner, repo, ...parts].map(encodeURIComponent)].join('/')
      : undefined
  return {
    commit: (sha) => (/^[0-9a-f]{7,64}$/i.test(sha) ? at('commit', sha) : undefined),
    pullRequest: (number) => (number > 0 ? at('pull', String(number)) : undefined),
    file: (ref, path) => {
      const root = ref && path ? at('blob', ref) : undefined
      return root && [root, ...path.split('/').map(encodeURIComponent)].join('/')
    }
  }
}
