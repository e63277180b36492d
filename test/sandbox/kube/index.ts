// The sandbox Kubernetes world: API server subset, CoderTemplateTest controller, aggregated API.
// Usage: const kube = await startKubeSandbox({ coder }); write kube.kubeconfig() to a file for the
// gate or kubectl; script tests with kube.controller.script(name, {...}); inject promote faults
// with kube.faults.promote.push({...}); count kube.requests; await kube.close().
export { startKubeSandbox } from './server.js'
export type { KubeSandbox, KubeSandboxOptions } from './server.js'
export { TestController, workspaceNameFor } from './controller.js'
export type {
  ConditionValue,
  ControllerOptions,
  ControllerStep,
  FinalStatusInfo,
  RunningStep,
  TestScript
} from './controller.js'
export { REAL_PROMOTE_TIMING, parseDuration } from './aggregated.js'
export type { PromoteFault, PromoteTiming } from './aggregated.js'
export { FINALIZER, TestStore } from './store.js'
export { ApiError } from './status.js'
export type { StatusBody } from './status.js'
export { defaultCrdPath, loadTestSchema } from './validation.js'
export type { FieldCause, TestSchema } from './validation.js'
