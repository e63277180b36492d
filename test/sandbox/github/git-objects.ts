// Git objects as git itself hashes them: blobs, trees and commits get the SHA-1 that `git
// hash-object` / `git cat-file` would show, so SHAs seen through the API are real git SHAs.
import { createHash } from 'node:crypto'

export type EntryType = 'blob' | 'tree' | 'commit'

export interface TreeEntry {
  name: string
  /** As the API shows it: 100644, 100755, 120000, 160000 or 040000. */
  mode: string
  type: EntryType
  sha: string
}

export interface Person {
  name: string
  email: string
  /** ISO 8601 in UTC without milliseconds, as GitHub prints commit dates. */
  date: string
}

export interface CommitObject {
  sha: string
  tree: string
  parents: string[]
  author: Person
  committer: Person
  message: string
}

/** A file (or submodule) in a flattened tree: path -> mode and object SHA. */
export interface FileEntry {
  mode: string
  sha: string
}

export const EMPTY_TREE_SHA = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

function hashObject(type: EntryType, body: Buffer): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex')
}

/** The git blob SHA-1 of a file: sha1("blob <byte length>\0" + bytes), what `git hash-object` prints. */
export function gitBlobSha(content: string | Buffer): string {
  return hashObject('blob', typeof content === 'string' ? Buffer.from(content, 'utf8') : content)
}

/** Base64 as the contents and blobs APIs send it: wrapped with a newline every 60 characters. */
export function githubBase64(content: string | Buffer): string {
  const flat = (typeof content === 'string' ? Buffer.from(content, 'utf8') : content).toString(
    'base64'
  )
  const lines: string[] = []
  for (let i = 0; i < flat.length; i += 60) lines.push(flat.slice(i, i + 60))
  return lines.map((line) => `${line}\n`).join('')
}

/** Seconds precision, no milliseconds: git stores whole seconds. */
export function gitDate(at: Date = new Date()): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

// git sorts tree entries by name, comparing a subtree's name as if it ended in '/'.
function sortKey(entry: TreeEntry): Buffer {
  return Buffer.from(entry.type === 'tree' ? `${entry.name}/` : entry.name, 'utf8')
}

function treeBody(entries: TreeEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)))
  const parts: Buffer[] = []
  for (const entry of sorted) {
    // Inside the object a tree's mode has no leading zero ("40000"); the API shows "040000".
    const mode = entry.mode.replace(/^0+/, '')
    parts.push(Buffer.from(`${mode} ${entry.name}\0`, 'utf8'), Buffer.from(entry.sha, 'hex'))
  }
  return Buffer.concat(parts)
}

function personLine(role: string, person: Person): string {
  const seconds = Math.floor(Date.parse(person.date) / 1000)
  return `${role} ${person.name} <${person.email}> ${seconds} +0000\n`
}

function commitBody(commit: Omit<CommitObject, 'sha'>): Buffer {
  let text = `tree ${commit.tree}\n`
  for (const parent of commit.parents) text += `parent ${parent}\n`
  text += personLine('author', commit.author) + personLine('committer', commit.committer)
  return Buffer.from(`${text}\n${commit.message}`, 'utf8')
}

/** One repository's object database: content-addressed, so writing the same object twice is a no-op. */
export class GitObjects {
  readonly blobs = new Map<string, Buffer>()
  readonly trees = new Map<string, TreeEntry[]>()
  readonly commits = new Map<string, CommitObject>()

  constructor() {
    this.trees.set(EMPTY_TREE_SHA, [])
  }

  writeBlob(bytes: Buffer): string {
    const sha = hashObject('blob', bytes)
    this.blobs.set(sha, bytes)
    return sha
  }

  writeTree(entries: TreeEntry[]): string {
    const sha = hashObject('tree', treeBody(entries))
    this.trees.set(sha, [...entries])
    return sha
  }

  writeCommit(input: Omit<CommitObject, 'sha'>): CommitObject {
    const commit = { ...input, sha: hashObject('commit', commitBody(input)) }
    this.commits.set(commit.sha, commit)
    return commit
  }

  typeOf(sha: string): EntryType | undefined {
    if (this.blobs.has(sha)) return 'blob'
    if (this.trees.has(sha)) return 'tree'
    if (this.commits.has(sha)) return 'commit'
    return undefined
  }

  /** Every blob (and submodule) under a tree, by full path. */
  flatten(treeSha: string, prefix = ''): Map<string, FileEntry> {
    const files = new Map<string, FileEntry>()
    for (const entry of this.trees.get(treeSha) ?? []) {
      const path = `${prefix}${entry.name}`
      if (entry.type === 'tree') {
        for (const [sub, file] of this.flatten(entry.sha, `${path}/`)) files.set(sub, file)
      } else {
        files.set(path, { mode: entry.mode, sha: entry.sha })
      }
    }
    return files
  }

  /** Writes the trees for a flat file list and returns the root tree SHA. */
  treeFromFiles(files: Map<string, FileEntry>): string {
    const root = new Map<string, FileEntry | Map<string, unknown>>()
    for (const [path, file] of files) {
      const parts = path.split('/')
      let dir = root
      for (const part of parts.slice(0, -1)) {
        let next = dir.get(part)
        if (!(next instanceof Map)) {
          next = new Map()
          dir.set(part, next)
        }
        dir = next as Map<string, FileEntry | Map<string, unknown>>
      }
      dir.set(parts[parts.length - 1], file)
    }
    const write = (dir: Map<string, FileEntry | Map<string, unknown>>): string =>
      this.writeTree(
        [...dir].map(([name, value]) =>
          value instanceof Map
            ? {
                name,
                mode: '040000',
                type: 'tree' as const,
                sha: write(value as Map<string, FileEntry | Map<string, unknown>>)
              }
            : {
                name,
                mode: (value as FileEntry).mode,
                type:
                  (value as FileEntry).mode === '160000' ? ('commit' as const) : ('blob' as const),
                sha: (value as FileEntry).sha
              }
        )
      )
    return write(root)
  }

  /** Commits reachable from `head` (itself included), breadth first. */
  ancestors(head: string): Set<string> {
    const seen = new Set<string>()
    const queue = [head]
    while (queue.length > 0) {
      const sha = queue.shift()!
      if (seen.has(sha)) continue
      const commit = this.commits.get(sha)
      if (!commit) continue
      seen.add(sha)
      queue.push(...commit.parents)
    }
    return seen
  }

  isAncestor(ancestor: string, descendant: string): boolean {
    return this.ancestors(descendant).has(ancestor)
  }

  /** The nearest common ancestor (by walking `b` breadth first), null for unrelated histories. */
  mergeBase(a: string, b: string): string | null {
    const ofA = this.ancestors(a)
    const queue = [b]
    const seen = new Set<string>()
    while (queue.length > 0) {
      const sha = queue.shift()!
      if (seen.has(sha)) continue
      seen.add(sha)
      if (ofA.has(sha)) return sha
      queue.push(...(this.commits.get(sha)?.parents ?? []))
    }
    return null
  }

  /** Commits reachable from `head` but not from `base`, oldest first (parents before children). */
  commitsBetween(base: string | null, head: string): CommitObject[] {
    const excluded = base ? this.ancestors(base) : new Set<string>()
    const ordered: CommitObject[] = []
    const entered = new Set<string>()
    // Iterative post-order walk: long histories must not overflow the stack.
    const stack: Array<{ sha: string; leaving: boolean }> = [{ sha: head, leaving: false }]
    while (stack.length > 0) {
      const { sha, leaving } = stack.pop()!
      const commit = this.commits.get(sha)
      if (!commit || excluded.has(sha)) continue
      if (leaving) {
        ordered.push(commit)
        continue
      }
      if (entered.has(sha)) continue
      entered.add(sha)
      stack.push({ sha, leaving: true })
      for (const parent of [...commit.parents].reverse())
        stack.push({ sha: parent, leaving: false })
    }
    return ordered
  }
}
