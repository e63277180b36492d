// keep-tests: which of this template's gate-written manifests to remove. Pure decisions; the commit
// step reads the files and the versions' creation times (interface.md, keep-tests).
import type { CoderTemplateTest } from '../kube/objects.js'
import { liveRunOf } from '../settings/live.js'
import { MANAGED_BY, MANAGED_BY_LABEL } from '../verdict/manifest.js'

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
  /** The Coder version's created_at; null when the version no longer exists (counts as oldest). */
  createdAt: string | null
}

export interface PruneInput {
  /** The gate-written manifests of this template on the branch (this run's may be among them). */
  candidates: PruneCandidate[]
  /** keep-tests: N >= 1. This run's manifest is the newest and counts among the N. */
  keep: number
  /** Never removed. null: no active version known. */
  activeVersionName: string | null
  /** Never removed. */
  thisRunPath: string
}

/** The paths to remove, oldest first. */
export function selectPrunable(input: PruneInput): string[] {
  if (input.keep < 1) return []
  const others = input.candidates.filter((c) => c.path !== input.thisRunPath)
  const newestFirst = [...others].sort(byNewestFirst)
  // This run's manifest takes one of the N places.
  const beyond = newestFirst.slice(Math.max(0, input.keep - 1))
  return beyond
    .filter((c) => !(input.activeVersionName && c.versionName === input.activeVersionName))
    .map((c) => c.path)
    .reverse()
}

/**
 * mode: verify: the live tests beyond the newest N, by the run and attempt in their names
 * (src/settings/live.ts); a name without them counts as the oldest. This run's takes one place.
 */
export function selectPrunableLive(input: PruneInput): string[] {
  if (input.keep <= 0) return []
  const key = (c: PruneCandidate): [number, number] => {
    const run = liveRunOf(c.path.replace(/^.*\//, '').replace(/\.yaml$/, ''))
    return run ? [run.runId, run.attempt] : [-1, -1]
  }
  const newestFirst = input.candidates
    .filter((c) => c.path !== input.thisRunPath)
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
