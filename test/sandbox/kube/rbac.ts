// RBAC of the sandbox API server, as data. The token's user holds the rules of one Role, bound by a
// RoleBinding in some namespaces (default: every namespace), plus the bootstrap ClusterRoles every
// authenticated user has (system:discovery, system:basic-user, system:public-info-viewer).
// Every request is turned into authorization attributes the way kube-apiserver's RequestInfo does
// and checked like the RBAC authorizer; a denial is the real 403 Forbidden Status.
// Facts: coder-k8s-api.md §3 (the rules the gate needs), config/rbac/gate-role.yaml (the default
// Role), Kubernetes RBAC rule semantics (apiGroups/resources/verbs/resourceNames, wildcards).
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseAllDocuments } from 'yaml'
import { AGGREGATION_GROUP } from '../../../src/api.js'
import { apiError, forbidden } from './status.js'
import type { ApiError } from './status.js'

export interface PolicyRule {
  apiGroups?: string[]
  // `resource` or `resource/subresource`; `*` and `*/subresource` match as in RBAC.
  resources?: string[]
  verbs: string[]
  /** Empty or absent: every name. A list/create request has no name, so a named rule never grants it. */
  resourceNames?: string[]
  /** Only honoured in the bootstrap ClusterRoles (a Role cannot grant non-resource URLs). */
  nonResourceURLs?: string[]
}

export interface ResourceAttributes {
  /** '' = cluster scope (e.g. a list across all namespaces). */
  namespace: string
  verb: string
  group: string
  version?: string
  resource: string
  subresource?: string
  name?: string
}

export interface NonResourceAttributes {
  path: string
  verb: string
}

export type RequestAttributes =
  | ({ resourceRequest: true } & ResourceAttributes)
  | ({ resourceRequest: false } & NonResourceAttributes)

export interface Decision {
  allowed: boolean
  /** The RBAC authorizer's reason for an allow; '' for no opinion (a denial). */
  reason: string
}

/** A deny target: one verb on one resource (optionally one subresource or one name). */
export interface DenyTarget {
  verb: string
  group: string
  resource: string
  subresource?: string
  name?: string
}

export interface RoleDocument {
  roleName: string
  namespace: string
  bindingName: string
  rules: PolicyRule[]
}

const thisDir = dirname(fileURLToPath(import.meta.url))
/** The least-privilege Role the project ships (never changed by the sandbox). */
export const defaultGateRolePath = resolve(thisDir, '../../../config/rbac/gate-role.yaml')

/** Every verb on everything: for tests that play Argo CD / an admin and write objects. */
export const ALLOW_ALL_RULES: PolicyRule[] = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]

const PROMOTE = 'codertemplates/promote'

/** Reads the first Role (and the RoleBinding's name) of a YAML file such as gate-role.yaml. */
export function loadRole(path: string = defaultGateRolePath): RoleDocument {
  const docs = parseAllDocuments(readFileSync(path, 'utf8')).map(
    (d) =>
      d.toJS() as {
        kind?: string
        metadata?: { name?: string; namespace?: string }
        rules?: PolicyRule[]
      } | null
  )
  const role = docs.find((d) => d?.kind === 'Role')
  if (!role) throw new Error(`sandbox rbac: no Role in ${path}`)
  const binding = docs.find((d) => d?.kind === 'RoleBinding')
  return {
    roleName: role.metadata?.name ?? 'role',
    namespace: role.metadata?.namespace ?? '',
    bindingName: binding?.metadata?.name ?? role.metadata?.name ?? 'binding',
    rules: structuredClone(role.rules ?? [])
  }
}

interface ClusterGrant {
  name: string
  rules: PolicyRule[]
}

// Kubernetes bootstrap policy: what every authenticated user may do without any Role
// (ClusterRoles system:discovery, system:basic-user and system:public-info-viewer, each bound to
// Group system:authenticated by a ClusterRoleBinding of the same name).
function bootstrapClusterRoles(): ClusterGrant[] {
  return [
    {
      name: 'system:discovery',
      rules: [
        {
          verbs: ['get'],
          nonResourceURLs: [
            '/api',
            '/api/*',
            '/apis',
            '/apis/*',
            '/healthz',
            '/livez',
            '/openapi',
            '/openapi/*',
            '/readyz',
            '/version',
            '/version/'
          ]
        }
      ]
    },
    {
      name: 'system:basic-user',
      rules: [
        {
          apiGroups: ['authorization.k8s.io'],
          resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
          verbs: ['create']
        },
        {
          apiGroups: ['authentication.k8s.io'],
          resources: ['selfsubjectreviews'],
          verbs: ['create']
        }
      ]
    },
    {
      name: 'system:public-info-viewer',
      rules: [
        {
          verbs: ['get'],
          nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/']
        }
      ]
    }
  ]
}

const includesOrStar = (list: string[] | undefined, value: string): boolean =>
  (list ?? []).some((item) => item === '*' || item === value)

function resourceMatches(rule: PolicyRule, resource: string, subresource = ''): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource
  return (rule.resources ?? []).some(
    (r) => r === '*' || r === combined || (subresource !== '' && r === `*/${subresource}`)
  )
}

function nameMatches(rule: PolicyRule, name = ''): boolean {
  return !rule.resourceNames?.length || rule.resourceNames.includes(name)
}

/** RBAC's RuleAllows for a resource request. */
export function ruleAllows(rule: PolicyRule, attributes: ResourceAttributes): boolean {
  return (
    includesOrStar(rule.verbs, attributes.verb) &&
    includesOrStar(rule.apiGroups, attributes.group) &&
    resourceMatches(rule, attributes.resource, attributes.subresource) &&
    nameMatches(rule, attributes.name)
  )
}

function nonResourceAllows(rule: PolicyRule, attributes: NonResourceAttributes): boolean {
  return (
    includesOrStar(rule.verbs, attributes.verb) &&
    (rule.nonResourceURLs ?? []).some(
      (url) =>
        url === '*' ||
        url === attributes.path ||
        (url.endsWith('*') && attributes.path.startsWith(url.slice(0, -1)))
    )
  )
}

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

export interface SandboxRbacOptions {
  /** The user name of the token (Forbidden messages, SSAR reasons). */
  user: string
  /** The Role's rules (default: the Role of `roleFile`). */
  rules?: PolicyRule[]
  /**
   * Namespaces with a RoleBinding of the Role to the user. null (default) = bound everywhere, the
   * cluster scope included, as a ClusterRoleBinding would, so tests may use any namespace; the
   * shipped file binds it in its own namespace only (pass [loadRole().namespace] for that).
   */
  namespaces?: string[] | null
  /** Role file (default config/rbac/gate-role.yaml): names and default rules. */
  roleFile?: string
}

/** The authorizer plus the knobs a test turns: replace rules, deny a verb, bind namespaces. */
export class SandboxRbac {
  /** The Role's rules (mutable; setRules/deny/allow change it). */
  rules: PolicyRule[]
  /** Namespaces where the Role is bound; null = everywhere (the cluster scope included). */
  namespaces: string[] | null
  readonly user: string
  readonly roleName: string
  readonly bindingName: string
  private readonly clusterRoles: ClusterGrant[] = bootstrapClusterRoles()
  private readonly initialRules: PolicyRule[]
  private readonly initialNamespaces: string[] | null

  constructor(options: SandboxRbacOptions) {
    const role = loadRole(options.roleFile)
    this.user = options.user
    this.roleName = role.roleName
    this.bindingName = role.bindingName
    this.initialRules = structuredClone(options.rules ?? role.rules)
    this.initialNamespaces = options.namespaces === undefined ? null : options.namespaces
    this.rules = structuredClone(this.initialRules)
    this.namespaces = this.initialNamespaces
  }

  /** Replaces the Role's rules. */
  setRules(rules: PolicyRule[]): void {
    this.rules = structuredClone(rules)
  }

  /** Adds a rule to the Role. */
  allow(rule: PolicyRule): void {
    this.rules.push(structuredClone(rule))
  }

  /** Back to the rules and namespaces the sandbox started with. */
  reset(): void {
    this.rules = structuredClone(this.initialRules)
    this.namespaces = this.initialNamespaces
    const fresh = bootstrapClusterRoles()
    this.clusterRoles.splice(0, this.clusterRoles.length, ...fresh)
  }

  /**
   * Takes one verb away (RBAC has no deny rules, so the grant is cut out of every rule, the
   * bootstrap ClusterRoles included). With `name`, only that name loses the verb; that needs a
   * rule that lists resourceNames. Wildcard rules cannot be cut: replace them with setRules.
   */
  deny(target: DenyTarget): void {
    this.rules = cutGrant(this.rules, target)
    for (const role of this.clusterRoles) role.rules = cutGrant(role.rules, target)
  }

  authorize(attributes: RequestAttributes): Decision {
    if (!attributes.resourceRequest) {
      for (const role of this.clusterRoles)
        if (role.rules.some((rule) => nonResourceAllows(rule, attributes)))
          return { allowed: true, reason: clusterReason(role.name) }
      return { allowed: false, reason: '' }
    }
    // ClusterRoleBindings first, then the RoleBindings of the request's namespace (RBAC's order).
    for (const role of this.clusterRoles)
      if (role.rules.some((rule) => !rule.nonResourceURLs && ruleAllows(rule, attributes)))
        return { allowed: true, reason: clusterReason(role.name) }
    const namespaced = attributes.namespace !== ''
    const bound =
      this.namespaces === null || (namespaced && this.namespaces.includes(attributes.namespace))
    if (!bound || !this.rules.some((rule) => !rule.nonResourceURLs && ruleAllows(rule, attributes)))
      return { allowed: false, reason: '' }
    // guess: the texts of RBAC's binding describers, recalled from plugin/pkg/auth/authorizer/rbac
    if (!namespaced)
      return {
        allowed: true,
        reason: `RBAC: allowed by ClusterRoleBinding "${this.bindingName}" of ClusterRole "${this.roleName}" to User "${this.user}"`
      }
    return {
      allowed: true,
      reason: `RBAC: allowed by RoleBinding "${this.bindingName}/${attributes.namespace}" of Role "${this.roleName}" to User "${this.user}"`
    }
  }

  /** The 403 kube-apiserver sends for a denied request. */
  forbidden(attributes: RequestAttributes): ApiError {
    if (!attributes.resourceRequest)
      return apiError(
        403,
        'Forbidden',
        `forbidden: User "${this.user}" cannot ${attributes.verb} path "${attributes.path}"`,
        {}
      )
    return forbidden(
      { group: attributes.group, resource: attributes.resource },
      attributes.name ?? '',
      this.user,
      attributes.verb,
      attributes.subresource
        ? `${attributes.resource}/${attributes.subresource}`
        : attributes.resource,
      attributes.namespace
    )
  }

  /** Template names the user may promote; null = every name. */
  get promoteResourceNames(): string[] | null {
    const grants = this.rules.filter(
      (rule) =>
        includesOrStar(rule.verbs, 'create') &&
        includesOrStar(rule.apiGroups, AGGREGATION_GROUP) &&
        resourceMatches(rule, 'codertemplates', 'promote')
    )
    if (grants.some((rule) => !rule.resourceNames?.length)) return null
    return [...new Set(grants.flatMap((rule) => rule.resourceNames ?? []))]
  }

  /** Rewrites the promote grant: null = every name, [] = none, else these names only. */
  set promoteResourceNames(names: string[] | null) {
    this.rules = cutGrant(this.rules, {
      verb: 'create',
      group: AGGREGATION_GROUP,
      resource: PROMOTE
    })
    if (names === null)
      this.rules.push({ apiGroups: [AGGREGATION_GROUP], resources: [PROMOTE], verbs: ['create'] })
    else if (names.length > 0)
      this.rules.push({
        apiGroups: [AGGREGATION_GROUP],
        resources: [PROMOTE],
        resourceNames: [...names],
        verbs: ['create']
      })
  }
}

// guess: the text of RBAC's clusterRoleBindingDescriber, recalled from plugin/pkg/auth/authorizer/rbac
const clusterReason = (name: string): string =>
  `RBAC: allowed by ClusterRoleBinding "${name}" of ClusterRole "${name}" to Group "system:authenticated"`

/** Splits `resource/subresource` given either way. */
function targetResource(target: DenyTarget): { resource: string; subresource: string } {
  if (target.subresource) return { resource: target.resource, subresource: target.subresource }
  const [resource, subresource = ''] = target.resource.split('/')
  return { resource, subresource }
}

/** The rules without the grant of `target` (other groups, resources, verbs and names kept). */
function cutGrant(rules: PolicyRule[], target: DenyTarget): PolicyRule[] {
  const { resource, subresource } = targetResource(target)
  const combined = subresource ? `${resource}/${subresource}` : resource
  const out: PolicyRule[] = []
  for (const rule of rules) {
    const hit =
      !rule.nonResourceURLs &&
      includesOrStar(rule.verbs, target.verb) &&
      includesOrStar(rule.apiGroups, target.group) &&
      resourceMatches(rule, resource, subresource) &&
      (target.name === undefined || nameMatches(rule, target.name))
    if (!hit) {
      out.push(rule)
      continue
    }
    const wildcard =
      rule.verbs.includes('*') ||
      (rule.apiGroups ?? []).includes('*') ||
      (rule.resources ?? []).some((r) => r === '*' || r.startsWith('*/'))
    if (wildcard)
      throw new Error(
        `sandbox rbac.deny: cannot cut ${target.verb} ${combined} out of a wildcard rule ${JSON.stringify(rule)}; use rbac.setRules`
      )
    if (target.name !== undefined && !rule.resourceNames?.length)
      throw new Error(
        `sandbox rbac.deny: the rule ${JSON.stringify(rule)} grants ${target.verb} ${combined} for every name, and RBAC cannot exclude one name; use rbac.setRules`
      )
    const otherGroups = (rule.apiGroups ?? []).filter((g) => g !== target.group)
    if (otherGroups.length) out.push({ ...rule, apiGroups: otherGroups })
    const otherResources = (rule.resources ?? []).filter((r) => r !== combined)
    if (otherResources.length)
      out.push({ ...rule, apiGroups: [target.group], resources: otherResources })
    const same = { ...rule, apiGroups: [target.group], resources: [combined] }
    const otherVerbs = rule.verbs.filter((v) => v !== target.verb)
    if (otherVerbs.length) out.push({ ...same, verbs: otherVerbs })
    if (target.name !== undefined) {
      const otherNames = (rule.resourceNames ?? []).filter((n) => n !== target.name)
      if (otherNames.length) out.push({ ...same, verbs: [target.verb], resourceNames: otherNames })
    }
  }
  return out
}
