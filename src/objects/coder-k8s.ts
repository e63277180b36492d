// The Kubernetes objects the gate reads and writes, as coder-k8s defines them.
// Source: coder/coder-k8s api/v1alpha1/codertemplatetest_types.go and api/aggregation/v1alpha1.

export const TEST_GROUP = 'coder.com'
export const TEST_VERSION = 'v1alpha1'
export const TEST_API_VERSION = `${TEST_GROUP}/${TEST_VERSION}`
export const TEST_KIND = 'CoderTemplateTest'
export const TEST_PLURAL = 'codertemplatetests'

export const AGGREGATION_GROUP = 'aggregation.coder.com'
export const AGGREGATION_VERSION = 'v1alpha1'
export const AGGREGATION_API_VERSION = `${AGGREGATION_GROUP}/${AGGREGATION_VERSION}`
export const PROMOTION_KIND = 'CoderTemplateVersionPromotion'

export interface NameValue {
  name: string
  value: string
}

/** The CRD allows exactly one of name, id or active; the gate only ever writes `name`. */
export interface TestVersionSelector {
  name?: string
  id?: string
  active?: boolean
}

export interface CoderTemplateTestSpec {
  controlPlaneRef: { name: string }
  template: string
  version: TestVersionSelector
  parameters?: NameValue[]
  timeoutSeconds?: number
  ttlSecondsAfterFinished?: number
}

/** metav1.Condition. */
export interface Condition {
  type: string
  status: 'True' | 'False' | 'Unknown' | string
  reason?: string
  message?: string
  observedGeneration?: number
  lastTransitionTime?: string
}

/** Every field is optional: the first reconcile writes no status at all. */
export interface CoderTemplateTestStatus {
  observedGeneration?: number
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | string
  reason?: string
  message?: string
  startTime?: string
  completionTime?: string
  templateVersionID?: string
  templateVersionName?: string
  workspaceName?: string
  conditions?: Condition[]
  [field: string]: unknown
}

export interface ObjectMeta {
  name?: string
  namespace?: string
  uid?: string
  resourceVersion?: string
  generation?: number
  creationTimestamp?: string
  deletionTimestamp?: string
  finalizers?: string[]
  labels?: Record<string, string>
  annotations?: Record<string, string>
}

export interface CoderTemplateTest {
  apiVersion: string
  kind: string
  metadata: ObjectMeta
  spec: CoderTemplateTestSpec
  status?: CoderTemplateTestStatus | null
}

/** The answer of the promote subresource. */
export type PromotionResult = 'Promoted' | 'AlreadyActive' | 'WouldPromote'

export interface CoderTemplateVersionPromotion {
  apiVersion?: string
  kind?: string
  metadata?: ObjectMeta
  spec: { versionID: string }
  status?: {
    result?: PromotionResult | string
    previousActiveVersionID?: string
    activeVersionID?: string
  }
}

/** A Kubernetes `Status` object, as every error answer of the API server carries it. */
export interface KubeStatus {
  kind: 'Status'
  apiVersion?: string
  status?: 'Success' | 'Failure'
  message?: string
  reason?: string
  code?: number
  details?: {
    name?: string
    group?: string
    kind?: string
    causes?: { field?: string; message?: string }[]
  }
}
