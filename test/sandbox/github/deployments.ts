// Deployments and deployment statuses (docs.github.com/rest/deployments/deployments and
// .../deployments/statuses): create, list newest first, and the statuses with `auto_inactive`,
// which adds an `inactive` status to every earlier deployment of the same environment that had a
// `success` state, unless that deployment is transient or a production one (GitHub's docs of
// "Create a deployment status"). Kept per repository, beside the repository records.
import { gitDate } from './git-objects.js'
import { validationFailed } from './errors.js'
import { userJson } from './json.js'
import type { Route, RouteContext } from './router.js'
import type { StoredRepo } from './state.js'

const DOCS_DEPLOYMENTS = 'https://docs.github.com/rest/deployments/deployments'
const DOCS_STATUSES = 'https://docs.github.com/rest/deployments/statuses'
const STATES = ['error', 'failure', 'inactive', 'in_progress', 'queued', 'pending', 'success']

export interface StoredDeploymentStatus {
  id: number
  state: string
  description: string
  logUrl: string
  environmentUrl: string
  creator: string
  createdAt: string
}

export interface StoredDeployment {
  id: number
  sha: string
  ref: string
  task: string
  environment: string
  payload: unknown
  description: string | null
  creator: string
  createdAt: string
  transient: boolean
  production: boolean
  /** Oldest first. */
  statuses: StoredDeploymentStatus[]
}

const stores = new WeakMap<StoredRepo, StoredDeployment[]>()
let nextId = 1000

/** The deployments of a repository, oldest first (tests read them). */
export function deploymentsOf(repo: StoredRepo): StoredDeployment[] {
  let list = stores.get(repo)
  if (!list) stores.set(repo, (list = []))
  return list
}

function requireDeployments(ctx: RouteContext, level: 'read' | 'write'): void {
  ctx.require('deployments', level)
}

function deploymentJson(ctx: RouteContext, repo: StoredRepo, d: StoredDeployment) {
  const api = ctx.apiRepoUrl(repo)
  return {
    url: `${api}/deployments/${d.id}`,
    id: d.id,
    node_id: `DE_kwDO${Buffer.from(String(d.id)).toString('base64url')}`,
    sha: d.sha,
    ref: d.ref,
    task: d.task,
    payload: d.payload,
    original_environment: d.environment,
    environment: d.environment,
    description: d.description,
    creator: userJson(ctx, d.creator),
    created_at: d.createdAt,
    updated_at: d.statuses.at(-1)?.createdAt ?? d.createdAt,
    statuses_url: `${api}/deployments/${d.id}/statuses`,
    repository_url: api,
    transient_environment: d.transient,
    production_environment: d.production
  }
}

function statusJson(
  ctx: RouteContext,
  repo: StoredRepo,
  d: StoredDeployment,
  s: StoredDeploymentStatus
) {
  const api = ctx.apiRepoUrl(repo)
  return {
    url: `${api}/deployments/${d.id}/statuses/${s.id}`,
    id: s.id,
    node_id: `DES_kwDO${Buffer.from(String(s.id)).toString('base64url')}`,
    state: s.state,
    creator: userJson(ctx, s.creator),
    description: s.description,
    environment: d.environment,
    // Empty links are left out: the description types them `format: uri`.
    ...(s.logUrl ? { target_url: s.logUrl, log_url: s.logUrl } : {}),
    created_at: s.createdAt,
    updated_at: s.createdAt,
    deployment_url: `${api}/deployments/${d.id}`,
    repository_url: api,
    ...(s.environmentUrl ? { environment_url: s.environmentUrl } : {})
  }
}

/** `ref`: a branch of the repository, or a full commit SHA (guess: the sandbox does not check that the SHA exists). */
function resolveRef(ctx: RouteContext, repo: StoredRepo, ref: unknown): string {
  if (typeof ref !== 'string' || ref === '')
    throw validationFailed(DOCS_DEPLOYMENTS, [
      { resource: 'Deployment', code: 'missing_field', field: 'ref' }
    ])
  if (/^[0-9a-f]{40}$/.test(ref)) return ref
  const sha = repo.branches.get(ref)
  // guess: the text of GitHub's answer for an unknown ref
  if (!sha) throw ctx.fail(422, `No ref found for: ${ref}`)
  return sha
}

function createDeployment(ctx: RouteContext) {
  const repo = ctx.repo()
  requireDeployments(ctx, 'write')
  const input = ctx.input()
  const sha = resolveRef(ctx, repo, input.ref)
  const environment = typeof input.environment === 'string' ? input.environment : 'production'
  const payload = input.payload === undefined ? {} : input.payload
  const deployment: StoredDeployment = {
    id: nextId++,
    sha,
    ref: String(input.ref),
    task: typeof input.task === 'string' ? input.task : 'deploy',
    environment,
    // GitHub answers a string payload as it was given, an object as the object.
    payload: typeof payload === 'string' ? payload : payload,
    description: typeof input.description === 'string' ? input.description : null,
    creator: ctx.grant.login,
    createdAt: gitDate(),
    transient: input.transient_environment === true,
    production:
      typeof input.production_environment === 'boolean'
        ? input.production_environment
        : environment === 'production',
    statuses: []
  }
  deploymentsOf(repo).push(deployment)
  return { status: 201, json: deploymentJson(ctx, repo, deployment) }
}

function deploymentOf(ctx: RouteContext, repo: StoredRepo): StoredDeployment {
  const found = deploymentsOf(repo).find((d) => d.id === Number(ctx.params.deployment_id))
  if (!found) throw ctx.fail(404, 'Not Found')
  return found
}

/** A page of a newest-first list (guess: GitHub lists deployments and statuses newest first). */
function page<T>(ctx: RouteContext, items: T[]): T[] {
  const perPage = Math.min(Number(ctx.query.get('per_page') ?? 30) || 30, 100)
  const number = Math.max(Number(ctx.query.get('page') ?? 1) || 1, 1)
  return [...items].reverse().slice((number - 1) * perPage, number * perPage)
}

function createStatus(ctx: RouteContext) {
  const repo = ctx.repo()
  requireDeployments(ctx, 'write')
  const deployment = deploymentOf(ctx, repo)
  const input = ctx.input()
  if (typeof input.state !== 'string' || !STATES.includes(input.state))
    throw validationFailed(DOCS_STATUSES, [
      { resource: 'DeploymentStatus', code: 'invalid', field: 'state' }
    ])
  const status: StoredDeploymentStatus = {
    id: nextId++,
    state: input.state,
    description: typeof input.description === 'string' ? input.description : '',
    logUrl: typeof input.log_url === 'string' ? input.log_url : '',
    environmentUrl: typeof input.environment_url === 'string' ? input.environment_url : '',
    creator: ctx.grant.login,
    createdAt: gitDate()
  }
  deployment.statuses.push(status)
  if (status.state === 'success' && input.auto_inactive !== false)
    inactivateOthers(ctx, repo, deployment)
  return { status: 201, json: statusJson(ctx, repo, deployment, status) }
}

/** auto_inactive: earlier deployments of the environment that had a success state go inactive. */
function inactivateOthers(ctx: RouteContext, repo: StoredRepo, current: StoredDeployment): void {
  for (const other of deploymentsOf(repo)) {
    if (other === current || other.environment !== current.environment) continue
    if (other.id > current.id || other.transient || other.production) continue
    if (!other.statuses.some((s) => s.state === 'success')) continue
    if (other.statuses.at(-1)?.state === 'inactive') continue
    other.statuses.push({
      id: nextId++,
      state: 'inactive',
      description: '',
      logUrl: '',
      environmentUrl: '',
      creator: ctx.grant.login,
      createdAt: gitDate()
    })
  }
}

export const deploymentRoutes: Route[] = [
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/deployments',
    docs: `${DOCS_DEPLOYMENTS}#create-a-deployment`,
    handle: createDeployment
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/deployments',
    docs: `${DOCS_DEPLOYMENTS}#list-deployments`,
    handle(ctx) {
      const repo = ctx.repo()
      requireDeployments(ctx, 'read')
      const q = (name: string) => ctx.query.get(name)
      const matching = deploymentsOf(repo).filter(
        (d) =>
          (q('environment') === null || d.environment === q('environment')) &&
          (q('sha') === null || d.sha === q('sha')) &&
          (q('ref') === null || d.ref === q('ref')) &&
          (q('task') === null || d.task === q('task'))
      )
      return { status: 200, json: page(ctx, matching).map((d) => deploymentJson(ctx, repo, d)) }
    }
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
    docs: `${DOCS_STATUSES}#create-a-deployment-status`,
    handle: createStatus
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
    docs: `${DOCS_STATUSES}#list-deployment-statuses`,
    handle(ctx) {
      const repo = ctx.repo()
      requireDeployments(ctx, 'read')
      const deployment = deploymentOf(ctx, repo)
      return {
        status: 200,
        json: page(ctx, deployment.statuses).map((s) => statusJson(ctx, repo, deployment, s))
      }
    }
  }
]
