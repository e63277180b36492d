// Route table and per-request context shared by the route modules. Templates use GitHub's
// documented parameter names; `{name+}` takes the rest of the path (contents paths, ref names).
import type { IncomingHttpHeaders } from 'node:http'
import { HttpFailure } from './errors.js'
import type { Access, SandboxState, StoredRepo, TokenGrant } from './state.js'

export interface Answer {
  status: number
  json?: unknown
  headers?: Record<string, string>
}

export interface Route {
  method: string
  /** e.g. '/repos/{owner}/{repo}/pulls/{pull_number}' (also the key of the request counters). */
  template: string
  /** documentation_url of this route's errors. */
  docs: string
  handle(ctx: RouteContext): Answer
}

export type Scope = 'contents' | 'pullRequests' | 'issues' | 'administration' | 'deployments'

export class RouteContext {
  constructor(
    readonly state: SandboxState,
    readonly route: Route,
    readonly params: Record<string, string>,
    readonly query: URLSearchParams,
    readonly body: unknown,
    readonly grant: TokenGrant,
    /** API base of this request: the origin, plus /api/v3 when the request came that way. */
    readonly apiBase: string,
    /** Web base (html_url values). */
    readonly serverUrl: string,
    readonly headers: IncomingHttpHeaders
  ) {}

  fail(status: number, message: string, errors?: unknown[]): HttpFailure {
    return new HttpFailure(status, message, this.route.docs, {}, errors)
  }

  /** The repository of {owner}/{repo}; 404 Not Found as GitHub answers for absent or hidden ones. */
  repo(): StoredRepo {
    const repo = this.state.findRepo(this.params.owner, this.params.repo)
    if (!repo) throw this.fail(404, 'Not Found')
    return repo
  }

  input(): Record<string, unknown> {
    const body = this.body
    return body && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {}
  }

  can(scope: Scope, level: Exclude<Access, 'none'>): boolean {
    const granted = this.grant[scope]
    return level === 'read' ? granted !== 'none' : granted === 'write'
  }

  /**
   * Refuses a request the token may not make: an installation token (GITHUB_TOKEN) gets "Resource
   * not accessible by integration" (e.g. renovatebot/renovate#23885 for branch protection); a
   * fine-grained PAT gets the same sentence "by personal access token".
   */
  require(scope: Scope, level: Exclude<Access, 'none'>): void {
    if (this.can(scope, level)) return
    throw this.fail(403, forbiddenMessage(this.grant))
  }

  apiRepoUrl(repo: StoredRepo): string {
    return `${this.apiBase}/repos/${repo.owner}/${repo.name}`
  }

  htmlRepoUrl(repo: StoredRepo): string {
    return `${this.serverUrl}/${repo.owner}/${repo.name}`
  }
}

export function forbiddenMessage(grant: TokenGrant): string {
  return grant.kind === 'installation'
    ? 'Resource not accessible by integration'
    : 'Resource not accessible by personal access token'
}

interface CompiledRoute {
  route: Route
  pattern: RegExp
  names: string[]
}

export class Router {
  private readonly compiled: CompiledRoute[] = []

  add(routes: Route[]): void {
    for (const route of routes) {
      const names: string[] = []
      const source = route.template
        .replace(/[.*?^$()|[\]\\]/g, '\\$&')
        .replace(/\{(\w+)(\+?)\}/g, (_all, name: string, greedy: string) => {
          names.push(name)
          return greedy ? '(.+)' : '([^/]+)'
        })
      this.compiled.push({ route, pattern: new RegExp(`^${source}$`), names })
    }
  }

  /** The route for a method and path (without the /api/v3 prefix); params are URL-decoded. */
  match(method: string, path: string): { route: Route; params: Record<string, string> } | null {
    for (const { route, pattern, names } of this.compiled) {
      if (route.method !== method) continue
      const found = pattern.exec(path)
      if (!found) continue
      const params: Record<string, string> = {}
      names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1])))
      return { route, params }
    }
    return null
  }
}
