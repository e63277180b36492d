// The preflight's Kubernetes access check: one SelfSubjectAccessReview per verb the run needs
// (authorization.k8s.io/v1; any authenticated identity may create one). A denied verb names the
// rule of config/rbac/gate-role.yaml that grants it; test/unit/kube/kube-access.test.ts keeps the two
// equal.
import type { KubeConfig } from '@kubernetes/client-node'
import { AGGREGATION_GROUP, TEST_GROUP, TEST_PLURAL } from '../objects/coder-k8s.js'
import { kubeRequest, statusMessage } from './request.js'

export interface AccessNeed {
  group: string
  resource: string
  subresource?: string
  verb: string
  /** Namespaced: the namespace input. */
  namespaced: true
  name?: string
  /** What the run does with it, for the message. */
  purpose: string
  /** The rule of config/rbac/gate-role.yaml that grants it (its apiGroups and resources). */
  rule: { apiGroups: string[]; resources: string[] }
}

export const TEST_RULE = { apiGroups: [TEST_GROUP], resources: [TEST_PLURAL] }
export const PROMOTE_RULE = {
  apiGroups: [AGGREGATION_GROUP],
  resources: ['codertemplates/promote']
}
export const READ_RULE = {
  apiGroups: [AGGREGATION_GROUP],
  resources: ['codertemplates', 'codertemplateversions']
}

/** The verbs a run needs; promote only when it may promote. `template` is <org>.<template>. */
export function accessNeeds(template: string, promote: boolean): AccessNeed[] {
  const test = (verb: string, purpose: string): AccessNeed => ({
    group: TEST_GROUP,
    resource: TEST_PLURAL,
    verb,
    namespaced: true,
    purpose,
    rule: TEST_RULE
  })
  const needs = [
    test('get', 'read the test'),
    test('list', 'find the test before it exists'),
    test('watch', 'wait for the test')
  ]
  // Both aggregated verbs serve the promote step only: a run that never promotes (where the
  // aggregated API need not even be served) must not fail for lacking them.
  if (promote)
    needs.push(
      {
        group: AGGREGATION_GROUP,
        resource: 'codertemplates',
        verb: 'get',
        namespaced: true,
        name: template,
        purpose: 'read the template after a promote answer',
        rule: READ_RULE
      },
      {
        group: AGGREGATION_GROUP,
        resource: 'codertemplates',
        subresource: 'promote',
        verb: 'create',
        namespaced: true,
        name: template,
        purpose: 'promote the tested version',
        rule: PROMOTE_RULE
      }
    )
  return needs
}

export interface AccessInput {
  kc: KubeConfig
  namespace: string
  /** <organization>.<template> */
  template: string
  promote: boolean
  signal?: AbortSignal
  timeoutMs?: number
}

export interface AccessVerdict {
  /** One line per denied verb, with the rule that grants it. */
  denied: string[]
  /** One line per review that gave no answer (the run goes on). */
  unknown: string[]
}

export async function checkAccess(input: AccessInput): Promise<AccessVerdict> {
  const needs = accessNeeds(input.template, input.promote)
  const answers = await Promise.all(needs.map((need) => review(input, need)))
  const verdict: AccessVerdict = { denied: [], unknown: [] }
  answers.forEach((answer, index) => {
    const need = needs[index]!
    const what = describeNeed(need, input.namespace)
    if (answer.allowed === true) return
    if (answer.allowed === false)
      verdict.denied.push(
        `${what} is denied${answer.reason ? ` (${answer.reason})` : ''}: it is needed to ${need.purpose}. Grant it with the rule for ${need.rule.resources.join(', ')} in config/rbac/gate-role.yaml.`
      )
    else verdict.unknown.push(`${what} is allowed (${answer.reason})`)
  })
  return verdict
}

export function describeNeed(need: AccessNeed, namespace: string): string {
  const resource = need.subresource ? `${need.resource}/${need.subresource}` : need.resource
  const name = need.name ? ` "${need.name}"` : ''
  return `${need.verb} ${resource}.${need.group}${name} in namespace ${namespace}`
}

export interface Review {
  /** null: no answer that says. */
  allowed: boolean | null
  reason: string
}

function review(input: AccessInput, need: AccessNeed): Promise<Review> {
  return reviewAccess(
    input.kc,
    {
      namespace: input.namespace,
      group: need.group,
      resource: need.resource,
      ...(need.subresource ? { subresource: need.subresource } : {}),
      verb: need.verb,
      ...(need.name ? { name: need.name } : {})
    },
    input
  )
}

export interface ResourceAttributes {
  namespace: string
  group: string
  resource: string
  subresource?: string
  verb: string
  name?: string
}

/** One SelfSubjectAccessReview; allowed null when no answer says. */
export async function reviewAccess(
  kc: KubeConfig,
  resourceAttributes: ResourceAttributes,
  call: { signal?: AbortSignal; timeoutMs?: number }
): Promise<Review> {
  const response = await kubeRequest(kc, {
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes }
    },
    signal: call.signal,
    timeoutMs: call.timeoutMs ?? 30000
  })
  if (response.status !== 201 && response.status !== 200)
    return {
      allowed: null,
      reason: `the review answered ${response.status}: ${statusMessage(response)}`
    }
  const status = (
    response.body as { status?: { allowed?: unknown; denied?: unknown; reason?: unknown } }
  )?.status
  if (typeof status?.allowed !== 'boolean')
    return { allowed: null, reason: 'the review answered without status.allowed' }
  const reason = typeof status.reason === 'string' ? status.reason : ''
  return { allowed: status.allowed, reason }
}
