// Competing writers (docs/how-to/live.md, "CoderTemplate spec.files and other writers"): coder-k8s names the versions that a
// CoderTemplate `spec.files` update creates `k8s-<20 hex digits>`, with an optional `-N` suffix.
// Their presence means that another GitOps writer manages the template, and its next sync can
// re-activate its own version and undo a promotion. Pure.

/** guess: lowercase hex, as the coder-k8s reference writes it; an uppercase name is not counted. */
export const COMPETING_VERSION_NAME = /^k8s-[0-9a-f]{20}(?:-\d+)?$/

export interface NamedVersion {
  name: string
  /** Coder's created_at (RFC 3339); absent when Coder did not say (counts as the oldest). */
  createdAt?: string
}

/** The versions another writer made, newest first, at most `max`. */
export function competingVersions(versions: readonly NamedVersion[], max = 3): NamedVersion[] {
  const time = (v: NamedVersion): number => {
    const t = Date.parse(v.createdAt ?? '')
    return Number.isNaN(t) ? -Infinity : t
  }
  return versions
    .filter((v) => COMPETING_VERSION_NAME.test(v.name))
    .sort((a, b) => time(b) - time(a) || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))
    .slice(0, max)
}

/** The warning, or null when no other writer's version is there. */
export function competingWritersWarning(
  template: string,
  newest: readonly NamedVersion[],
  total: number
): string | null {
  if (newest.length === 0) return null
  const listed = newest.map((v) => `${v.name}${v.createdAt ? ` (${v.createdAt})` : ''}`).join(', ')
  return `Template ${template} has ${total} version${total === 1 ? '' : 's'} named k8s-<hex>, made by a coder-k8s CoderTemplate spec.files writer (newest: ${listed}). Its next sync can re-activate its own version and undo a promotion: let one writer manage this template.`
}
