// RBAC of the sandbox API server, as data. The token's user holds the rules of one Role, bound by a
// RoleBinding in some namespaces (default: every namespace), plus the bootstrap ClusterRoles every
// authenticated user has (system:discovery, system:basic-user, system:public-info-viewer).
// Every request is turned into authorization attributes the way kube-apiserver's RequestInfo does
// and checked like the RBAC authorizer; a denial is the real 403 Forbidden Status.
// Facts: docs/how-to/gitops.md (the rules the gate needs), config/rbac/gate-role.yaml (the default
// Role), Kubernetes RBAC rule semantics (apiGroups/resources/verbs/resourceNames, wildcards).
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseAllDocuments } from 'yaml'
import { AGGREGATION_GROUP } from '../../../src/objects/coder-k8s.js'
import {
  bootstrapClusterRoles,
  cutGrant,
  includesOrStar,
  nonResourceAllows,
  resourceMatches,
  ruleAllows
} from './rbac-rules.js'
import type {
  ClusterGrant,
  Decision,
  DenyTarget,
  PolicyRule,
  RequestAttributes,
  RoleDocument
} from './rbac-rules.js'
import { apiError, forbidden } from './status.js'
import type { ApiError } from './status.js'

export { ruleAllows } from './rbac-rules.js'
export type {
  Decision,
  DenyTarget,
  NonResourceAttributes,
  PolicyRule,
  RequestAttributes,
  ResourceAttributes,
  RoleDocument
} from './rbac-rules.js'
export { requestAttributes } from './rbac-request.js'

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
