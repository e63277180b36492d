// The GitHub sandbox's HTTP side: authentication, fault injection, request records and counters,
// conditional requests (ETag / 304), and dispatch to the routes (router.ts).
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { DOCS, HttpFailure } from './errors.js'
import { graphqlRoute } from './graphql.js'
import type { HttpState } from './http-state.js'
import { RouteContext, type Answer, type Route } from './router.js'
import type { TokenGrant } from './state.js'

/** One request on its way through the front. */
interface Call {
  http: HttpState
  req: IncomingMessage
  res: ServerResponse
  requestBody: string
  method: string
  url: URL
  path: string
  apiBase: string
  matched: { route: Route; params: Record<string, string> } | null
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function redactedHeaders(req: IncomingMessage): Record<string, string | string[] | undefined> {
  const headers: Record<string, string | string[] | undefined> = { ...req.headers }
  if (typeof headers.authorization === 'string') {
    headers.authorization = headers.authorization.replace(/\s.*$/, ' [REDACTED]')
  }
  return headers
}

function record({ http, req, requestBody }: Call, status: number, answer?: string): void {
  http.requests.push({
    method: req.method ?? '',
    path: req.url ?? '',
    status,
    at: Date.now(),
    ...(requestBody === '' ? {} : { body: requestBody }),
    headers: redactedHeaders(req),
    ...(answer === undefined ? {} : { answer })
  })
}

function send(call: Call, status: number, json: unknown, headers: Record<string, string>): void {
  const withBody = status !== 204 && status !== 304 && json !== undefined
  call.res.writeHead(status, {
    ...(withBody ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    'x-github-media-type': 'github.v3; format=json',
    'x-github-request-id': `SANDBOX:${call.http.requests.length + 1}`,
    'x-github-api-version-selected': '2022-11-28',
    ...headers
  })
  const answer = withBody ? JSON.stringify(json) : undefined
  call.res.end(answer)
  record(call, status, answer)
}

/**
 * A strong validator of the JSON answer (GitHub often sends the weak form W/"…" for compressed
 * answers); If-None-Match matches either form, as GitHub's does.
 */
const etagOf = (json: unknown) =>
  `"${createHash('sha1').update(JSON.stringify(json)).digest('hex')}"`

function notModified(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match']
  if (typeof header !== 'string') return false
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*')
}

/** REST path without the GHES prefix, and the API base of this request. */
function locate(base: string, pathname: string): { path: string; apiBase: string } {
  if (pathname === '/graphql' || pathname === '/api/graphql') {
    return { path: '/graphql', apiBase: base }
  }
  if (pathname === '/api/v3' || pathname.startsWith('/api/v3/')) {
    return { path: pathname.slice('/api/v3'.length) || '/', apiBase: `${base}/api/v3` }
  }
  return { path: pathname, apiBase: base }
}

/** The caller's grant, after the listeners and the secondary limiter; null when it hangs. */
function admit(call: Call): TokenGrant | null {
  const { http, req, method, url, path, requestBody } = call
  const presented = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
  const grant = presented === undefined ? undefined : http.state.tokens.get(presented)
  if (!grant) {
    const docs = call.matched?.route === graphqlRoute ? DOCS.graphql : DOCS.rest
    throw new HttpFailure(401, 'Bad credentials', docs)
  }
  http.apiCalls += 1
  for (const listener of http.requestListeners)
    listener(method, url.pathname + url.search, String(requestBody ?? ''))
  const { limiter } = http
  const refused = limiter?.enter(method, path, requestBody)
  if (refused)
    throw new HttpFailure(refused.status, refused.message, DOCS.secondary, refused.headers)
  if (limiter) call.res.once('close', () => limiter.leave())
  if (http.requestsToHang > 0) {
    http.requestsToHang -= 1
    record(call, 0)
    return null
  }
  return grant
}

function throwInjectedFault(http: HttpState): void {
  const rateFault = http.rateLimitFaults.shift()
  if (rateFault) throw http.rateLimitFailure(rateFault)
  const serverError = http.serverErrorFaults.shift()
  if (serverError !== undefined) {
    // guess: GitHub's 5xx bodies vary (HTML from the edge, JSON from the API); JSON here.
    throw new HttpFailure(serverError, 'Server Error', DOCS.rest)
  }
}

function parseBody(requestBody: string): unknown {
  if (requestBody === '') return undefined
  try {
    return JSON.parse(requestBody)
  } catch {
    throw new HttpFailure(400, 'Problems parsing JSON', DOCS.rest)
  }
}

function answerRoute(call: Call, grant: TokenGrant, body: unknown): Answer {
  const { http, matched, url } = call
  if (!matched) throw new HttpFailure(404, 'Not Found', DOCS.rest)
  const ctx = new RouteContext(
    http.state,
    matched.route,
    matched.params,
    url.searchParams,
    body,
    grant,
    call.apiBase,
    http.base,
    call.req.headers
  )
  const query = String((body as { query?: unknown } | undefined)?.query ?? '')
  const faultIndex = (before: boolean): number =>
    http.afterStoreFaults.findIndex(
      (f) =>
        f.matches(call.method, url.pathname) &&
        (!f.query || query.includes(f.query)) &&
        (f.beforeStoring ?? false) === before
    )
  const early = faultIndex(true)
  if (early >= 0) {
    const [fault] = http.afterStoreFaults.splice(early, 1)
    throw new HttpFailure(fault.status, 'Server Error', DOCS.rest)
  }
  const answer = matched.route.handle(ctx)
  const lost = faultIndex(false)
  if (lost >= 0) {
    const [fault] = http.afterStoreFaults.splice(lost, 1)
    if (fault.graphqlTimeout !== undefined)
      return { status: 200, json: { data: null, errors: [{ message: fault.graphqlTimeout }] } }
    // guess: like injectServerErrors, a JSON 5xx body.
    throw new HttpFailure(fault.status, 'Server Error', DOCS.rest)
  }
  return answer
}

function respond(call: Call, answer: Answer): void {
  const headers = { ...call.http.rateHeaders(), ...answer.headers }
  if (call.method === 'GET' && answer.status === 200) {
    const etag = etagOf(answer.json)
    Object.assign(headers, {
      etag,
      // Headers of GitHub's authenticated GETs (as in Mergifyio/git-pull-request#97's log).
      'cache-control': 'private, max-age=60, s-maxage=60',
      vary: 'Accept, Authorization, Cookie, X-GitHub-OTP'
    })
    if (notModified(call.req, etag)) {
      // A 304 does not count against the rate limit (GitHub's conditional-request docs).
      call.http.apiCalls -= 1
      send(call, 304, undefined, { ...headers, ...call.http.rateHeaders() })
      return
    }
  }
  send(call, answer.status, answer.json, headers)
}

function sendFailure(call: Call, error: unknown): void {
  if (!(error instanceof HttpFailure)) {
    console.error('github sandbox: handler failed', error)
    send(call, 500, { message: String(error) }, {})
    return
  }
  send(call, error.status, error.body(), { ...call.http.rateHeaders(), ...error.headers })
}

export async function handleRequest(
  http: HttpState,
  req: IncomingMessage,
  res: ServerResponse
): Promise<void> {
  const requestBody = await readBody(req)
  const method = req.method ?? 'GET'
  const url = new URL(req.url ?? '/', http.base)
  const { path, apiBase } = locate(http.base, url.pathname)
  const matched = http.router.match(method, path)
  const countKey = matched ? `${method} ${matched.route.template}` : `${method} (no route)`
  http.counts.set(countKey, (http.counts.get(countKey) ?? 0) + 1)
  const call: Call = { http, req, res, requestBody, method, url, path, apiBase, matched }
  try {
    const grant = admit(call)
    if (!grant) return
    throwInjectedFault(http)
    respond(call, answerRoute(call, grant, parseBody(requestBody)))
  } catch (error) {
    sendFailure(call, error)
  }
}
