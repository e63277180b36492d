// Pure: does the gate's branch hold only what the gate wrote? Pull-request mode merges the branch
// with the gate's token, so a commit that anyone else pushed to coder-template-gate/<test> must
// never reach gitops-branch through it. The answer comes from the compare of the base with the
// head (GET /repos/{o}/{r}/compare/{base}...{head}: the commits since the merge base and the diff).

/** The line the commit step writes into every commit message (src/steps/commit.ts). */
export const GATE_COMMIT_MARKER = 'written by coder-template-gate.'

export interface BranchCommit {
  sha: string
  /** The GitHub account GitHub linked the commit to; null when it linked none. */
  login: string | null
  /** The git author name, for the message when no account is linked. */
  authorName: string
  message: string
  /** Its parents' SHAs. */
  parents?: string[]
}

export interface BranchFile {
  path: string
  /** added | removed | modified | renamed | copied | changed | unchanged (REST "diff-entry"). */
  status: string
}

export interface BranchChanges {
  /** Oldest first. */
  commits: BranchCommit[]
  /** GitHub lists at most 250 commits; this is how many there are. */
  totalCommits: number
  files: BranchFile[]
}

export interface GateWrites {
  /** This run's manifests (one per test). */
  manifestPaths: string[]
  /** keep-tests removals this run judged the gate's. */
  removals: string[]
  /** The commit this run made; '' when the branch already held the change. */
  ownCommitSha: string
  /** The account the gate writes as (the author of its pull request); null when unknown. */
  gateLogin: string | null
}

export type ForeignChange =
  | { reason: 'commit'; commit: BranchCommit }
  | { reason: 'paths'; paths: string[] }
  | { reason: 'too-many-commits'; totalCommits: number }

/**
 * A commit is the gate's when it is the one this run made, or, from an earlier run, carries the
 * gate's marker and is linked to the gate's own account. Nothing after this run's commit is. The
 * diff may touch only the manifests (not removed) and this run's removals.
 */
export function foreignChange(changes: BranchChanges, gate: GateWrites): ForeignChange | null {
  if (changes.totalCommits > changes.commits.length)
    return { reason: 'too-many-commits', totalCommits: changes.totalCommits }
  const own = changes.commits.findIndex(
    (c) => gate.ownCommitSha !== '' && c.sha === gate.ownCommitSha
  )
  for (const [index, commit] of changes.commits.entries()) {
    if (index === own) continue
    const earlierGate =
      (own === -1 || index < own) &&
      gate.gateLogin !== null &&
      commit.login === gate.gateLogin &&
      commit.message.includes(GATE_COMMIT_MARKER)
    if (!earlierGate) return { reason: 'commit', commit }
  }
  const removals = new Set(gate.removals)
  const manifests = new Set(gate.manifestPaths)
  const paths = changes.files
    .filter((file) =>
      manifests.has(file.path)
        ? file.status === 'removed'
        : !(removals.has(file.path) && file.status === 'removed')
    )
    .map((file) => file.path)
  return paths.length > 0 ? { reason: 'paths', paths } : null
}

/** The branch holds a change the gate did not write: never merged, whatever GitHub would allow. */
export class ForeignChangeError extends Error {
  override name = 'ForeignChangeError'
  constructor(
    readonly branch: string,
    /** What was found: the commit and the paths it touches, or the paths alone. */
    readonly found: string,
    /** true when GitHub had merged it already (a push while auto-merge was on). */
    readonly merged = false
  ) {
    super(
      `The branch ${branch} holds a change that the gate did not write: ${found}. ` +
        (merged
          ? 'GitHub merged it: the gate does not test or promote a version through it. '
          : 'The gate did not merge it. ') +
        `Look at who pushed to ${branch}; then delete the branch (and close its pull request) and ` +
        'run the job again, so that the gate writes it anew.'
    )
  }
}

/** The commit, its author, and the paths it touches, as the error names them. */
export function describeForeign(
  change: ForeignChange,
  commitPaths: string[] | null = null
): string {
  if (change.reason === 'too-many-commits')
    return `${change.totalCommits} commits since it left the base branch, more than the gate writes`
  if (change.reason === 'paths') return `changes to ${change.paths.join(', ')}`
  const { commit } = change
  const author = commit.login ?? commit.authorName
  const touches =
    commitPaths === null
      ? ''
      : commitPaths.length > 0
        ? `, touching ${commitPaths.join(', ')}`
        : ', touching no file'
  return `commit ${commit.sha} by ${JSON.stringify(author)}${touches}`
}
