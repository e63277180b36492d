// The promote answer -> the next action. Pure, so that every row of the table has a test.
// Facts: https://github.com/coder/coder-k8s/blob/main/docs/reference/aggregated-api-behavior.md
// The HTTP status and the Status fields (reason, code, details) decide. A message refines the class
// only where the docs have two answers with the same code and reason but different effects, and then only
// when it is one of the exact documented texts, with our own version, template and namespace in it:
// the text comes from another system and may quote anything, so any other text takes the safe way
// (read the active version first; never a blind retry).
import type {
  CoderTemplateVersionPromotion,
  KubeStatus,
  PromotionResult
} from '../objects/coder-k8s.js'
import { AGGREGATION_GROUP } from '../objects/coder-k8s.js'
import { backoff } from '../timing/backoff.js'

export type PromoteRequestMode = 'promote' | 'dry-run'

/** What the promote request gave: an HTTP status (0 = no answer: transport error or timeout). */
export interface PromoteAnswer {
  httpStatus: number
  /** For logs and messages only; never classified (the raw text is `status.message`). */
  message: string
  promotion?: CoderTemplateVersionPromotion
  /** The metav1.Status of an error answer; absent when the body was none (a proxy's page, text). */
  status?: KubeStatus
}

export interface Promoted {
  kind: 'promoted'
  result: PromotionResult
  previousActiveVersionID: string
  activeVersionID: string
  /** How we know: the server's answer, or our own re-read after an unclear answer. */
  confirmedBy: 'answer' | 're-read'
}

export type NextStep =
  | Promoted
  | { kind: 'retry'; why: string }
  /**
   * Read the active version before anything else. `retryIfUnchanged`: whether the previous version
   * still being active means that nothing was applied, so that another request is safe.
   */
  | { kind: 're-read'; why: string; retryIfUnchanged: boolean }
  | { kind: 'fail'; message: string }

export const MAX_PROMOTE_ATTEMPTS = 5

/** Backoff before attempt n+1 (n from 1): 1 s, 2 s, 4 s, 8 s, capped at 10 s. */
export function retryDelayMs(attempt: number): number {
  return backoff({ attempt, initialMs: 1000, maxMs: 10_000 })
}

/** Decides from one answer of the promote subresource. */
export function decideAnswer(
  answer: PromoteAnswer,
  versionID: string,
  request: PromoteRequestMode,
  template: string,
  namespace: string
): NextStep {
  const code = answer.httpStatus
  if (code === 201) return decideCreated(answer.promotion, versionID, request)
  const message = answer.message || `HTTP ${code}`
  const reRead = (retryIfUnchanged: boolean): NextStep => ({
    kind: 're-read',
    why: `${code === 0 ? 'no answer' : code}: ${message}`,
    retryIfUnchanged
  })
  const retry: NextStep = { kind: 'retry', why: `${code}: ${message}` }
  const reason = statusReason(answer)
  const known = documentedError(answer, versionID, template, namespace)
  if (known === 'no-control-plane') return fail(answer, CONTROL_PLANE_ADVICE)
  switch (code) {
    case 0:
      return reRead(true)
    case 429:
      // A Status says the API server (its rate limits) or coder-k8s ("nothing was changed") refused;
      // a 429 page from something in between proves nothing, so read first.
      return reason === 'TooManyRequests' ? retry : reRead(true)
    case 504:
      // "not attempted" is safe to retry. Any other 504 (reason Timeout too) may come from a lookup
      // (safe) or from the API server cutting an attempted activation (unknown), so read first.
      return known === 'not-attempted' ? retry : reRead(true)
    case 503:
      // kube-apiserver could not reach the aggregated API: nothing was sent to Coder. "could not
      // confirm" and any other 503 (a proxy's page included): unknown, read first.
      return known === 'apiserver-unavailable' ? retry : reRead(true)
    case 409:
      // "superseded" or unknown: ours may have applied and been overwritten, so the previous version
      // active again is another writer's change too. "not found ... nothing was changed": safe.
      return reRead(known === 'nothing-changed')
    case 400:
      return fail(answer, BAD_REQUEST_ADVICE)
    case 403:
      return fail(answer, reason === 'Forbidden' ? rbacAdvice(template, namespace) : PROXY_ADVICE)
    case 404:
      return fail(answer, notFoundAdvice(answer, template, namespace))
    case 422:
      return fail(answer, 'the request was invalid; this is a bug in the action, please report it')
    default:
      return code >= 500
        ? reRead(true)
        : fail(answer, 'unexpected answer from the promote subresource')
  }
}

/** Documented error answers that share code and reason with an answer of another effect. */
type DocumentedError =
  'not-attempted' | 'apiserver-unavailable' | 'nothing-changed' | 'no-control-plane'

interface DocumentedForm {
  code: number
  /** '' for a Status without a reason. */
  reason: string
  means: DocumentedError
  /** Whole messages, compared exactly. */
  messages: string[]
}

const form = (
  code: number,
  reason: string,
  means: DocumentedError,
  ...messages: string[]
): DocumentedForm => ({ code, reason, means, messages })

/**
 * The exact documented texts, with our values in them. Prefixes: apimachinery's NewTimeoutError adds
 * "Timeout: " and NewConflict "Operation cannot be fulfilled on <resource> "<name>": " (the docs quote
 * the text after them). The control-plane texts (the docs' last rows) as the coder-k8s source words
 * them (internal/aggregated/coder/controlplane_provider.go, provider.go).
 */
function documentedForms(versionID: string, template: string, namespace: string): DocumentedForm[] {
  const id = versionID.toLowerCase() // the server prints the parsed UUID
  const notAttempted = `the promotion of version ${id} on template "${template}" was not attempted: too little of the request time was left after the lookups; nothing was sent to Coder, so it is safe to try again`
  const notFound = `the template or version ${id} was not found in Coder during the activation; nothing was changed: re-read before retrying`
  const conflictPrefix = `Operation cannot be fulfilled on codertemplates.${AGGREGATION_GROUP} "${template}": `
  const noControlPlane = [
    `no eligible CoderControlPlane instances found in namespace "${namespace}"`,
    'static coder client provider is not namespace-pinned; configure --coder-namespace'
  ]
  const multiple = `multiple eligible CoderControlPlane instances in namespace "${namespace}"; multi-instance support is planned`
  // guess: the promote storage wraps the provider's error, and the API server answers a wrapped
  // error as 500 without a reason (ErrorToAPIStatus matches the type, not the chain).
  const wrapped = [...noControlPlane, multiple].map(
    (text) => `resolve codersdk client for namespace "${namespace}": ${text}`
  )
  return [
    form(504, 'Timeout', 'not-attempted', notAttempted, `Timeout: ${notAttempted}`),
    // kube-apiserver: the aggregated API server is unreachable, nothing was sent to Coder.
    form(503, 'ServiceUnavailable', 'apiserver-unavailable', UNREACHABLE),
    form(409, 'Conflict', 'nothing-changed', notFound, conflictPrefix + notFound),
    form(503, 'ServiceUnavailable', 'no-control-plane', ...noControlPlane),
    form(400, 'BadRequest', 'no-control-plane', multiple),
    form(500, '', 'no-control-plane', ...wrapped)
  ]
}

const UNREACHABLE = 'the server is currently unable to handle the request'

function documentedError(
  answer: PromoteAnswer,
  versionID: string,
  template: string,
  namespace: string
): DocumentedError | null {
  const reason = statusReason(answer)
  const text = answer.status?.message
  if (reason === null || typeof text !== 'string') return null
  const form = documentedForms(versionID, template, namespace).find(
    (f) => f.code === answer.httpStatus && f.reason === reason && f.messages.includes(text)
  )
  return form?.means ?? null
}

/** The Status reason ('' when none), or null without a Status that agrees with the HTTP status. */
function statusReason(answer: PromoteAnswer): string | null {
  const status = answer.status
  if (status?.kind !== 'Status' || status.code !== answer.httpStatus) return null
  return typeof status.reason === 'string' ? status.reason : ''
}

const CONTROL_PLANE_ADVICE =
  'no usable CoderControlPlane serves this namespace; check the coder-k8s aggregated API server and its control plane'
const BAD_REQUEST_ADVICE =
  'the version or the template name was refused; check that the import succeeded, that the version is not archived, and that organization and template are canonical names'
const PROXY_ADVICE =
  "the answer is not the API server's Forbidden Status, so something between the action and the API server (a proxy or gateway) may have refused the request; check its access rules"

function rbacAdvice(template: string, namespace: string): string {
  return `the action's Kubernetes identity needs RBAC: verb "create" on resource "codertemplates/promote" in API group "aggregation.coder.com", namespace "${namespace}", resourceNames ["${template}"] (see config/rbac/gate-role.yaml)`
}

/** NotFound naming our template means it is missing in Coder; any other 404 is a missing API. */
function notFoundAdvice(answer: PromoteAnswer, template: string, namespace: string): string {
  const details = answer.status?.details
  if (
    statusReason(answer) === 'NotFound' &&
    details?.name === template &&
    details.group === AGGREGATION_GROUP
  ) {
    return `the template "${template}" does not exist in Coder for the control plane of namespace "${namespace}"`
  }
  return `the promote subresource is not served here; check that the APIService v1alpha1.${AGGREGATION_GROUP} (coder-k8s aggregated API server) is installed and available`
}

function decideCreated(
  promotion: CoderTemplateVersionPromotion | undefined,
  versionID: string,
  request: PromoteRequestMode
): NextStep {
  const status = promotion?.status ?? {}
  const result = status.result
  const expected: string[] =
    request === 'dry-run' ? ['WouldPromote', 'AlreadyActive'] : ['Promoted', 'AlreadyActive']
  if (!result || !expected.includes(result)) {
    return {
      kind: 'fail',
      message: `The promote subresource answered 201 with result ${JSON.stringify(result ?? null)}; expected ${expected.join(' or ')} for promote: ${request === 'dry-run' ? 'dry-run' : 'true'}.`
    }
  }
  // A dry-run leaves the active version as it is; otherwise the answer must name our version.
  if (request === 'promote' && status.activeVersionID !== versionID) {
    return {
      kind: 'fail',
      message: `The promote subresource answered ${result}, but the active version it reports is ${JSON.stringify(status.activeVersionID ?? null)}, not the tested version ${versionID}.`
    }
  }
  return {
    kind: 'promoted',
    result: result as PromotionResult,
    previousActiveVersionID: status.previousActiveVersionID ?? '',
    activeVersionID: status.activeVersionID ?? '',
    confirmedBy: 'answer'
  }
}

/**
 * After a 409, a 503 or no answer: the active version decides (retry rules). Ours: promoted.
 * The one active before we started: try again, but only when the answer said nothing was applied
 * or could not tell. Anything else: another writer won; never overwrite it.
 */
export function decideAfterReread(
  activeVersionID: string | null,
  versionID: string,
  previousActiveVersionID: string,
  mode: PromoteRequestMode,
  after: { why: string; retryIfUnchanged: boolean }
): NextStep {
  const { why } = after
  if (activeVersionID === null) {
    return {
      kind: 're-read',
      why: `${why}; the active version could not be read`,
      retryIfUnchanged: after.retryIfUnchanged
    }
  }
  if (activeVersionID === versionID) {
    return {
      kind: 'promoted',
      result:
        previousActiveVersionID === versionID || mode === 'dry-run' ? 'AlreadyActive' : 'Promoted',
      previousActiveVersionID,
      activeVersionID,
      confirmedBy: 're-read'
    }
  }
  if (
    previousActiveVersionID !== '' &&
    activeVersionID === previousActiveVersionID &&
    after.retryIfUnchanged
  ) {
    return { kind: 'retry', why: `${why}; version ${activeVersionID} is still active` }
  }
  const whose =
    previousActiveVersionID === ''
      ? `Version ${activeVersionID} is active, and the version active before this run is unknown, so the action cannot tell whether another writer changed it`
      : activeVersionID === previousActiveVersionID
        ? `Version ${activeVersionID} is active again after the promotion of ${versionID} was superseded: another writer changed it`
        : `Another writer activated version ${activeVersionID} while this run promoted ${versionID}`
  return {
    kind: 'fail',
    message: `${whose} (${why}). The last writer wins in Coder, so the action does not overwrite it: decide which version should be active, and promote it again.`
  }
}

function fail(answer: PromoteAnswer, check: string): NextStep {
  return {
    kind: 'fail',
    message: `The promote subresource answered ${answer.httpStatus}: ${answer.message || '(no message)'}. Check: ${check}.`
  }
}
