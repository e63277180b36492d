// Reading a request: its body (with Coder's upload limit), its JSON, and its session token.
import type { IncomingMessage } from 'node:http'
import { HttpError } from './records.js'

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) {
      throw new HttpError(400, 'Failed to read file from request.', 'http: request body too large')
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

export function parseJson(body: Buffer): Record<string, unknown> {
  const text = body.toString('utf8')
  try {
    const value: unknown = JSON.parse(text || '{}')
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>
    }
  } catch {
    // fall through
  }
  throw new HttpError(400, 'Request body must be valid JSON.')
}

// The header, else the cookie or the query parameter coder_session_token.
export function sessionToken(req: IncomingMessage, rawPath: string): string | undefined {
  const header = req.headers['coder-session-token']
  if (typeof header === 'string' && header) return header
  const cookie = /(?:^|;\s*)coder_session_token=([^;]*)/.exec(String(req.headers.cookie ?? ''))
  if (cookie) return decodeURIComponent(cookie[1])
  return new URL(rawPath, 'http://x').searchParams.get('coder_session_token') ?? undefined
}
