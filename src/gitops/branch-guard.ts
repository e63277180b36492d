// Pure: is the gate's pull request exactly the gate's change, into exactly its branch? Pull-request
// mode merges with the gate's token, so the decision comes from what would be merged (the pull
// request's base, and the tree diff base...head at the head about to be merged) and from who
// opened it (the token's own account, GraphQL `viewer`), never from commit authors or message
// markers, which anyone with write access can set.

export interface BranchFile {
  path: string
  /** added | removed | modified | renamed | copied | changed | unchanged (REST "diff-entry"). */
  status: string
  /** renamed or copied: the path it came from (REST "diff-entry" previous_filename). */
  previousPath?: string
  /** The file's blob SHA after the change (REST "diff-entry" sha), where the caller needs it. */
  sha?: string
}

/** An account on the host; its numeric id absent when the host does not say. */
export interface Account {
  login: string
  id?: number
}

/** What the host shows at the head about to be merged. */
export interface BranchChanges {
  /** The pull request's base branch now. */
  base: string
  /** Who opened the pull request; absent when the host does not say. */
  openedBy?: Account
  /** The tree diff of the merge base with the head (REST compare `base...head`). */
  files: BranchFile[]
  /** Each manifest's text at the head, by path; null when it is not there. */
  manifestTexts: Record<string, string | null>
}

/** One manifest this run writes: its path and the bytes it renders. */
export interface GateManifest {
  path: string
  text: string
}

export interface GateWrites {
  /** gitops-branch. */
  base: string
  /** This run's manifests (one per test), with the bytes this run renders. */
  manifests: GateManifest[]
  /** keep-tests removals this run judged at commit time. */
  removals: string[]
  /** The token's own account (GraphQL viewer). */
  viewer: Account
}

export type ForeignChange =
  | { reason: 'base'; base: string; expected: string }
  | { reason: 'opened-by'; login?: string }
  | { reason: 'paths'; paths: string[] }
  | { reason: 'manifest'; path: string; found: 'missing' | 'other bytes' }

/** Whether an account is the token's own: the same id where both are known, else the same login. */
export function sameAccount(a: Account, b: Account): boolean {
  if (a.id !== undefined && b.id !== undefined) return a.id === b.id
  return a.login.toLowerCase() === b.login.toLowerCase()
}

/**
 * A diff entry as the changes it makes to paths: a rename removes its previous path and adds its
 * path, a copy adds its path. So a rename onto the manifest's path is judged as the removal of the
 * path it came from, and the gate's own commit (an old manifest removed, a similar one added, which
 * Git may show as one rename) passes only when that removal was judged.
 */
export function effectsOf(file: BranchFile): BranchFile[] {
  // GitHub names the source of every rename; one it does not name is judged foreign, never trusted.
  if (file.status === 'renamed' && file.previousPath === undefined)
    return [{ path: `${file.path} (renamed from a path GitHub does not name)`, status: 'renamed' }]
  if (file.status === 'renamed' && file.previousPath !== undefined)
    return [
      { path: file.previousPath, status: 'removed' },
      { path: file.path, status: 'added', ...(file.sha === undefined ? {} : { sha: file.sha }) }
    ]
  if (file.status === 'copied')
    return [
      { path: file.path, status: 'added', ...(file.sha === undefined ? {} : { sha: file.sha }) }
    ]
  return [file]
}

/** The first difference from the gate's own change, or null: one rule, no second check. */
export function foreignChange(changes: BranchChanges, gate: GateWrites): ForeignChange | null {
  if (changes.base !== gate.base) return { reason: 'base', base: changes.base, expected: gate.base }
  if (changes.openedBy === undefined || !sameAccount(changes.openedBy, gate.viewer))
    return { reason: 'opened-by', login: changes.openedBy?.login }
  const removals = new Set(gate.removals)
  const manifestPaths = new Set(gate.manifests.map((m) => m.path))
  const paths = changes.files
    .flatMap(effectsOf)
    .filter((file) =>
      manifestPaths.has(file.path)
        ? file.status === 'removed'
        : !(removals.has(file.path) && file.status === 'removed')
    )
    .map((file) => file.path)
  if (paths.length > 0) return { reason: 'paths', paths }
  for (const manifest of gate.manifests) {
    const found = changes.manifestTexts[manifest.path] ?? null
    if (found !== manifest.text)
      return {
        reason: 'manifest',
        path: manifest.path,
        found: found === null ? 'missing' : 'other bytes'
      }
  }
  return null
}

/** The branch holds a change the gate did not write: never merged, whatever GitHub would allow. */
export class ForeignChangeError extends Error {
  override name = 'ForeignChangeError'
  constructor(
    readonly branch: string,
    /** What differs from the gate's change: the base, the opener, the paths or the manifest. */
    readonly found: string,
    /** true when GitHub had merged it already (a push while auto-merge was on). */
    readonly merged = false
  ) {
    super(
      `The pull request of ${branch} is not exactly the gate's change: ${found}. ` +
        (merged
          ? 'GitHub merged it: the gate does not test or promote a version through it. '
          : 'The gate did not merge it. ') +
        `Look at who changed it; then close the pull request, delete ${branch} and ` +
        'run the job again, so that the gate writes it anew.'
    )
  }
}

/** What differs, as the error names it. */
export function describeForeign(change: ForeignChange): string {
  switch (change.reason) {
    case 'base':
      return `its base is ${JSON.stringify(change.base)}, not ${JSON.stringify(change.expected)}`
    case 'opened-by':
      return change.login === undefined
        ? 'it was not opened by the account of gitops-token'
        : `it was opened by ${JSON.stringify(change.login)}, not by the account of gitops-token`
    case 'paths':
      return `it changes ${change.paths.join(', ')}, which the gate did not write`
    case 'manifest':
      return change.found === 'missing'
        ? `${change.path} is missing at its head`
        : `${change.path} at its head holds other bytes than the manifest this run renders`
  }
}
