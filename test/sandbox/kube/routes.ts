// The route table of the Kubernetes sandbox and its request listener: authentication, RBAC before
// routing (as kube-apiserver), 404/405, Status bodies for errors, one record per answer.
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { Answer } from './aggregated.js'
import type { SandboxRbac } from './rbac.js'
import { requestAttributes } from './rbac.js'
import { requestBodies } from './request-body.js'
import { ApiError, apiError, statusBody, unauthorized } from './status.js'

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  match: RegExpExecArray,
  query: URLSearchParams
) => Promise<Answer | null>

export type Route = [method: string, pattern: RegExp, handler: Handler]

export class RouteTable {
  readonly routes: Route[] = []
  route(method: string, pattern: RegExp, handler: Handler): void {
    this.routes.push([method, pattern, handler])
  }
}

export const nsOf = (match: RegExpExecArray): string => decodeURIComponent(match[1])
export const nameOf = (match: RegExpExecArray): string => decodeURIComponent(match[2])
export const isWatch = (query: URLSearchParams): boolean =>
  ['true', '1'].includes(query.get('watch') ?? '')
export const isDryRun = (query: URLSearchParams): boolean => query.get('dryRun') === 'All'

export interface ListenerContext {
  token: string
  rbac: SandboxRbac
  table: RouteTable
  /** Called for every authenticated request before authorization, with the decoded path. */
  onArrival(req: IncomingMessage, path: string): void
  record(req: IncomingMessage, status: number, body?: string): void
}

function bearerCheck(token: string): (req: IncomingMessage) => boolean {
  const expected = Buffer.from(`Bearer ${token}`)
  return (req) => {
    const given = Buffer.from(String(req.headers.authorization ?? ''))
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
}

/** Routing sees the decoded path, as Go's URL.Path does (client-node encodes `/` in plurals). */
function decodedPath(url: URL): string {
  try {
    return decodeURIComponent(url.pathname).replace(/\/+$/, '') || '/'
  } catch {
    return url.pathname
  }
}

function findRoute(routes: Route[], method: string | undefined, path: string): Route {
  const methodRoutes = routes.filter(([, pattern]) => pattern.test(path))
  if (methodRoutes.length === 0) {
    // Unknown paths answer 404 like the API server (kubectl tolerates it for /openapi).
    throw apiError(404, 'NotFound', 'the server could not find the requested resource', {})
  }
  const found = methodRoutes.find(([routeMethod]) => routeMethod === method)
  if (!found)
    throw apiError(
      405,
      'MethodNotAllowed',
      `the server does not allow this method on the requested resource`
    )
  return found
}

function errorAnswer(error: unknown): Answer {
  const status =
    error instanceof ApiError
      ? error.body
      : statusBody(500, 'InternalError', `sandbox error: ${(error as Error).message}`)
  return { status: status.code, body: status }
}

export function createListener(context: ListenerContext): RequestListener {
  const authorized = bearerCheck(context.token)
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<Answer | null> => {
    const url = new URL(req.url ?? '/', 'http://sandbox')
    const path = decodedPath(url)
    try {
      if (!authorized(req)) throw unauthorized()
      context.onArrival(req, path)
      // Authorization comes before routing, as in kube-apiserver: a denied request is 403 even
      // for a path that does not exist.
      const attributes = requestAttributes(req.method ?? 'GET', path, url.searchParams)
      if (!context.rbac.authorize(attributes).allowed) throw context.rbac.forbidden(attributes)
      const [, pattern, handler] = findRoute(context.table.routes, req.method, path)
      return await handler(req, res, pattern.exec(path)!, url.searchParams)
    } catch (error) {
      return errorAnswer(error)
    }
  }
  return (req, res) => {
    void (async () => {
      const answered = await answer(req, res)
      if (answered === null) return // a watch stream answered itself
      const text = JSON.stringify(answered.body)
      res.writeHead(answered.status, { 'Content-Type': 'application/json' })
      res.end(text)
      context.record(req, answered.status, requestBodies.get(req))
    })()
  }
}
