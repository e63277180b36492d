// Request bodies of the Kubernetes sandbox: size limit, JSON/YAML/protobuf, and the record of
// what was read (requests carry their body).
import type { IncomingMessage } from 'node:http'
import { parse as parseYaml } from 'yaml'
import { PROTOBUF_CONTENT_TYPE, decodeSelfSubjectAccessReview } from './protobuf.js'
import { apiError, badRequest } from './status.js'

/** Request bodies as read, for the request record. */
export const requestBodies = new WeakMap<IncomingMessage, string>()

function readRawBody(req: IncomingMessage, limit = 3 * 1024 * 1024): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) reject(apiError(413, 'RequestEntityTooLarge', 'request entity too large'))
      else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const text = (await readRawBody(req)).toString('utf8')
  requestBodies.set(req, text)
  return text
}

/** JSON, or Kubernetes protobuf (kubectl's encoding of built-in types); recorded as JSON. */
export async function readReviewBody(req: IncomingMessage): Promise<unknown> {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
  if (type !== PROTOBUF_CONTENT_TYPE) return parseJson(await readBody(req))
  const review = decodeSelfSubjectAccessReview(await readRawBody(req))
  requestBodies.set(req, JSON.stringify(review))
  return review
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw badRequest(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml'
    )
  }
}

/** A codertemplatetest body: YAML when the Content-Type says so, else JSON. */
export async function readTestBody(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req)
  if (/yaml/.test(String(req.headers['content-type'] ?? ''))) return parseYaml(text)
  return parseJson(text)
}
