// One helper for raw authenticated requests to the Kubernetes API server (GET/POST JSON), shared by
// discovery, the wait, and the promote subresource.
// client-node 2.x: RequestContext + kc.applySecurityAuthentication(ctx) + its own undici fetch with
// ctx.getDispatcher(), as client-node's Watch does. We send through client-node's exported
// IsomorphicFetchHttpLibrary so the dispatcher and fetch come from the same undici (client-node's
// undici 8); the undici hoisted in our node_modules is 6.x and would not match that dispatcher.
import { raceAbort } from '../timing/abort.js'
import { HttpMethod, IsomorphicFetchHttpLibrary, RequestContext } from '@kubernetes/client-node'
import type { KubeConfig } from '@kubernetes/client-node'
import type { KubeStatus } from '../objects/coder-k8s.js'

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PATCH'
  /** Path below the server URL, starting with `/`. */
  path: string
  query?: Record<string, string | undefined>
  /** Sent as JSON with `Content-Type: application/json` (or `contentType`). */
  body?: unknown
  /** e.g. `application/merge-patch+json` for a PATCH. */
  contentType?: string
  signal?: AbortSignal
  /** Client timeout; the request fails with a KubeTimeoutError after it. */
  timeoutMs?: number
}

export interface KubeResponse {
  status: number
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: unknown
}

/** The caller's signal aborted: the run is cancelled. */
export class KubeAbortError extends Error {
  override name = 'AbortError'
  constructor(message = 'the operation was aborted') {
    super(message)
  }
}

/** No HTTP answer: connection refused, TLS failure, reset. The message names the server, never credentials. */
export class KubeTransportError extends Error {
  override name = 'KubeTransportError'
  constructor(
    readonly server: string,
    detail: string
  ) {
    super(`cannot reach the Kubernetes API server at ${server}: ${detail}`)
  }
}

/** No answer within the client timeout. */
export class KubeTimeoutError extends Error {
  override name = 'KubeTimeoutError'
  constructor(
    readonly server: string,
    timeoutMs: number
  ) {
    super(`the Kubernetes API server at ${server} did not answer within ${timeoutMs} ms`)
  }
}

/** The kubeconfig's exec credential plugin did not answer within the request's client timeout. */
export class KubeAuthTimeoutError extends Error {
  override name = 'KubeAuthTimeoutError'
  constructor(
    readonly server: string,
    timeoutMs: number
  ) {
    super(
      `the kubeconfig's credential plugin did not answer within ${timeoutMs} ms ` +
        `(authenticating to the Kubernetes API server at ${server}); check the exec plugin of the kube user`
    )
  }
}

export function isAbortError(err: unknown): boolean {
  return (
    typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError'
  )
}

/** The current cluster's server URL (safe to show: it holds no credentials). */
export function serverOf(kc: KubeConfig): string {
  const cluster = kc.getCurrentCluster()
  if (!cluster)
    throw new Error('the kubeconfig has no current cluster: set kube-context or current-context')
  return cluster.server.replace(/\/+$/, '')
}

export async function kubeRequest(kc: KubeConfig, request: KubeRequest): Promise<KubeResponse> {
  const server = serverOf(kc)
  const url = new URL(server + request.path)
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, value)
  }
  if (request.signal?.aborted) throw new KubeAbortError()

  const timeoutSignal =
    request.timeoutMs !== undefined ? AbortSignal.timeout(request.timeoutMs) : undefined
  const signals = [request.signal, timeoutSignal].filter((s): s is AbortSignal => s !== undefined)
  const ctx = new RequestContext(url.toString(), HttpMethod[request.method])
  ctx.setHeaderParam('Accept', 'application/json')
  if (request.body !== undefined) {
    ctx.setHeaderParam('Content-Type', request.contentType ?? 'application/json')
    ctx.setBody(JSON.stringify(request.body))
  }
  if (signals.length > 0) ctx.setSignal(AbortSignal.any(signals))

  const failure = (err: unknown): Error => {
    if (request.signal?.aborted) return new KubeAbortError()
    if (timeoutSignal?.aborted) return new KubeTimeoutError(server, request.timeoutMs ?? 0)
    return new KubeTransportError(server, transportDetail(err))
  }
  try {
    // Token, client certificates, exec plugins and TLS settings of the kubeconfig. An exec plugin is a
    // child process that may never answer, and client-node gives it no time limit: race it against
    // the request's own signal and timeout. (The abandoned child is left to end by itself: client-node
    // does not expose it.)
    const auth = kc.applySecurityAuthentication(ctx)
    await (signals.length > 0 ? raceAbort(auth, AbortSignal.any(signals)) : auth)
    maskBearer(ctx.getHeaders())
  } catch (err) {
    if (request.signal?.aborted) throw new KubeAbortError()
    if (timeoutSignal?.aborted) throw new KubeAuthTimeoutError(server, request.timeoutMs ?? 0)
    // No text of the error at all: an exec plugin's output and stderr may be the credential itself
    // (a JSON.parse error quotes the start of a bare token).
    // eslint-disable-next-line preserve-caught-error
    throw new Error(
      `cannot authenticate to the Kubernetes API server at ${server} with the kubeconfig: ${authFailureKind(err)}; run the kube user's exec plugin by hand to see its own error`
    )
  }
  let text: string
  let status: number
  try {
    const response = await new IsomorphicFetchHttpLibrary().send(ctx).toPromise()
    status = response.httpStatusCode
    text = await response.body.text()
  } catch (err) {
    throw failure(err)
  }
  return { status, body: parseJson(text) }
}

/** `work`, or a rejection as soon as one of the signals aborts (the work itself is not stopped). */

/** `Status.message` of an error answer, or a short description when the body is no Status. */
export function statusMessage(response: KubeResponse): string {
  const body = response.body
  if (isKubeStatus(body) && typeof body.message === 'string' && body.message !== '') {
    return body.message
  }
  if (typeof body === 'string' && body.trim() !== '') return body.trim().slice(0, 300)
  return `HTTP ${response.status}`
}

export function isKubeStatus(body: unknown): body is KubeStatus {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status'
}

/** Says what failed without quoting it. */
function authFailureKind(err: unknown): string {
  if (err instanceof SyntaxError) return 'the exec credential plugin printed no ExecCredential JSON'
  return 'the credential plugin or the kubeconfig user failed'
}

let credentialMask: (secret: string) => void = () => {}
const masked = new Set<string>()

/** Tokens that exec credential plugins return are masked once they are known (core.setSecret). */
export function maskCredentialsWith(mask: (secret: string) => void): void {
  credentialMask = mask
}

function maskBearer(headers: Record<string, string>): void {
  const value = headers.Authorization ?? headers.authorization
  const token = value?.startsWith('Bearer ') ? value.slice('Bearer '.length).trim() : ''
  if (token && !masked.has(token)) {
    masked.add(token)
    credentialMask(token)
  }
}

export function firstLine(err: unknown): string {
  const raw = typeof err === 'object' && err !== null ? (err as { message?: unknown }).message : err
  const message = typeof raw === 'string' ? raw : String(raw)
  return message.split('\n')[0] ?? ''
}

function parseJson(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

// undici reports `fetch failed` with the real reason in `cause` (e.g. ECONNREFUSED, a TLS error).
// Duck-typed: errors from Node internals may come from another realm, where `instanceof Error` fails.
function transportDetail(err: unknown): string {
  const describe = (e: unknown): string | undefined => {
    if (typeof e !== 'object' || e === null) return undefined
    const { code, message } = e as { code?: unknown; message?: unknown }
    const text = typeof message === 'string' ? (message.split('\n')[0] ?? '') : ''
    if (typeof code === 'string') return text.includes(code) ? text : `${code} (${text})`
    return text !== '' ? text : undefined
  }
  const cause =
    typeof err === 'object' && err !== null ? (err as { cause?: unknown }).cause : undefined
  return describe(cause) ?? describe(err) ?? String(err)
}
