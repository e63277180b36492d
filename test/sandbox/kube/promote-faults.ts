// Promote faults and time budgets of the sandbox's aggregated API (coder-k8s
// docs/reference/aggregated-api-behavior.md).

/**
 * One fault, consumed by the next promote request. `afterAnswer` runs once that request's answer is
 * decided, before it is sent: e.g. another writer activating a version during the gate's pause.
 */
export type PromoteFault = PromoteFaultKind & { afterAnswer?: () => void }

type PromoteFaultKind =
  /** Coder answers the activation PATCH with this HTTP status (mapped as documented; nothing applied). */
  | { kind: 'status'; code: number }
  /** 504 "not attempted", as if the lookups left less than 15 s. */
  | { kind: '504-not-attempted' }
  /** The activation has no clear answer; the re-read then shows this version (confirmation table). */
  | { kind: 'activation-unclear'; activeAfter: 'requested' | 'previous' | 'third' }
  /** Our activation succeeds, then another writer activates a third version before the re-read. */
  | { kind: 'superseded-after-success' }
  /** The re-read after the activation fails (→ 503 could not confirm). */
  | { kind: 'reread-fails' }
  /** The aggregated server's SubjectAccessReview denies (standard 403 Forbidden). */
  | { kind: 'forbidden' }
  /** Slows the lookups by ms (real time; it counts against the request deadline). */
  | { kind: 'delay'; ms: number }
  /** kube-apiserver cannot reach the aggregated server (503). */
  | { kind: 'apiserver-unavailable' }
  /**
   * The request goes through as usual (the activation applies at once), and the answer waits ms
   * before it is sent: a slow promote, in flight while the version is already active.
   */
  | { kind: 'slow-answer'; ms: number }

export interface PromoteTiming {
  /** requestTimeoutUpperBound of create requests (34 s). */
  requestTimeoutUpperBoundMs: number
  /** Coder PATCH budget (10 s). */
  patchBudgetMs: number
  /** Re-read reserve (5 s). */
  rereadReserveMs: number
}

export const REAL_PROMOTE_TIMING: PromoteTiming = {
  requestTimeoutUpperBoundMs: 34_000,
  patchBudgetMs: 10_000,
  rereadReserveMs: 5_000
}
