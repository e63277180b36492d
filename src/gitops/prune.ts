// keep-tests: which of this template's gate-written manifests to remove. Pure decisions; the commit
// step reads the files and the versions' creation times (action.yml, keep-tests).
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import { MANAGED_BY, MANAGED_BY_LABEL } from '../objects/manifest.js'
import { liveRunOf } from '../settings/live.js'

export interface GateManifestOwner {
  organization: string
  template: string
  namespace: string
}

/** Written by this gate for this template: the managed-by label and our spec.template. */
export function isGateManifestFor(manifest: CoderTemplateTest, owner: GateManifestOwner): boolean {
  return (
    manifest.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY &&
    manifest.spec?.template === `${owner.organization}.${owner.template}` &&
    (manifest.metadata?.namespace ?? '') === owner.namespace
  )
}

export interface PruneCandidate {
  path: string
  /** spec.version.name; '' when the manifest names no version by name. */
  versionName: string
  /** The Coder version's created_at; absent when it cannot be read (never removed then). */
  createdAt?: string
}

export interface PruneInput {
  /** The gate-written manifests of this template on the branch (this run's may be among them). */
  candidates: PruneCandidate[]
  /** keep-tests: N >= 1 versions. This run's version counts among the N. */
  keep: number
  /** Never removed. Absent: no active version known. */
  activeVersionName?: string
  /** This run's manifests (one per preset test): never removed. */
  thisRunPaths: string[]
  /** This run's version: its other manifests (an earlier run's presets) are never removed. */
  thisRunVersionName?: string
  /** This run's version's created_at: only manifests of versions created before it may go. */
  thisRunCreatedAt?: string
}

export type PruneKeptWhy = 'active' | 'newer' | 'unknown-created-at'

export interface PrunePlan {
  /** Oldest first. */
  remove: string[]
  /** Beyond the N newest, yet kept, and why. */
  kept: { path: string; why: PruneKeptWhy }[]
}

/**
 * A version's manifests (its preset tests) are one unit: kept or removed together, so keep-tests
 * counts versions, not files; a manifest without a version name is a unit of its own. Beyond the N
 * newest (this run's version takes one place), a unit goes only when its version was created
 * before this run's: an older, slower run never removes the manifests of a newer one, and a unit
 * whose time cannot be read (or when this run's own cannot) stays.
 */
export function planPrune(input: PruneInput): PrunePlan {
  const plan: PrunePlan = { remove: [], kept: [] }
  if (input.keep < 1) return plan
  const mine = new Set(input.thisRunPaths)
  const units = new Map<string, PruneCandidate[]>()
  for (const candidate of input.candidates) {
    if (mine.has(candidate.path)) continue
    if (input.thisRunVersionName && candidate.versionName === input.thisRunVersionName) continue
    const key = candidate.versionName ? `v:${candidate.versionName}` : `p:${candidate.path}`
    units.set(key, [...(units.get(key) ?? []), candidate])
  }
  // A unit sorts as its newest path: its files share the version's creation time.
  const newestOf = (unit: PruneCandidate[]): PruneCandidate =>
    [...unit].sort(byNewestFirst)[0] as PruneCandidate
  const newestFirst = [...units.values()].sort((a, b) => byNewestFirst(newestOf(a), newestOf(b)))
  // This run's version takes one of the N places.
  const ours = Date.parse(input.thisRunCreatedAt ?? '')
  for (const unit of newestFirst.slice(Math.max(0, input.keep - 1)).reverse()) {
    const paths = unit.map((c) => c.path).sort()
    const why = keptWhy(newestOf(unit), input.activeVersionName, ours)
    if (why === null) plan.remove.push(...paths)
    else plan.kept.push(...paths.map((path) => ({ path, why })))
  }
  return plan
}

/** Why a unit beyond the N newest stays; null when it may go. */
function keptWhy(
  newest: PruneCandidate,
  activeVersionName: string | undefined,
  ours: number
): PruneKeptWhy | null {
  if (activeVersionName && newest.versionName === activeVersionName) return 'active'
  const time = Date.parse(newest.createdAt ?? '')
  if (Number.isNaN(time) || Number.isNaN(ours)) return 'unknown-created-at'
  return time >= ours ? 'newer' : null
}

/** The paths to remove, oldest first. */
export function selectPrunable(input: PruneInput): string[] {
  return planPrune(input).remove
}

export const PRUNE_KEPT_TEXT: Record<PruneKeptWhy, string> = {
  active: 'its version was active when the run started',
  newer: "its version was created after this run's (a newer run wrote it)",
  'unknown-created-at': "the creation time of its version, or of this run's, could not be read"
}

/** What the cluster says of a test that keep-tests chose (src/kube/test-state.ts reads it). */
export type TestState = 'final' | 'running' | 'absent' | 'unread'

/**
 * Whether the manifest of a test in this state may be removed: never while the test still runs,
 * and never when the cluster could not tell (the safe side: a later run removes it).
 */
export function mayRemoveTest(state: TestState): boolean {
  return state === 'final' || state === 'absent'
}

/**
 * mode: verify: the live tests beyond the newest N, by the run and attempt in their names
 * (src/settings/live.ts); a name without them counts as the oldest. This run's takes one place,
 * and a newer run's (a higher run, or attempt) is never removed: it may not have synced yet.
 */
export function selectPrunableLive(
  input: Pick<PruneInput, 'candidates' | 'keep' | 'thisRunPaths'>
): string[] {
  if (input.keep <= 0) return []
  const key = (c: PruneCandidate): [number, number] => {
    const run = liveRunOf(c.path.replace(/^.*\//, '').replace(/\.yaml$/, ''))
    return run ? [run.runId, run.attempt] : [-1, -1]
  }
  const [mine] = input.thisRunPaths.map((path) => key({ path } as PruneCandidate))
  const newer = (c: PruneCandidate): boolean => {
    const [run, attempt] = key(c)
    return (
      mine !== undefined &&
      mine[0] >= 0 &&
      (run > mine[0] || (run === mine[0] && attempt > mine[1]))
    )
  }
  const newestFirst = input.candidates
    .filter((c) => !input.thisRunPaths.includes(c.path) && !newer(c))
    .sort((a, b) => {
      const [ra, aa] = key(a)
      const [rb, ab] = key(b)
      return rb - ra || ab - aa || b.path.localeCompare(a.path)
    })
  return newestFirst
    .slice(Math.max(0, input.keep - 1))
    .map((c) => c.path)
    .reverse()
}

function byNewestFirst(a: PruneCandidate, b: PruneCandidate): number {
  const time = (c: PruneCandidate) => (c.createdAt ? Date.parse(c.createdAt) : Number.NaN)
  const ta = time(a)
  const tb = time(b)
  const aKnown = !Number.isNaN(ta)
  const bKnown = !Number.isNaN(tb)
  if (aKnown !== bKnown) return aKnown ? -1 : 1
  if (aKnown && ta !== tb) return tb - ta
  // Ties: the greater path counts as newer, so the answer (oldest first) is in path order.
  return a.path < b.path ? 1 : a.path > b.path ? -1 : 0
}

/** A path keep-tests chose, with the blob that was judged the gate's. */
export interface JudgedRemoval {
  path: string
  blobSha: string
}

export interface DroppedRemoval {
  path: string
  /** gone: no longer at the head; replaced: another blob is there now, never judged ours. */
  reason: 'gone' | 'replaced'
}

/**
 * Decided again at the head the commit goes onto: a removal holds only while the same blob is at
 * its path. `atHead` maps each path to its blob SHA there, null (or absent) when it is not there.
 */
export function removalsAtHead(
  judged: JudgedRemoval[],
  atHead: ReadonlyMap<string, string | null>
): { remove: string[]; dropped: DroppedRemoval[] } {
  const remove: string[] = []
  const dropped: DroppedRemoval[] = []
  for (const { path, blobSha } of judged) {
    const now = atHead.get(path) ?? null
    if (now === null) dropped.push({ path, reason: 'gone' })
    else if (now !== blobSha) dropped.push({ path, reason: 'replaced' })
    else remove.push(path)
  }
  return { remove, dropped }
}

/** The log line for a removal that was dropped. */
export function droppedRemovalText(dropped: DroppedRemoval): string {
  return dropped.reason === 'replaced'
    ? `${dropped.path} was not removed: another file was put at that path after keep-tests chose it`
    : `${dropped.path} was not removed: it was already gone from the branch`
}
