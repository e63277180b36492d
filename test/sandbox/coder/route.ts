// A route of the Coder sandbox's REST API: method, anchored path pattern, and its answer.
import type { IncomingMessage } from 'node:http'
import { HttpError, type UserRecord } from './records.js'
import type { CoderState } from './state.js'

export interface ApiCall {
  state: CoderState
  req: IncomingMessage
  body: Buffer
  caller: UserRecord
}

export type Answer = { status: number; body: unknown }

export interface Route {
  method: string
  pattern: RegExp
  answer: (call: ApiCall, match: RegExpMatchArray) => Answer
}

/** The first route that matches answers; none is Coder's 404. */
export function dispatch(routes: Route[], call: ApiCall, method: string, path: string): Answer {
  for (const route of routes) {
    if (route.method !== method) continue
    const match = path.match(route.pattern)
    if (match) return route.answer(call, match)
  }
  throw new HttpError(404, 'Route not found.')
}
