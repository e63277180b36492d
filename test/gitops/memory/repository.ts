// The in-memory Git repository under the in-memory host (host.ts): commits with whole file maps,
// branches as names of commits, and the few graph reads a host needs (ancestry, the commits and the
// diff since a merge base). No protocol: what GitHub's Git Data and compare APIs answer, in memory.
import { createHash } from 'node:crypto'
import { gitBlobSha } from '../../sandbox/github/git-objects.js'

export interface MemoryCommit {
  sha: string
  parents: string[]
  /** path -> text: the whole tree at this commit. */
  files: ReadonlyMap<string, string>
  message: string
  /** The account the host linked the commit to; null for none. */
  login: string | null
  authorName: string
}

export class MemoryRepository {
  readonly commits = new Map<string, MemoryCommit>()
  readonly branches = new Map<string, string>()
  private counter = 0

  constructor(
    readonly defaultBranch: string,
    files: Record<string, string>
  ) {
    const root = this.write([], new Map(Object.entries(files)), 'root', null, 'someone')
    this.branches.set(defaultBranch, root)
  }

  /** A new commit object (no branch moves). */
  write(
    parents: string[],
    files: ReadonlyMap<string, string>,
    message: string,
    login: string | null,
    authorName: string
  ): string {
    this.counter += 1
    const sha = createHash('sha1').update(`commit ${this.counter} ${message}`).digest('hex')
    this.commits.set(sha, { sha, parents, files, message, login, authorName })
    return sha
  }

  /** A branch name or a commit SHA to its commit; undefined when neither. */
  resolve(ref: string): MemoryCommit | undefined {
    return this.commits.get(this.branches.get(ref) ?? ref)
  }

  fileAt(ref: string, path: string): { content: string; sha: string } | null {
    const content = this.resolve(ref)?.files.get(path)
    return content === undefined ? null : { content, sha: gitBlobSha(content) }
  }

  /** Every commit reachable from `sha`, itself included. */
  ancestors(sha: string): Set<string> {
    const seen = new Set<string>()
    const todo = [sha]
    while (todo.length > 0) {
      const next = todo.pop()!
      if (seen.has(next)) continue
      seen.add(next)
      todo.push(...(this.commits.get(next)?.parents ?? []))
    }
    return seen
  }

  /** The commits of head not on base, oldest first, and the diff of their merge base to head. */
  compare(
    base: string,
    head: string
  ): { commits: MemoryCommit[]; files: { path: string; status: string }[] } {
    const onBase = this.ancestors(this.resolve(base)!.sha)
    const headSha = this.resolve(head)!.sha
    const commits = [...this.ancestors(headSha)]
      .filter((sha) => !onBase.has(sha))
      .map((sha) => this.commits.get(sha)!)
    commits.sort((a, b) => (this.ancestors(b.sha).has(a.sha) ? -1 : 1))
    const mergeBase = this.mergeBase(onBase, headSha)
    return { commits, files: diff(this.commits.get(mergeBase)!.files, this.resolve(head)!.files) }
  }

  private mergeBase(onBase: Set<string>, head: string): string {
    // Breadth first from head: the first commit that base also has.
    const todo = [head]
    for (let i = 0; i < todo.length; i++) {
      if (onBase.has(todo[i])) return todo[i]
      todo.push(...this.commits.get(todo[i])!.parents)
    }
    throw new Error(`no merge base of ${head}`)
  }
}

export function diff(
  from: ReadonlyMap<string, string>,
  to: ReadonlyMap<string, string>
): { path: string; status: string }[] {
  const paths = [...new Set([...from.keys(), ...to.keys()])].sort()
  return paths.flatMap((path) => {
    const before = from.get(path)
    const after = to.get(path)
    if (before === after) return []
    const status = before === undefined ? 'added' : after === undefined ? 'removed' : 'modified'
    return [{ path, status }]
  })
}
