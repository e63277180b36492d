// The sandbox Kubernetes world: API server subset, CoderTemplateTest controller, aggregated API.
// Usage: const kube = await startKubeSandbox({ coder }); write kube.kubeconfig() to a file for the
// gate or kubectl; script tests with kube.controller.script(name, {...}); inject promote faults
// with kube.faults.promote.push({...}); change RBAC with kube.rbac.deny({...}) / setRules([...]);
// count kube.requests and kube.accessReviews; await kube.close().
export { startKubeSandbox } from './server.js'
export { ExecPlugins } from './exec-plugins.js'
export type { ExecPluginKubeconfig, ExecPluginOptions } from './exec-plugins.js'
export type { AccessReviewRecord, KubeSandbox, KubeSandboxOptions } from './server.js'
export {
  ALLOW_ALL_RULES,
  SandboxRbac,
  defaultGateRolePath,
  loadRole,
  requestAttributes,
  ruleAllows
} from './rbac.js'
export type {
  Decision,
  DenyTarget,
  NonResourceAttributes,
  PolicyRule,
  RequestAttributes,
  ResourceAttributes,
  RoleDocument,
  SandboxRbacOptions
} from './rbac.js'
export {
  STATUS_MESSAGE_LIMIT_BYTES,
  TestController,
  truncateUtf8,
  workspaceNameFor
} from './controller.js'
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
