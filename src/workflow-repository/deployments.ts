// GitHub deployments of the workflow's repository (deployment-environment): one deployment of the
// workflow's commit per promotion, rollback or live verification, with its statuses, and the read
// of the newest recorded version for `rollback-to: previous`. REST: docs.github.com/rest/deployments.
import {
  type GitHubCall,
  githubCall,
  githubError,
  repoOf,
  requestOptions,
  type TokenAdvice
} from '../gitops/github/client/call.js'
import { recordedCandidates, type RecordedWanted } from '../verdict/live.js'

const TOKEN: TokenAdvice = {
  input: 'github-token',
  needs: '`deployments: write` (in the workflow: `permissions: deployments: write`)'
}

/** The payload action.yml gives (deployment-environment): what went live, and what was live before. */
export interface DeploymentPayload {
  template: string
  organization: string
  versionId: string
  versionName: string
  previousVersionId: string
  testNames: string[]
}

export type FinalDeploymentState = 'success' | 'failure' | 'inactive'

export interface DeploymentRecord {
  environment: string
  /** The workflow's commit (GITHUB_SHA). */
  sha: string
  description: string
  payload: DeploymentPayload
  state: FinalDeploymentState
  /** The workflow run, shown as the status's log. */
  logUrl: string
}

/**
 * Creates the deployment, then its statuses in_progress and the final one; returns its ID. With
 * `auto_merge: false` and no required contexts GitHub neither merges the default branch into the
 * ref nor waits for checks (docs: "Create a deployment"). `auto_inactive` (true by default) marks
 * the earlier successful deployments of the environment inactive, so the environment shows what is
 * live.
 */
export async function recordDeployment(
  call: GitHubCall,
  record: DeploymentRecord
): Promise<number> {
  const { data } = await githubCall(call, TOKEN, 'creating a deployment', (options) =>
    call.octokit.rest.repos.createDeployment({
      ...repoOf(call),
      ref: record.sha,
      environment: record.environment,
      description: record.description.slice(0, 140),
      payload: { ...record.payload },
      auto_merge: false,
      required_contexts: [],
      transient_environment: false,
      request: options
    })
  )
  if (!('id' in data) || typeof data.id !== 'number')
    throw new Error(
      `GitHub created no deployment in ${call.owner}/${call.repo}: ${JSON.stringify(data).slice(0, 200)}`
    )
  for (const state of ['in_progress', record.state] as const) {
    await githubCall(call, TOKEN, `setting the deployment's status ${state}`, (options) =>
      call.octokit.rest.repos.createDeploymentStatus({
        ...repoOf(call),
        deployment_id: data.id,
        state,
        log_url: record.logUrl,
        description: record.description.slice(0, 140),
        auto_inactive: true,
        request: options
      })
    )
  }
  return data.id
}

/** At most this many deployments of the environment are read for `previous` (one page). */
const MAX_READ = 100

/**
 * `rollback-to: previous`: the version of the newest deployment (by created_at) of the environment
 * that the gate recorded for this template, that reached `success` (now maybe `inactive`) and names
 * another version than `wanted.except`; '' when none does. Payloads others wrote are skipped
 * (src/verdict/live.ts, recordedVersionOf).
 * guess: GitHub lists deployments newest first (the docs do not say), so one page of 100 holds the
 * newest; the order within it is not trusted.
 */
export async function recordedVersion(
  call: GitHubCall,
  environment: string,
  wanted: RecordedWanted
): Promise<string> {
  const { data: deployments } = await githubCall(call, TOKEN, 'listing deployments', (options) =>
    call.octokit.rest.repos.listDeployments({
      ...repoOf(call),
      environment,
      per_page: MAX_READ,
      request: options
    })
  )
  for (const candidate of recordedCandidates(deployments, wanted)) {
    const { data: statuses } = await githubCall(
      call,
      TOKEN,
      'listing deployment statuses',
      (options) =>
        call.octokit.rest.repos.listDeploymentStatuses({
          ...repoOf(call),
          deployment_id: candidate.id,
          per_page: 100,
          request: options
        })
    )
    if (statuses.some((status) => status.state === 'success')) return candidate.versionId
  }
  return ''
}

/**
 * The preflight's look at github-token's access to the workflow's repository, where GitHub tells
 * it: a problem text when the token cannot read the repository or its account may not write to it
 * (`permissions.push` false), null when it may or when GitHub does not say. As in access.ts, a
 * `permissions` without `pull` does not describe this token (installation tokens), so cannot tell.
 */
export async function deploymentAccessProblem(call: GitHubCall): Promise<string | null> {
  const where = `${call.owner}/${call.repo}`
  let permissions: { push?: boolean; pull?: boolean } | undefined
  try {
    const { data } = await call.octokit.rest.repos.get({
      ...repoOf(call),
      request: requestOptions(call)
    })
    permissions = data.permissions
  } catch (error) {
    const status = githubError(error)?.status
    if (status === 401 || status === 403 || status === 404)
      return `github-token cannot read ${where} (HTTP ${status})`
    return null
  }
  if (!permissions || permissions.pull !== true) return null
  return permissions.push === true
    ? null
    : `github-token's account may not write to ${where}, so it cannot record deployments (${TOKEN.needs})`
}
