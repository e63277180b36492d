// gitops-refresh: ask Argo CD or Flux to reconcile now instead of at its next poll.
// - Argo CD: the Application annotation `argocd.argoproj.io/refresh: normal`; the application
//   controller refreshes and then removes the annotation (guess from the docs, not verified on a
//   real cluster: https://argo-cd.readthedocs.io/en/stable/user-guide/annotations-and-labels/).
// - Flux: `reconcile.fluxcd.io/requestedAt: <time>` on the Kustomization's spec.sourceRef
//   GitRepository, then on the Kustomization, as `flux reconcile kustomization --with-source` does.
//   Guess from the docs: a controller reconciles when the value differs from
//   status.lastHandledReconcileAt (https://github.com/fluxcd/pkg/blob/main/apis/meta/annotations.go,
//   https://fluxcd.io/flux/cmd/flux_reconcile_kustomization/).
// Read-only checks for the preflight (each object exists, `patch` allowed), and the patches.
import type { KubeConfig } from '@kubernetes/client-node'
import type { RefreshTarget } from '../settings/settings.js'
import { reviewAccess } from './access.js'
import { kubeRequest, statusMessage } from './request.js'

export const FIELD_MANAGER = 'coder-template-gate'
export const ARGO_REFRESH_ANNOTATION = 'argocd.argoproj.io/refresh'
export const FLUX_REQUESTED_AT_ANNOTATION = 'reconcile.fluxcd.io/requestedAt'

export interface EngineObject {
  kind: 'Application' | 'Kustomization' | 'GitRepository'
  group: string
  version: string
  plural: string
  namespace: string
  name: string
}

export const APPLICATION = {
  kind: 'Application',
  group: 'argoproj.io',
  version: 'v1alpha1',
  plural: 'applications'
} as const
export const KUSTOMIZATION = {
  kind: 'Kustomization',
  group: 'kustomize.toolkit.fluxcd.io',
  version: 'v1',
  plural: 'kustomizations'
} as const
export const GIT_REPOSITORY = {
  kind: 'GitRepository',
  group: 'source.toolkit.fluxcd.io',
  version: 'v1',
  plural: 'gitrepositories'
} as const

export function describeObject(object: EngineObject): string {
  return `${object.kind} ${object.namespace}/${object.name} (${object.plural}.${object.group})`
}

function pathOf(object: EngineObject): string {
  const { group, version, namespace, plural, name } = object
  return `/apis/${group}/${version}/namespaces/${encodeURIComponent(namespace)}/${plural}/${encodeURIComponent(name)}`
}

interface Call {
  kc: KubeConfig
  signal?: AbortSignal
  timeoutMs?: number
}

/** The preflight's answer for the targets: the objects to patch in order, and every problem. */
export interface RefreshPlan {
  objects: EngineObject[]
  problems: string[]
  notes: string[]
}

export async function planRefresh(call: Call, targets: RefreshTarget[]): Promise<RefreshPlan> {
  const plans = await Promise.all(targets.map((target) => planOne(call, target)))
  return {
    objects: plans.flatMap((plan) => plan.objects),
    problems: plans.flatMap((plan) => plan.problems),
    notes: plans.flatMap((plan) => plan.notes)
  }
}

async function planOne(call: Call, target: RefreshTarget): Promise<RefreshPlan> {
  const named: EngineObject = {
    ...(target.engine === 'argocd' ? APPLICATION : KUSTOMIZATION),
    namespace: target.namespace,
    name: target.name
  }
  const read = await readObject(call, named)
  if (typeof read === 'string') return { objects: [], problems: [read], notes: [] }
  const plan: RefreshPlan = { objects: [], problems: [], notes: [] }
  if (target.engine === 'flux') {
    const source = sourceOf(read, named)
    if (typeof source === 'string') plan.notes.push(source)
    else {
      const sourceRead = await readObject(call, source)
      if (typeof sourceRead === 'string') plan.problems.push(sourceRead)
      else plan.objects.push(source) // the source first: the Kustomization then sees its new revision
    }
  }
  plan.objects.push(named)
  const denied = await Promise.all(plan.objects.map((object) => patchProblem(call, object)))
  plan.problems.push(...denied.filter((line): line is string => line !== null))
  return plan
}

/** The object, or the problem that names it and the verb. */
async function readObject(
  call: Call,
  object: EngineObject
): Promise<Record<string, unknown> | string> {
  const response = await kubeRequest(call.kc, {
    method: 'GET',
    path: pathOf(object),
    signal: call.signal,
    timeoutMs: call.timeoutMs ?? 30_000
  })
  const what = `gitops-refresh: ${describeObject(object)}`
  if (response.status === 200 && typeof response.body === 'object' && response.body !== null)
    return response.body as Record<string, unknown>
  if (response.status === 404)
    return `${what} does not exist (get answered 404: ${statusMessage(response)}). Check the name in gitops-refresh, and that the ${object.kind} CRD is installed.`
  if (response.status === 403)
    return `${what}: get is denied (${statusMessage(response)}). Grant get and patch on ${object.plural}.${object.group} (the optional rules of config/rbac/gate-role.yaml).`
  return `${what}: get answered ${response.status}: ${statusMessage(response)}.`
}

/** spec.sourceRef of a Kustomization as a GitRepository, or a note why none is nudged. */
function sourceOf(
  kustomization: Record<string, unknown>,
  named: EngineObject
): EngineObject | string {
  const spec = kustomization.spec as
    { sourceRef?: { kind?: unknown; name?: unknown; namespace?: unknown } } | undefined
  const ref = spec?.sourceRef
  const name = typeof ref?.name === 'string' ? ref.name : ''
  if (ref?.kind !== GIT_REPOSITORY.kind || name === '')
    return `gitops-refresh: ${describeObject(named)} has the source ${String(ref?.kind)} "${name}", not a GitRepository: only the Kustomization is asked to reconcile.`
  // sourceRef.namespace defaults to the Kustomization's namespace (Flux API reference).
  const namespace =
    typeof ref.namespace === 'string' && ref.namespace !== '' ? ref.namespace : named.namespace
  return { ...GIT_REPOSITORY, namespace, name }
}

async function patchProblem(call: Call, object: EngineObject): Promise<string | null> {
  const answer = await reviewAccess(
    call.kc,
    {
      namespace: object.namespace,
      group: object.group,
      resource: object.plural,
      verb: 'patch',
      name: object.name
    },
    call
  )
  const what = `gitops-refresh: patch ${object.plural}.${object.group} "${object.name}" in namespace ${object.namespace}`
  if (answer.allowed === true) return null
  if (answer.allowed === false)
    return `${what} is denied${answer.reason ? ` (${answer.reason})` : ''}: it is needed to ask the ${object.kind} to reconcile. Grant it with the optional gitops-refresh rules of config/rbac/gate-role.yaml, or remove the entry from gitops-refresh.`
  return `${what}: cannot tell whether it is allowed (${answer.reason}).`
}

/** The merge patch of one object: its annotation, and nothing else. */
export function refreshPatch(object: EngineObject, now: Date): Record<string, unknown> {
  const annotation =
    object.kind === 'Application'
      ? { [ARGO_REFRESH_ANNOTATION]: 'normal' }
      : { [FLUX_REQUESTED_AT_ANNOTATION]: now.toISOString() }
  return { metadata: { annotations: annotation } }
}

/** One JSON merge patch; throws an Error fit to show when it is refused or fails. */
export async function patchForRefresh(call: Call, object: EngineObject, now: Date): Promise<void> {
  const response = await kubeRequest(call.kc, {
    method: 'PATCH',
    path: pathOf(object),
    query: { fieldManager: FIELD_MANAGER },
    body: refreshPatch(object, now),
    contentType: 'application/merge-patch+json',
    signal: call.signal,
    timeoutMs: call.timeoutMs ?? 10_000
  })
  if (response.status !== 200)
    throw new Error(
      `patching ${describeObject(object)} answered ${response.status}: ${statusMessage(response)}`
    )
}
