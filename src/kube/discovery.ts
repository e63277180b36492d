// Is coder-k8s served in this cluster: the CRD, and `codertemplates/promote` in aggregated discovery?
// Checked at runtime, as a coder-k8s release may not serve the CRD or run its controller (guess).
import type { KubeConfig } from '@kubernetes/client-node'
import { AGGREGATION_API_VERSION, TEST_API_VERSION, TEST_PLURAL } from '../objects/coder-k8s.js'
import { kubeRequest, serverOf, statusMessage } from './request.js'

export interface DiscoveryOptions {
  signal?: AbortSignal
  /** Also require the aggregated API with `codertemplates/promote` (needed to promote). */
  needAggregation: boolean
  /** Per-request client timeout; default 30000. */
  timeoutMs?: number
}

const PROMOTE_RESOURCE = 'codertemplates/promote'

export async function assertCoderK8sServed(
  kc: KubeConfig,
  options: DiscoveryOptions
): Promise<void> {
  await assertResourceServed(
    kc,
    options,
    TEST_API_VERSION,
    TEST_PLURAL,
    'the CoderTemplateTest CRD'
  )
  if (options.needAggregation) {
    await assertResourceServed(
      kc,
      options,
      AGGREGATION_API_VERSION,
      PROMOTE_RESOURCE,
      'the coder-k8s aggregated API server (APIService v1alpha1.aggregation.coder.com)'
    )
  }
}

interface APIResourceList {
  kind?: string
  resources?: { name?: string }[]
}

async function assertResourceServed(
  kc: KubeConfig,
  options: DiscoveryOptions,
  groupVersion: string,
  resource: string,
  servedBy: string
): Promise<void> {
  const server = serverOf(kc)
  const path = `/apis/${groupVersion}`
  const response = await kubeRequest(kc, {
    method: 'GET',
    path,
    signal: options.signal,
    timeoutMs: options.timeoutMs ?? 30000
  })
  const where = `GET ${path} on ${server}`
  switch (response.status) {
    case 200:
      break
    case 404:
      throw new Error(
        `coder-k8s is not installed in this cluster, or ${groupVersion} is not served (${where} answered 404): install ${servedBy}`
      )
    case 401:
      throw new Error(
        `the Kubernetes API server rejected the credentials (${where} answered 401 Unauthorized): check the kubeconfig's user`
      )
    case 403:
      throw new Error(
        `the kubeconfig's user may not read API discovery (${where} answered 403 Forbidden: ${statusMessage(response)})`
      )
    case 503:
      // kube-apiserver answers 503 when an aggregated APIService is unavailable.
      throw new Error(
        `${groupVersion} is registered but unavailable (${where} answered 503: ${statusMessage(response)}): check ${servedBy}`
      )
    default:
      throw new Error(`${where} answered HTTP ${response.status}: ${statusMessage(response)}`)
  }
  const list = response.body as APIResourceList | undefined
  const names = Array.isArray(list?.resources) ? list.resources.map((r) => r.name) : []
  if (!names.includes(resource)) {
    throw new Error(
      `${groupVersion} is served but does not list "${resource}" (${where}): the installed coder-k8s is too old or incomplete; need ${servedBy}`
    )
  }
}
