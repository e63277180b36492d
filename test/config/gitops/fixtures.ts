// The fixed cases a..n of the health rules (plus two extra cases o, p), with what each tool shows
// for them, as read in Argo CD's and Flux's sources.
import type { ArgoHealth } from './argo-lua.js'
import type { FluxDecidedBy, FluxStatus } from './flux-cel.js'

export interface HealthCase {
  id: string
  title: string
  object: Record<string, unknown>
  /** What the script returns, read as Argo CD reads it. */
  argoScript: ArgoHealth
  /** What the Argo CD v3.0–v3.5.x controller shows (deleting objects skip the script). */
  argoController: ArgoHealth
  flux: { status: FluxStatus; decidedBy: FluxDecidedBy }
}

const WAITING: ArgoHealth = { status: 'Progressing', message: 'Waiting for the controller' }
const HEALTHY_DEFAULT_MESSAGE: ArgoHealth = {
  status: 'Healthy',
  message: 'Waiting for the controller'
}

function ready(status: 'True' | 'False'): Record<string, unknown> {
  return {
    type: 'Ready',
    status,
    reason: status === 'True' ? 'Succeeded' : 'NotReady',
    message: 'fixture condition',
    lastTransitionTime: '2026-01-01T00:00:00Z'
  }
}

/** The base object of the cases: generation 3 and a spec; `status` and metadata extras per case. */
export function testObject(
  status: Record<string, unknown> | null | undefined,
  metadataExtras: Record<string, unknown> = {}
): Record<string, unknown> {
  const object: Record<string, unknown> = {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTest',
    metadata: {
      name: 'docker-v2',
      namespace: 'coder-tests',
      uid: '2b8f6c1e-4d7a-4c55-9d3b-0f1e2a3b4c5d',
      generation: 3,
      ...metadataExtras
    },
    spec: {
      controlPlaneRef: { name: 'coder' },
      template: 'acme.docker',
      version: { name: 'v2' },
      timeoutSeconds: 900
    }
  }
  if (status !== undefined) object.status = status
  return object
}

export const HEALTH_CASES: HealthCase[] = [
  {
    id: 'a',
    title: 'no status key',
    object: testObject(undefined),
    argoScript: WAITING,
    argoController: WAITING,
    flux: { status: 'Unknown', decidedBy: 'inProgress' }
  },
  {
    id: 'b',
    title: 'stale observedGeneration, Succeeded, Ready=True',
    object: testObject({ observedGeneration: 2, phase: 'Succeeded', conditions: [ready('True')] }),
    argoScript: WAITING,
    argoController: WAITING,
    flux: { status: 'InProgress', decidedBy: 'generation' }
  },
  {
    id: 'c',
    title: 'Pending',
    object: testObject({ observedGeneration: 3, phase: 'Pending' }),
    argoScript: WAITING,
    argoController: WAITING,
    flux: { status: 'InProgress', decidedBy: 'inProgress' }
  },
  {
    id: 'd',
    title: 'Running with reason and message',
    object: testObject({
      observedGeneration: 3,
      phase: 'Running',
      reason: 'Provisioning',
      message: 'workspace build 2/5'
    }),
    argoScript: { status: 'Progressing', message: 'Provisioning: workspace build 2/5' },
    argoController: { status: 'Progressing', message: 'Provisioning: workspace build 2/5' },
    flux: { status: 'InProgress', decidedBy: 'inProgress' }
  },
  {
    id: 'e',
    title: 'Succeeded, Ready=True',
    object: testObject({ observedGeneration: 3, phase: 'Succeeded', conditions: [ready('True')] }),
    argoScript: HEALTHY_DEFAULT_MESSAGE,
    argoController: HEALTHY_DEFAULT_MESSAGE,
    flux: { status: 'Current', decidedBy: 'current' }
  },
  {
    id: 'f',
    title: 'Succeeded, Ready=False',
    object: testObject({ observedGeneration: 3, phase: 'Succeeded', conditions: [ready('False')] }),
    argoScript: WAITING,
    argoController: WAITING,
    flux: { status: 'InProgress', decidedBy: 'nothing-true' }
  },
  {
    id: 'g',
    title: 'Succeeded without conditions',
    object: testObject({ observedGeneration: 3, phase: 'Succeeded' }),
    argoScript: WAITING,
    argoController: WAITING,
    // status.conditions.exists(...) errors on the missing key.
    flux: { status: 'Unknown', decidedBy: 'current' }
  },
  {
    id: 'h',
    title: 'Failed with reason and message',
    object: testObject({
      observedGeneration: 3,
      phase: 'Failed',
      reason: 'BuildFailed',
      message: 'terraform apply exited 1'
    }),
    argoScript: { status: 'Degraded', message: 'BuildFailed: terraform apply exited 1' },
    argoController: { status: 'Degraded', message: 'BuildFailed: terraform apply exited 1' },
    flux: { status: 'Failed', decidedBy: 'failed' }
  },
  {
    id: 'i',
    title: 'Succeeded, Ready=True, being deleted',
    object: testObject(
      { observedGeneration: 3, phase: 'Succeeded', conditions: [ready('True')] },
      { deletionTimestamp: '2026-01-01T00:10:00Z', finalizers: ['coder.com/cleanup'] }
    ),
    // deletionMessage is dropped; the script also set message.
    argoScript: { status: 'Progressing', message: 'Deleting the test workspace' },
    // The script does not run for a deleting object.
    argoController: { status: 'Progressing', message: 'Pending deletion' },
    // Flux ignores deletion.
    flux: { status: 'Current', decidedBy: 'current' }
  },
  {
    id: 'j',
    title: 'status holds only observedGeneration',
    object: testObject({ observedGeneration: 3 }),
    argoScript: WAITING,
    argoController: WAITING,
    flux: { status: 'InProgress', decidedBy: 'inProgress' }
  },
  {
    id: 'k',
    title: 'generation 7, observedGeneration 7, Succeeded, Ready=True',
    object: testObject(
      { observedGeneration: 7, phase: 'Succeeded', conditions: [ready('True')] },
      { generation: 7 }
    ),
    argoScript: HEALTHY_DEFAULT_MESSAGE,
    argoController: HEALTHY_DEFAULT_MESSAGE,
    flux: { status: 'Current', decidedBy: 'current' }
  },
  {
    id: 'l',
    title: 'Succeeded with extra conditions, one without status',
    object: testObject({
      observedGeneration: 3,
      phase: 'Succeeded',
      conditions: [
        { type: 'Synced', status: 'False' },
        { type: 'WorkspaceBuilt' },
        ready('True'),
        { type: 'Stalled', status: 'Unknown' }
      ]
    }),
    argoScript: HEALTHY_DEFAULT_MESSAGE,
    argoController: HEALTHY_DEFAULT_MESSAGE,
    flux: { status: 'Current', decidedBy: 'current' }
  },
  {
    id: 'm',
    title: 'status: null',
    object: testObject(null),
    argoScript: WAITING,
    argoController: WAITING,
    flux: { status: 'InProgress', decidedBy: 'inProgress' }
  },
  {
    id: 'n',
    title: 'phase outside the CRD enum',
    object: testObject({ observedGeneration: 3, phase: 'Deleting' }),
    argoScript: WAITING,
    argoController: WAITING,
    flux: { status: 'InProgress', decidedBy: 'nothing-true' }
  },
  // Extra cases o, p: without them a one-character change of a rule
  // (`and` -> `or` in the Lua message check, `||` -> `&&` in inProgress) goes unnoticed.
  {
    id: 'o',
    title: 'extra: reason without message',
    object: testObject({ observedGeneration: 3, phase: 'Pending', reason: 'Initializing' }),
    argoScript: WAITING,
    argoController: WAITING,
    flux: { status: 'InProgress', decidedBy: 'inProgress' }
  },
  {
    id: 'p',
    title: 'extra: Succeeded, Ready=True, no observedGeneration',
    object: testObject({ phase: 'Succeeded', conditions: [ready('True')] }),
    argoScript: WAITING,
    argoController: WAITING,
    flux: { status: 'InProgress', decidedBy: 'inProgress' }
  }
]
