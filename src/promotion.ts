// The promote answer -> the next action. Pure, so that every row of the table has a test.
// Facts: coder-k8s-api.md §2.4 (results, error codes, confirmation table, retry rules).
import type { CoderTemplateVersionPromotion, PromotionResult } from './api.js'

export type PromoteRequestMode = 'promote' | 'dry-run'

/** What the promote request gave: an HTTP status (0 = no answer: transport error or timeout). */
export interface PromoteAnswer {
  httpStatus: number
  message: string
  promotion?: CoderTemplateVersionPromotion
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
  return Math.min(1000 * 2 ** (attempt - 1), 10_000)
}

/** Decides from one answer of the promote subresource. */
export function decideAnswer(
  answer: PromoteAnswer,
  versionID: string,
  mode: PromoteRequestMode,
  template: string,
  namespace: string
): NextStep {
  const message = answer.message || `HTTP ${answer.httpStatus}`
  switch (answer.httpStatus) {
    case 201:
      return decideCreated(answer.promotion, versionID, mode)
    case 429:
      // Coder rate-limited the activation; nothing was changed.
      return { kind: 'retry', why: `429: ${message}` }
    case 504:
      // "not attempted" is safe to retry. A 504 without that text may come from a lookup (safe)
      // or from the API server cutting an attempted activation (unknown), so read first.
      return /not attempted/i.test(message)
        ? { kind: 'retry', why: `504: ${message}` }
        : { kind: 're-read', why: `504: ${message}`, retryIfUnchanged: true }
    case 503:
      if (/eligible CoderControlPlane|standalone/i.test(message)) {
        return fail(
          answer,
          'no usable CoderControlPlane serves this namespace; check the coder-k8s aggregated API server and its control plane'
        )
      }
      if (/currently unable to handle the request/i.test(message)) {
        // kube-apiserver: the aggregated API is unreachable, so nothing was sent to Coder.
        return { kind: 'retry', why: `503: ${message}` }
      }
      return { kind: 're-read', why: `503: ${message}`, retryIfUnchanged: true }
    case 409:
      // "superseded": ours may have applied and been overwritten, so the previous version being
      // active again is another writer's change too. "not found ... nothing was changed": safe.
      return {
        kind: 're-read',
        why: `409: ${message}`,
        retryIfUnchanged: /nothing was changed/i.test(message)
      }
    case 0:
      return { kind: 're-read', why: `no answer: ${message}`, retryIfUnchanged: true }
    case 400:
      return fail(
        answer,
        'the version or the template name was refused; check that the import succeeded, that the version is not archived, and that organization and template are canonical names'
      )
    case 403:
      return fail(
        answer,
        `the action's Kubernetes identity needs RBAC: verb "create" on resource "codertemplates/promote" in API group "aggregation.coder.com", namespace "${namespace}", resourceNames ["${template}"] (see config/rbac/gate-role.yaml)`
      )
    case 404:
      return fail(
        answer,
        `the template "${template}" does not exist in Coder for the control plane of namespace "${namespace}"`
      )
    case 422:
      return fail(answer, 'the request was invalid; this is a bug in the action, please report it')
    default:
      if (answer.httpStatus >= 500) {
        return { kind: 're-read', why: `${answer.httpStatus}: ${message}`, retryIfUnchanged: true }
      }
      return fail(answer, 'unexpected answer from the promote subresource')
  }
}

function decideCreated(
  promotion: CoderTemplateVersionPromotion | undefined,
  versionID: string,
  mode: PromoteRequestMode
): NextStep {
  const status = promotion?.status ?? {}
  const result = status.result
  const expected: string[] =
    mode === 'dry-run' ? ['WouldPromote', 'AlreadyActive'] : ['Promoted', 'AlreadyActive']
  if (!result || !expected.includes(result)) {
    return {
      kind: 'fail',
      message: `The promote subresource answered 201 with result ${JSON.stringify(result ?? null)}; expected ${expected.join(' or ')} for promote: ${mode === 'dry-run' ? 'dry-run' : 'true'}.`
    }
  }
  // A dry-run leaves the active version as it is; otherwise the answer must name our version.
  if (mode === 'promote' && status.activeVersionID !== versionID) {
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
 * After a 409, a 503 or no answer: the active version decides (§2.4 retry rules). Ours: promoted.
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
