// A small scripted Kubernetes API server on 127.0.0.1 for adapter tests: bearer-token auth, Status
// error bodies, discovery documents, and watch streams as chunked newline-delimited JSON events.
// Each test supplies a handler; the helpers below write the exact wire formats.
import { statusBody } from '../../sandbox/kube/status.js'
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { KubeConfig } from '@kubernetes/client-node'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'

export interface RecordedKubeRequest {
  method: string
  /** Path without the query. */
  path: string
  query: URLSearchParams
  headers: IncomingMessage['headers']
  body: string
  /** Whether the bearer token matched. */
  authorized: boolean
}

export interface KubeRequestContext {
  req: IncomingMessage
  res: ServerResponse
  recorded: RecordedKubeRequest
}

export type KubeHandler = (ctx: KubeRequestContext) => void | Promise<void>

export interface ScriptedKubeServer {
  url: string
  token: string
  requests: RecordedKubeRequest[]
  /** Requests whose path and method match. */
  requestsTo(method: string, path: string): RecordedKubeRequest[]
  /** Connections closed by the client or the server so far (watch streams included). */
  closedConnections(): number
  openConnections(): number
  close(): Promise<void>
}

export async function startKubeServer(
  handler: KubeHandler,
  options: { token?: string } = {}
): Promise<ScriptedKubeServer> {
  const token = options.token ?? 'test-token-' + Math.random().toString(36).slice(2)
  const requests: RecordedKubeRequest[] = []
  const sockets = new Set<Socket>()
  let closed = 0
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      const recorded: RecordedKubeRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        authorized: req.headers.authorization === `Bearer ${token}`
      }
      requests.push(recorded)
      if (!recorded.authorized) {
        sendStatus(res, 401, 'Unauthorized', 'Unauthorized')
        return
      }
      Promise.resolve(handler({ req, res, recorded })).catch((err: unknown) => {
        if (!res.headersSent) sendStatus(res, 500, 'InternalError', String(err))
        else res.destroy()
      })
    })
  })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => {
      sockets.delete(socket)
      closed++
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests,
    requestsTo: (method, path) => requests.filter((r) => r.method === method && r.path === path),
    closedConnections: () => closed,
    openConnections: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text)
  })
  res.end(text)
}

/** A metav1.Status error answer, as the API server sends it (the sandbox's own builder). */
export { statusBody }

export function sendStatus(
  res: ServerResponse,
  code: number,
  reason: string,
  message: string
): void {
  sendJson(res, code, statusBody(code, reason, message))
}

export function notFound(res: ServerResponse, resource: string, name: string): void {
  sendStatus(res, 404, 'NotFound', `${resource} "${name}" not found`)
}

/** A discovery document for one group version. */
export function apiResourceList(
  groupVersion: string,
  resources: { name: string; kind: string; verbs: string[]; namespaced?: boolean }[]
): Record<string, unknown> {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: resources.map((r) => ({
      name: r.name,
      singularName: '',
      namespaced: r.namespaced ?? true,
      kind: r.kind,
      verbs: r.verbs
    }))
  }
}

export interface WatchStream {
  send(type: string, object: unknown): void
  bookmark(resourceVersion: string): void
  /** 410 Gone as the API server sends it inside a watch: an ERROR event carrying a Status. */
  gone(message?: string): void
  /** Ends the chunked response cleanly (what timeoutSeconds does). */
  end(): void
  /** Drops the connection mid-stream. */
  destroy(): void
  /** Resolves when the client closes the stream. */
  closed: Promise<void>
}

/** Starts a watch answer: 200, chunked, one JSON event per line. */
export function startWatch(res: ServerResponse): WatchStream {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' })
  res.flushHeaders()
  const closed = new Promise<void>((resolve) => res.on('close', () => resolve()))
  const write = (type: string, object: unknown): void => {
    if (!res.writableEnded && !res.destroyed) res.write(JSON.stringify({ type, object }) + '\n')
  }
  return {
    send: write,
    bookmark: (resourceVersion) =>
      write('BOOKMARK', {
        apiVersion: 'coder.com/v1alpha1',
        kind: 'CoderTemplateTest',
        metadata: { resourceVersion }
      }),
    gone: (message = 'too old resource version: 1 (2)') =>
      write('ERROR', statusBody(410, 'Expired', message)),
    end: () => res.end(),
    destroy: () => res.socket?.destroy(),
    closed
  }
}

/** A kubeconfig (YAML) for a server with a bearer-token user. */
export function tokenKubeconfig(server: string, token: string, context = 'test'): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${context}`,
    'clusters:',
    `- name: ${context}-cluster`,
    '  cluster:',
    `    server: ${server}`,
    // client-node 2.x refuses plain http unless TLS verification is explicitly off.
    ...(server.startsWith('http:') ? ['    insecure-skip-tls-verify: true'] : []),
    'users:',
    `- name: ${context}-user`,
    '  user:',
    `    token: ${token}`,
    'contexts:',
    `- name: ${context}`,
    '  context:',
    `    cluster: ${context}-cluster`,
    `    user: ${context}-user`,
    '    namespace: default',
    ''
  ].join('\n')
}

export function kubeConfigFor(server: { url: string; token: string }): KubeConfig {
  const kc = new KubeConfig()
  kc.loadFromString(tokenKubeconfig(server.url, server.token))
  return kc
}

/** A CoderTemplateTest as the API server returns it. */
export function testObject(
  name: string,
  resourceVersion: string,
  status?: CoderTemplateTest['status'],
  namespace = 'coder'
): CoderTemplateTest {
  return {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTest',
    metadata: { name, namespace, uid: 'uid-' + name, resourceVersion, generation: 1 },
    spec: {
      controlPlaneRef: { name: 'coder' },
      template: 'acme.docker',
      version: { name: 'v1' },
      timeoutSeconds: 900
    },
    ...(status !== undefined ? { status } : {})
  }
}

export function succeededStatus(
  versionID = '11111111-2222-3333-4444-555555555555'
): CoderTemplateTest['status'] {
  return {
    observedGeneration: 1,
    phase: 'Succeeded',
    reason: 'Succeeded',
    templateVersionID: versionID,
    conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded' }]
  }
}

export function runningStatus(reason = 'WaitingForAgents'): CoderTemplateTest['status'] {
  return { observedGeneration: 1, phase: 'Running', reason }
}

/** A list answer (collection resourceVersion + items). */
export function listBody(
  resourceVersion: string,
  items: CoderTemplateTest[]
): Record<string, unknown> {
  return {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTestList',
    metadata: { resourceVersion },
    items
  }
}

/** Resolves once `check` is true, polling briefly (test synchronisation only). */
export async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not reached in time')
    await new Promise((r) => setTimeout(r, 5))
  }
}
