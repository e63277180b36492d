// Kubernetes `Status` error bodies with the API server's real message formats.
import type { FieldCause } from './validation.js'

export interface StatusBody {
  kind: 'Status'
  apiVersion: 'v1'
  metadata: Record<string, never>
  status: 'Failure' | 'Success'
  message: string
  reason: string
  details?: {
    name?: string
    group?: string
    kind?: string
    causes?: { reason?: string; message: string; field?: string }[]
    retryAfterSeconds?: number
  }
  code: number
}

/** An answer the router sends: HTTP status plus a JSON body. */
export class ApiError extends Error {
  constructor(readonly body: StatusBody) {
    super(body.message)
  }
  get code(): number {
    return this.body.code
  }
}

export function statusBody(
  code: number,
  reason: string,
  message: string,
  details?: StatusBody['details']
): StatusBody {
  const body: StatusBody = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code
  }
  if (details) body.details = details
  return body
}

export function apiError(
  code: number,
  reason: string,
  message: string,
  details?: StatusBody['details']
): ApiError {
  return new ApiError(statusBody(code, reason, message, details))
}

export interface ResourceRef {
  group: string
  resource: string
  kind?: string
}

const qualified = (ref: ResourceRef): string =>
  ref.group ? `${ref.resource}.${ref.group}` : ref.resource

export const notFound = (ref: ResourceRef, name: string): ApiError =>
  apiError(404, 'NotFound', `${qualified(ref)} "${name}" not found`, {
    name,
    group: ref.group,
    kind: ref.resource
  })

export const alreadyExists = (ref: ResourceRef, name: string): ApiError =>
  apiError(409, 'AlreadyExists', `${qualified(ref)} "${name}" already exists`, {
    name,
    group: ref.group,
    kind: ref.resource
  })

export const conflict = (ref: ResourceRef, name: string): ApiError =>
  apiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(ref)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group: ref.group, kind: ref.resource }
  )

/** 422 Invalid: `<Kind>.<group> "<name>" is invalid: <cause>` or `[<cause>, <cause>]`. */
export function invalid(kind: string, group: string, name: string, causes: FieldCause[]): ApiError {
  const texts = causes.map((c) => `${c.field}: ${c.message}`)
  const list = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`
  return apiError(422, 'Invalid', `${kind}.${group} "${name}" is invalid: ${list}`, {
    name,
    group,
    kind,
    causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field }))
  })
}

export const badRequest = (message: string): ApiError => apiError(400, 'BadRequest', message)

export function forbidden(
  ref: ResourceRef,
  name: string,
  user: string,
  verb: string,
  resource: string,
  namespace: string
): ApiError {
  const target = name ? `${qualified(ref)} "${name}"` : qualified(ref)
  // kube-apiserver's forbiddenMessage: a request without a namespace is "at the cluster scope".
  const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope'
  return apiError(
    403,
    'Forbidden',
    `${target} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${ref.group}" ${scope}`,
    { ...(name ? { name } : {}), group: ref.group, kind: ref.resource }
  )
}

export const unauthorized = (): ApiError => apiError(401, 'Unauthorized', 'Unauthorized')

/** kube-apiserver when the aggregated API server is unreachable. */
export const serviceUnavailable = (): ApiError =>
  apiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request', {
    causes: [
      {
        reason: 'UnexpectedServerResponse',
        message: 'error trying to reach service: dial tcp: connect: connection refused'
      }
    ]
  })
