// The Coder sandbox's HTTP front: injected faults, buildinfo, /bin/ downloads, the session
// check, dispatch to the API routes, the error shape, and the request log.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RecordedRequest } from '../contracts.js'
import { readBody, sessionToken } from './body.js'
import { serveCli, type BakedCli } from './cli-download.js'
import { HttpError, SERVER_UPLOAD_LIMIT } from './records.js'
import { dispatch, type Answer, type Route } from './route.js'
import type { CoderState } from './state.js'

export const SIGNED_OUT_MESSAGE =
  'You are signed out or your session has expired. Please sign in again to continue.'

export interface CoderHttp {
  state: CoderState
  routes: Route[]
  cli: () => BakedCli
  cliPlatforms: string[]
}

/** What one request led to, for the log. */
interface Outcome {
  status: number
  recordedBody?: string
  /** The JSON text of the answer (contract tests check it against Coder's description). */
  answer?: string
}

function sendJson(res: ServerResponse, outcome: Outcome, code: number, body: unknown): void {
  outcome.status = code
  const text = (outcome.answer = JSON.stringify(body))
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text)
  })
  res.end(text)
}

function buildinfo(req: IncomingMessage, serverVersion: string): Answer {
  return {
    status: 200,
    body: {
      external_url: 'https://github.com/coder/coder',
      version: serverVersion,
      dashboard_url: `http://${req.headers.host}`,
      telemetry: false,
      workspace_proxy: false,
      agent_api_version: '2.0',
      upgrade_message: '',
      deployment_id: 'sandbox'
    }
  }
}

async function answerApi(
  app: CoderHttp,
  req: IncomingMessage,
  path: string,
  rawPath: string,
  outcome: Outcome
): Promise<Answer> {
  if (!path.startsWith('/api/v2/')) throw new HttpError(404, 'Not found')
  const given = sessionToken(req, rawPath)
  const caller = app.state.userByToken(given)
  if (!caller) {
    throw new HttpError(
      401,
      SIGNED_OUT_MESSAGE,
      given
        ? 'API key is invalid.'
        : 'Cookie "coder_session_token" or header "Coder-Session-Token" must be provided.'
    )
  }
  const body = await readBody(req, SERVER_UPLOAD_LIMIT)
  // Our JSON bodies carry no secrets (names, IDs, messages, template variables); tar uploads
  // are kept in `files`, not in the log.
  if (req.headers['content-type']?.startsWith('application/json')) {
    outcome.recordedBody = body.toString('utf8')
  }
  return dispatch(app.routes, { state: app.state, req, body, caller }, req.method ?? 'GET', path)
}

function errorBody(error: unknown): Answer {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: {
        message: error.message,
        ...(error.detail ? { detail: error.detail } : {}),
        ...(error.validations ? { validations: error.validations } : {})
      }
    }
  }
  return { status: 500, body: { message: 'Internal error.', detail: String(error) } }
}

function record(state: CoderState, req: IncomingMessage, rawPath: string, outcome: Outcome): void {
  const headers: Record<string, string | string[] | undefined> = { ...req.headers }
  for (const secret of ['coder-session-token', 'cookie', 'authorization']) {
    if (headers[secret] !== undefined) headers[secret] = '[redacted]'
  }
  const entry: RecordedRequest = {
    method: req.method ?? 'GET',
    path: rawPath,
    status: outcome.status,
    at: Date.now(),
    ...(outcome.recordedBody !== undefined ? { body: outcome.recordedBody } : {}),
    headers,
    ...(outcome.answer !== undefined ? { answer: outcome.answer } : {})
  }
  state.requests.push(entry)
  state.events.emit('request', entry)
}

export async function handleRequest(
  app: CoderHttp,
  req: IncomingMessage,
  res: ServerResponse
): Promise<void> {
  const method = req.method ?? 'GET'
  const rawPath = req.url ?? '/'
  let path = rawPath.split('?')[0]
  try {
    path = decodeURIComponent(path)
  } catch {
    // a malformed escape stays as sent and matches no route
  }
  const outcome: Outcome = { status: 500 }
  // Every answer. A hostile test version may hold a newline, which no header can.
  res.setHeader('X-Coder-Build-Version', app.state.serverVersion.replace(/[^\x20-\x7e]/g, '?'))
  try {
    const fault = app.state.requestFaults.find((f) => path.startsWith(f.pathPrefix) && f.times > 0)
    if (fault) {
      fault.times--
      throw new HttpError(fault.status, fault.message)
    }
    if (method === 'GET' && path === '/api/v2/buildinfo') {
      const answer = buildinfo(req, app.state.serverVersion)
      sendJson(res, outcome, answer.status, answer.body)
      return
    }
    if (method === 'GET' && serveCli(path, res, app.cli(), app.cliPlatforms)) {
      outcome.status = 200
      return
    }
    const answer = await answerApi(app, req, path, rawPath, outcome)
    sendJson(res, outcome, answer.status, answer.body)
  } catch (error) {
    const answer = errorBody(error)
    sendJson(res, outcome, answer.status, answer.body)
  } finally {
    record(app.state, req, rawPath, outcome)
  }
}
