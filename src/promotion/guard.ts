// The promotion guard (README, "Promotion guard"): decided right before the promote request,
// from the active version read again at that moment. The gate never overwrites another writer and
// never rolls back a newer version unless allow-rollback says so. Pure.

export interface VersionFacts {
  id: string
  name: string
  /** Coder's created_at (RFC 3339); absent when Coder did not say. */
  createdAt?: string
}

export type GuardDecision =
  | { kind: 'promote' }
  | { kind: 'already-active' }
  | { kind: 'refused'; why: 'changed' | 'rollback'; active: VersionFacts; message: string }

export interface PromotionGuardInput {
  ours: VersionFacts
  /** The active version when the run started; null when the template did not exist. */
  starting: VersionFacts | null
  /** The active version now. */
  active: VersionFacts
  allowRollback: boolean
  /** The starting point is expected-active-version-id (a promote job), not this run's start. */
  startingIsExpected?: boolean
}

export function guardPromotion(input: PromotionGuardInput): GuardDecision {
  const { ours, starting, active } = input
  if (active.id === ours.id) return { kind: 'already-active' }
  const shown = `${active.name || '(unnamed)'} (${active.id})`
  if (starting === null || active.id !== starting.id) {
    const before = starting ? `${starting.name || '(unnamed)'} (${starting.id})` : 'none'
    const when = input.startingIsExpected
      ? "at the guard's starting point (expected-active-version-id, the version active when the test job started)"
      : 'when the run started'
    return {
      kind: 'refused',
      why: 'changed',
      active,
      message: `Another writer changed the active version during this run: it was ${before} ${when} and is ${shown} now. The gate never overwrites a deliberate change: promote ${ours.name} by hand if it should win.`
    }
  }
  if (!input.allowRollback && !isOlder(active, ours)) {
    return {
      kind: 'refused',
      why: 'rollback',
      active,
      message: `Promoting ${ours.name} (${ours.id}) would roll back ${shown}, which Coder created later${active.createdAt && ours.createdAt ? ` (${active.createdAt} after ${ours.createdAt})` : ' (or the creation times are unknown)'}. Set allow-rollback: true if this rollback is deliberate.`
    }
  }
  return { kind: 'promote' }
}

/**
 * Whether `active` was created before `ours`. Unknown times count as not older: without a proof,
 * the safe side is to refuse and ask for allow-rollback.
 */
function isOlder(active: VersionFacts, ours: VersionFacts): boolean {
  const a = Date.parse(active.createdAt ?? '')
  const o = Date.parse(ours.createdAt ?? '')
  if (Number.isNaN(a) || Number.isNaN(o)) return false
  return a < o
}
