// The "files" of a compare as GitHub lists them: added, removed, modified, and renamed with
// previous_filename (https://docs.github.com/en/rest/commits/commits#compare-two-commits).
// GitHub runs git's rename detection, which pairs a removed file with an added one when they are
// at least 50% similar (https://git-scm.com/docs/git-diff#Documentation/git-diff.txt--Mltngt).
// guess: the similarity here is counted in shared lines, git counts shared chunks of bytes; the
// two agree on what the gate writes (short YAML files that differ in a few lines).

export interface TreeFile {
  sha: string
  text: string
}

export interface DiffEntry {
  path: string
  sha: string
  status: 'added' | 'removed' | 'modified' | 'renamed'
  previousPath?: string
}

const RENAME_SIMILARITY = 0.5

const linesOf = (text: string) => text.replace(/\n$/, '').split('\n')

/** Shared lines, as a share of the larger file's lines. */
function similarity(a: string, b: string): number {
  if (a === b) return 1
  const left = linesOf(a)
  const counts = new Map<string, number>()
  for (const line of left) counts.set(line, (counts.get(line) ?? 0) + 1)
  let shared = 0
  const right = linesOf(b)
  for (const line of right) {
    const n = counts.get(line) ?? 0
    if (n > 0) {
      shared += 1
      counts.set(line, n - 1)
    }
  }
  return shared / Math.max(left.length, right.length)
}

/** base and head trees by path; the entries sorted by path, renames paired as git pairs them. */
export function diffEntries(
  before: Map<string, TreeFile>,
  after: Map<string, TreeFile>
): DiffEntry[] {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort()
  const added = paths.filter((p) => !before.has(p) && after.has(p))
  const removed = paths.filter((p) => before.has(p) && !after.has(p))
  const renamedFrom = new Map<string, string>()
  for (const path of added) {
    const now = after.get(path)!
    const candidates = removed
      .filter((old) => ![...renamedFrom.values()].includes(old))
      .map((old) => ({ old, score: similarity(before.get(old)!.text, now.text) }))
      .filter((c) => c.score >= RENAME_SIMILARITY)
      .sort((x, y) => y.score - x.score)
    if (candidates[0]) renamedFrom.set(path, candidates[0].old)
  }
  const sources = new Set(renamedFrom.values())
  return paths.flatMap((path): DiffEntry[] => {
    const was = before.get(path)
    const now = after.get(path)
    if (was && now) return was.sha === now.sha ? [] : [{ path, sha: now.sha, status: 'modified' }]
    if (was) return sources.has(path) ? [] : [{ path, sha: was.sha, status: 'removed' }]
    const previousPath = renamedFrom.get(path)
    return previousPath
      ? [{ path, sha: now!.sha, status: 'renamed', previousPath }]
      : [{ path, sha: now!.sha, status: 'added' }]
  })
}
