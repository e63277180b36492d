// PATCH bodies of codertemplatetests: JSON merge patch, strategic merge patch, JSON patch.
import type { IncomingMessage } from 'node:http'
import { apiError, badRequest } from './status.js'

/** RFC 7386 JSON merge patch (also used for strategic merge patches: no list strategy here). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch
  const out: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key]
    else out[key] = mergePatch(out[key], value)
  }
  return out
}

/** RFC 6902 JSON patch: add, replace, remove, test. */
function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json patch must be an array of operations')
  const doc = structuredClone(target) as Record<string, unknown>
  for (const op of ops as { op: string; path: string; value?: unknown }[]) {
    const parts = op.path
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    const last = parts.pop()!
    let parent: Record<string, unknown> | unknown[] = doc
    for (const p of parts) {
      const next: unknown = (parent as Record<string, unknown>)[p]
      if (next === undefined || next === null || typeof next !== 'object')
        throw apiError(
          422,
          'Invalid',
          `jsonpatch ${op.op} operation does not apply: doc is missing path: "${op.path}"`
        )
      parent = next as Record<string, unknown>
    }
    const container = parent as Record<string, unknown> & unknown[]
    if (op.op === 'test') {
      if (JSON.stringify(container[last as never]) !== JSON.stringify(op.value))
        throw apiError(
          422,
          'Invalid',
          `the server rejected our request due to an error in our request`
        )
    } else if (op.op === 'remove') {
      if (Array.isArray(container)) container.splice(Number(last), 1)
      else delete container[last]
    } else if (op.op === 'add' && Array.isArray(container)) {
      container.splice(last === '-' ? container.length : Number(last), 0, op.value)
    } else if (op.op === 'add' || op.op === 'replace') {
      container[last as never] = op.value as never
    } else throw badRequest(`unsupported json patch operation ${JSON.stringify(op.op)}`)
  }
  return doc
}

/** The patch of the request by its Content-Type, applied to the current object. */
export function applyPatch(req: IncomingMessage, current: unknown, patch: unknown): unknown {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
  if (type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json')
    return mergePatch(current, patch)
  if (type === 'application/json-patch+json') return jsonPatch(current, patch)
  throw apiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json`
  )
}
