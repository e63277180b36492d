// A request as RBAC sees it: the authorization attributes kube-apiserver's RequestInfo derives
// from the method, the path and the query.
import type { RequestAttributes } from './rbac-rules.js'

const TRUE_VALUES = ['1', 't', 'T', 'true', 'TRUE', 'True'] // Go strconv.ParseBool
const NAMESPACE_SUBRESOURCES = ['status', 'finalize']

/**
 * kube-apiserver's RequestInfo: `/apis/<group>/<version>/[namespaces/<ns>/]<resource>[/<name>[/<sub>]]`
 * (and `/api/<version>/...` for the core group) are resource requests, everything else (discovery
 * such as /apis/<group>/<version>) is a non-resource request. `path` is the decoded URL path.
 */
export function requestAttributes(
  method: string,
  path: string,
  query: URLSearchParams
): RequestAttributes {
  const nonResource = (): RequestAttributes => ({
    resourceRequest: false,
    path,
    verb: method.toLowerCase()
  })
  let parts = path.replace(/^\/+|\/+$/g, '').split('/')
  if (parts.length < 3 || !['api', 'apis'].includes(parts[0])) return nonResource()
  let group = ''
  if (parts[0] === 'apis') {
    if (parts.length < 4) return nonResource()
    group = parts[1]
    parts = parts.slice(2)
  } else parts = parts.slice(1)
  const version = parts[0]
  parts = parts.slice(1)
  const verbs: Record<string, string> = {
    POST: 'create',
    GET: 'get',
    HEAD: 'get',
    PUT: 'update',
    PATCH: 'patch',
    DELETE: 'delete'
  }
  let verb = verbs[method.toUpperCase()] ?? ''
  let namespace = ''
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      namespace = parts[1]
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.includes(parts[2])) parts = parts.slice(2)
    }
  }
  const resource = parts[0] ?? ''
  let name = parts[1] ?? ''
  const subresource = parts[2] ?? ''
  if (name === '' && verb === 'get') {
    verb = TRUE_VALUES.includes(query.get('watch') ?? '') ? 'watch' : 'list'
    // A list or watch pinned to one object by fieldSelector metadata.name=<x> carries that name.
    for (const term of (query.get('fieldSelector') ?? '').split(',')) {
      const pinned = /^\s*metadata\.name\s*==?\s*([^\s/%]+)\s*$/.exec(term)
      if (pinned && !['.', '..'].includes(pinned[1])) name = pinned[1]
    }
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection'
  return {
    resourceRequest: true,
    namespace,
    verb,
    group,
    version,
    resource,
    ...(subresource ? { subresource } : {}),
    ...(name ? { name } : {})
  }
}
