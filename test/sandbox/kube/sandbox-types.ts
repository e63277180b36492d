// The options and the handle of the Kubernetes sandbox (server.ts starts it).
import type { EventEmitter } from 'node:events'
import type { CoderBackend, RecordedRequest } from '../contracts.js'
import type { AggregatedApi, PromoteFault, PromoteTiming } from './aggregated.js'
import type { ControllerOptions, TestController } from './controller.js'
import type { Decision, RequestAttributes, SandboxRbac, SandboxRbacOptions } from './rbac.js'
import type { TestStore } from './store.js'
import type { EngineObjects } from './engine-objects.js'
import type { TestSchema } from './validation.js'

export interface KubeSandboxOptions {
  coder: CoderBackend
  /** Bearer token clients must send (default: random). */
  token?: string
  /** Leave a group out of discovery and routing (coder-k8s not installed). */
  serveTestGroup?: boolean
  serveAggregationGroup?: boolean
  /** Watch events kept for resuming watches; older resourceVersions get 410 Gone. */
  eventHistoryLimit?: number
  /**
   * Interval of BOOKMARK events on watches that allow them (real API server: about 1 min); 0 sends
   * none (Kubernetes API concepts: clients must not assume bookmarks at any interval).
   */
  bookmarkIntervalMs?: number
  /**
   * Milliseconds of one second of a watch's `timeoutSeconds` (default 1000): a bench scales time
   * with it. guess: the real server also caps watches near its --min-request-timeout (1800 s,
   * randomised); see maxWatchSeconds.
   */
  watchSecondMs?: number
  /** The server ends every watch after at most this many seconds (default: as the client asks). */
  maxWatchSeconds?: number
  /** Controller scripting; `false` runs no controller (objects never get a status). */
  controller?: ControllerOptions | false
  /**
   * RBAC of the token's user: the Role's rules (default: the Role of config/rbac/gate-role.yaml)
   * and the namespaces it is bound in (default: every namespace). See rbac.ts.
   */
  rbac?: Omit<SandboxRbacOptions, 'user'>
  /**
   * Rewrites the Role's promote grant: promote allowed only for these template names (null: any
   * name). Unset: as the Role says (gate-role.yaml: acme.docker).
   */
  promoteResourceNames?: string[] | null
  /** The token's user name (Forbidden messages, SSAR reasons; default sandbox-user). */
  user?: string
  /** Promote time budgets (default: the real 34 s / 10 s / 5 s). */
  promoteTiming?: Partial<PromoteTiming>
  /** CRD file path; null forces the hand-written schema (default: the real CRD in shared/). */
  crdPath?: string | null
  /** First resourceVersion (default 1000). */
  startResourceVersion?: number
  /**
   * Serve HTTPS with a self-signed certificate (made with the `openssl` CLI, cached per process);
   * the kubeconfig carries it as certificate-authority-data. Default true: kubectl sends bearer
   * tokens only over HTTPS, and @kubernetes/client-node 2.x refuses plain HTTP unless the
   * kubeconfig sets insecure-skip-tls-verify (which the plain-HTTP kubeconfig then does).
   */
  tls?: boolean
}

export interface KubeSandbox {
  url: string
  /** PEM of the self-signed server certificate (tls only). */
  caCertificate: string | null
  token: string
  schema: TestSchema
  store: TestStore
  /** Argo CD and Flux objects for gitops-refresh (engine-objects.ts). */
  engines: EngineObjects
  /** null when started with `controller: false`. */
  controller: TestController | null
  aggregated: AggregatedApi
  faults: { promote: PromoteFault[] }
  /** The authorizer of every request: rules, namespaces, deny/allow/setRules/reset. */
  rbac: SandboxRbac
  /**
   * The resourceNames of the promote grant (null: any name). Reading derives it from
   * rbac.rules; assigning rewrites the grant there.
   */
  promoteResourceNames: string[] | null
  /** Every SelfSubjectAccessReview answered, in order. */
  accessReviews: AccessReviewRecord[]
  requests: RecordedRequest[]
  /** `request` (RecordedRequest), `final-status` (FinalStatusInfo), `first-promote` ({ at }). */
  events: EventEmitter
  firstPromoteAt: number | null
  kubeconfig(options?: { context?: string; namespace?: string }): string
  /** Fault: destroys the connection of every open watch mid-stream; returns how many. */
  dropWatches(): number
  close(): Promise<void>
}

export interface AccessReviewRecord {
  at: number
  attributes: RequestAttributes
  decision: Decision
}
