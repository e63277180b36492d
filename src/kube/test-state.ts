// keep-tests asks the cluster, before it removes a manifest, whether that test still runs: one GET
// of the CoderTemplateTest (the wait's own verb, so no new RBAC). A test that runs keeps its
// manifest; a read that fails tells nothing, and the manifest stays too (prune.ts, mayRemoveTest).
import type { KubeConfig } from '@kubernetes/client-node'
import type { TestState } from '../gitops/prune.js'
import { type CoderTemplateTest, TEST_API_VERSION, TEST_PLURAL } from '../objects/coder-k8s.js'
import { kubeRequest } from './request.js'

/** Final phases (coder-k8s: status.phase Succeeded or Failed, https://github.com/coder/coder-k8s). */
const FINAL_PHASES = new Set(['Succeeded', 'Failed'])

/** The state of a test as keep-tests judges it. Pure. */
export function testStateOf(test: CoderTemplateTest | null): TestState {
  if (test === null) return 'absent'
  return FINAL_PHASES.has(test.status?.phase ?? '') ? 'final' : 'running'
}

export async function readTestState(
  kc: KubeConfig,
  namespace: string,
  name: string,
  signal: AbortSignal
): Promise<TestState> {
  const path = `/apis/${TEST_API_VERSION}/namespaces/${encodeURIComponent(namespace)}/${TEST_PLURAL}/${encodeURIComponent(name)}`
  try {
    const answer = await kubeRequest(kc, { method: 'GET', path, signal, timeoutMs: 10_000 })
    if (answer.status === 404) return 'absent'
    if (answer.status !== 200) return 'unread'
    return testStateOf(answer.body as CoderTemplateTest)
  } catch (error) {
    if (signal.aborted) throw error
    return 'unread'
  }
}
