// RBAC rules as data: the shapes of a Role's rules and of a request's attributes, the matching of
// one rule against a request (RBAC's RuleAllows), the bootstrap ClusterRoles every authenticated
// user has, and the cutting of one grant out of a list of rules (the sandbox's deny knob).
// Facts: Kubernetes RBAC rule semantics (apiGroups/resources/verbs/resourceNames, wildcards).

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

export interface ClusterGrant {
  name: string
  rules: PolicyRule[]
}

// Kubernetes bootstrap policy: what every authenticated user may do without any Role
// (ClusterRoles system:discovery, system:basic-user and system:public-info-viewer, each bound to
// Group system:authenticated by a ClusterRoleBinding of the same name).
export function bootstrapClusterRoles(): ClusterGrant[] {
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

export const includesOrStar = (list: string[] | undefined, value: string): boolean =>
  (list ?? []).some((item) => item === '*' || item === value)

export function resourceMatches(rule: PolicyRule, resource: string, subresource = ''): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource
  return (rule.resources ?? []).some(
    (r) => r === '*' || r === combined || (subresource !== '' && r === `*/${subresource}`)
  )
}

export function nameMatches(rule: PolicyRule, name = ''): boolean {
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

export function nonResourceAllows(rule: PolicyRule, attributes: NonResourceAttributes): boolean {
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

/** Splits `resource/subresource` given either way. */
export function targetResource(target: DenyTarget): { resource: string; subresource: string } {
  if (target.subresource) return { resource: target.resource, subresource: target.subresource }
  const [resource, subresource = ''] = target.resource.split('/')
  return { resource, subresource }
}

/** The rules without the grant of `target` (other groups, resources, verbs and names kept). */
export function cutGrant(rules: PolicyRule[], target: DenyTarget): PolicyRule[] {
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
