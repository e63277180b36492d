// The state of the Kubernetes sandbox, apart from its routes: the store of codertemplatetests,
// the controller, RBAC, the aggregated API with its promote faults, and the records of requests
// and access reviews.
import { EventEmitter } from 'node:events'
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RecordedRequest } from '../contracts.js'
import { AggregatedApi, REAL_PROMOTE_TIMING } from './aggregated.js'
import type { PromoteFault } from './aggregated.js'
import { TestController } from './controller.js'
import { EngineObjects } from './engine-objects.js'
import type { FinalStatusInfo } from './controller.js'
import { SandboxRbac } from './rbac.js'
import type { AccessReviewRecord, KubeSandboxOptions } from './sandbox-types.js'
import { TestStore } from './store.js'
import { loadTestSchema } from './validation.js'
import type { TestSchema } from './validation.js'

export interface KubeState {
  token: string
  schema: TestSchema
  store: TestStore
  events: EventEmitter
  controller: TestController | null
  faults: { promote: PromoteFault[] }
  rbac: SandboxRbac
  accessReviews: AccessReviewRecord[]
  aggregated: AggregatedApi
  /** Argo CD Applications, Flux Kustomizations and GitRepositories (gitops-refresh). */
  engines: EngineObjects
  requests: RecordedRequest[]
  openStreams: Set<ServerResponse>
  /** When each promote request arrived (before authorization: the deadline starts there). */
  receivedAt: WeakMap<IncomingMessage, number>
  /** One record per answer; `body` is the request body when the handler read one. */
  record(req: IncomingMessage, status: number, body?: string): void
}

function startController(options: KubeSandboxOptions, store: TestStore, events: EventEmitter) {
  if (options.controller === false) return null
  const controller = new TestController(store, options.coder, options.controller)
  controller.onFinal((info: FinalStatusInfo) => events.emit('final-status', info))
  return controller
}

function sandboxRbac(options: KubeSandboxOptions, user: string): SandboxRbac {
  const rbac = new SandboxRbac({ user, ...options.rbac })
  if (options.promoteResourceNames !== undefined)
    rbac.promoteResourceNames = options.promoteResourceNames
  return rbac
}

export function createKubeState(options: KubeSandboxOptions): KubeState {
  const token = options.token ?? randomBytes(24).toString('hex')
  const schema = loadTestSchema(options.crdPath === undefined ? undefined : options.crdPath)
  const store = new TestStore(
    schema,
    options.eventHistoryLimit ?? 1000,
    options.startResourceVersion ?? 1000
  )
  const events = new EventEmitter()
  const controller = startController(options, store, events)
  const faults = { promote: [] as PromoteFault[] }
  const user = options.user ?? 'sandbox-user'
  const rbac = sandboxRbac(options, user)
  const aggregated = new AggregatedApi({
    coder: options.coder,
    faults: faults.promote,
    user,
    timing: { ...REAL_PROMOTE_TIMING, ...options.promoteTiming }
  })
  const requests: RecordedRequest[] = []
  const record = (req: IncomingMessage, status: number, body?: string): void => {
    const entry: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '',
      status,
      at: Date.now(),
      ...(body !== undefined ? { body } : {})
    }
    requests.push(entry)
    events.emit('request', entry)
  }
  const openStreams = new Set<ServerResponse>()
  const receivedAt = new WeakMap<IncomingMessage, number>()
  const accessReviews: AccessReviewRecord[] = []
  // prettier-ignore
  return {
    token, schema, store, events, controller, faults, rbac, accessReviews, aggregated,
    requests, openStreams, receivedAt, record, engines: new EngineObjects()
  }
}
