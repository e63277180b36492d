// The GitHub sandbox's data: repositories (git objects, branches, settings, rules, pull requests,
// comments), tokens and users. Every branch move goes through moveRef, which tells onCommit
// listeners which paths changed, so the GitOps sync sees the same thing whichever API wrote.
// Tokens are in tokens.ts and the record types in records.ts (re-exported here).
import type { GitCommit } from '../contracts.js'
import {
  type CommitObject,
  type FileEntry,
  GitObjects,
  gitDate,
  type Person
} from './git-objects.js'
import {
  DEFAULT_SETTINGS,
  type RepoSettings,
  type SandboxUser,
  type StoredPull,
  type StoredRepo
} from './records.js'
import { GITHUB_ACTIONS_LOGIN, type TokenGrant } from './tokens.js'

export * from './records.js'
export * from './tokens.js'

type IdKind = 'repo' | 'pull' | 'comment' | 'label' | 'ruleset'

export const OTHER_WRITER = { name: 'other-writer', email: 'other-writer@example.com' }

function stableNumber(text: string, modulo: number): number {
  let hash = 7
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) % modulo
  return hash
}

export class SandboxState {
  readonly repos = new Map<string, StoredRepo>()
  readonly tokens = new Map<string, TokenGrant>()
  readonly commitListeners = new Set<(commit: GitCommit) => void>()
  /** Logins seen as tokens or actors: commit authors with these names link to accounts. */
  readonly knownLogins = new Set<string>()
  /** Consumed by the next write that moves a branch (contents PUT/DELETE, ref PATCH). */
  readonly conflictFaults: Array<409 | 422> = []
  /** GraphQL primary-limit answers to give (seconds to the reset), one per request. */
  readonly graphqlRateLimits: number[] = []
  /** Test hook: trees with more entries than this come back cut, with `truncated: true`. */
  treeEntryLimit: number | null = null
  private readonly nextIds: Record<IdKind, number> = {
    repo: 1000,
    pull: 2_000_000,
    comment: 3_000_000,
    label: 4_000_000,
    ruleset: 100
  }
  private otherWriterChanges = 0

  nextId(kind: IdKind): number {
    this.nextIds[kind] += 1
    return this.nextIds[kind]
  }

  // ---- users ----

  user(login: string): SandboxUser {
    this.knownLogins.add(login)
    // github-actions[bot]'s real user id, as in its noreply address.
    if (login === GITHUB_ACTIONS_LOGIN) return { login, id: 41898282, type: 'Bot' }
    return {
      login,
      id: 10_000_000 + stableNumber(login, 9_000_000),
      type: login.endsWith('[bot]') ? 'Bot' : 'User'
    }
  }

  person(login: string, at: Date = new Date()): Person {
    const user = this.user(login)
    return {
      name: login,
      email: `${user.id}+${login}@users.noreply.github.com`,
      date: gitDate(at)
    }
  }

  // ---- repositories ----

  key(owner: string, name: string): string {
    return `${owner}/${name}`.toLowerCase()
  }

  findRepo(owner: string, name: string): StoredRepo | undefined {
    return this.repos.get(this.key(owner, name))
  }

  mustRepo(owner: string, name: string): StoredRepo {
    const repo = this.findRepo(owner, name)
    if (!repo) throw new Error(`sandbox: no repository ${owner}/${name}`)
    return repo
  }

  mustPull(repo: StoredRepo, number: number): StoredPull {
    const pull = repo.pulls.get(number)
    if (!pull) throw new Error(`sandbox: no pull request #${number} in ${repo.owner}/${repo.name}`)
    return pull
  }

  createRepo(
    owner: string,
    name: string,
    defaultBranch: string,
    files: Record<string, string>,
    settings: Partial<RepoSettings>
  ): StoredRepo {
    if (this.repos.has(this.key(owner, name))) {
      throw new Error(`sandbox: repository ${owner}/${name} exists`)
    }
    const id = this.nextId('repo')
    const repo: StoredRepo = {
      id,
      nodeId: `R_kgDO${Buffer.from(String(id)).toString('base64url')}`,
      owner,
      name,
      defaultBranch,
      settings: { ...DEFAULT_SETTINGS, ...settings },
      git: new GitObjects(),
      branches: new Map(),
      branchMovedAt: new Map(),
      commitBranch: new Map(),
      rulesets: [],
      protections: new Map(),
      pulls: new Map(),
      comments: new Map(),
      labels: new Map(),
      nextIssueNumber: 1
    }
    this.repos.set(this.key(owner, name), repo)
    const person = { ...OTHER_WRITER, date: gitDate() }
    this.commitChanges(repo, defaultBranch, textChanges(files), 'Initial commit', person)
    return repo
  }

  // ---- git ----

  head(repo: StoredRepo, branch: string): CommitObject | undefined {
    const sha = repo.branches.get(branch)
    return sha === undefined ? undefined : repo.git.commits.get(sha)
  }

  /** A branch name, or a commit SHA (full). */
  resolve(repo: StoredRepo, ref: string): CommitObject | undefined {
    const name = ref.replace(/^refs\/heads\//, '').replace(/^heads\//, '')
    return this.head(repo, name) ?? repo.git.commits.get(ref)
  }

  files(repo: StoredRepo, commit: CommitObject | undefined | null): Map<string, FileEntry> {
    return commit ? repo.git.flatten(commit.tree) : new Map()
  }

  blobText(repo: StoredRepo, sha: string): string {
    return (repo.git.blobs.get(sha) ?? Buffer.alloc(0)).toString('utf8')
  }

  readText(repo: StoredRepo, branch: string, path: string): string | null {
    const entry = this.files(repo, this.head(repo, branch)).get(path)
    return entry ? this.blobText(repo, entry.sha) : null
  }

  /** path -> new text (null: deleted) between two commits' trees; sorted by path. */
  diff(repo: StoredRepo, from: string | null, to: string): Map<string, string | null> {
    const before = this.files(repo, from ? repo.git.commits.get(from) : null)
    const after = this.files(repo, repo.git.commits.get(to))
    const changes = new Map<string, string | null>()
    const paths = [...new Set([...before.keys(), ...after.keys()])].sort()
    for (const path of paths) {
      const a = before.get(path)
      const b = after.get(path)
      if (a?.sha === b?.sha && a?.mode === b?.mode) continue
      changes.set(path, b ? this.blobText(repo, b.sha) : null)
    }
    return changes
  }

  /** A tree for `base` with text changes applied (null deletes); returns the root tree SHA. */
  treeWith(repo: StoredRepo, base: CommitObject | undefined, changes: Map<string, string | null>) {
    const files = this.files(repo, base)
    for (const [path, content] of changes) {
      if (content === null) files.delete(path)
      else
        files.set(path, { mode: '100644', sha: repo.git.writeBlob(Buffer.from(content, 'utf8')) })
    }
    return repo.git.treeFromFiles(files)
  }

  /** Commits text changes on top of a branch (created when absent) and moves it. */
  commitChanges(
    repo: StoredRepo,
    branch: string,
    changes: Map<string, string | null>,
    message: string,
    author: Person,
    committer: Person = author
  ): CommitObject {
    const parent = this.head(repo, branch)
    const commit = repo.git.writeCommit({
      tree: this.treeWith(repo, parent, changes),
      parents: parent ? [parent.sha] : [],
      author,
      committer,
      message
    })
    this.moveRef(repo, branch, commit.sha)
    return commit
  }

  /** The other writer of injectConflicts: commits an unrelated file so the branch head really moves. */
  otherWriterCommit(repo: StoredRepo, branch: string): CommitObject {
    this.otherWriterChanges += 1
    const n = this.otherWriterChanges
    return this.commitChanges(
      repo,
      branch,
      new Map([[`other-writer/change-${n}.txt`, `change ${n}\n`]]),
      `Unrelated change ${n}`,
      { ...OTHER_WRITER, date: gitDate() }
    )
  }

  /** Points a branch at a commit (creating it) and tells the listeners what changed. */
  moveRef(repo: StoredRepo, branch: string, sha: string): void {
    const before = repo.branches.get(branch) ?? null
    if (before === sha) return
    repo.branches.set(branch, sha)
    repo.branchMovedAt.set(branch, Date.now())
    for (const commit of repo.git.commitsBetween(before, sha)) {
      if (!repo.commitBranch.has(commit.sha)) repo.commitBranch.set(commit.sha, branch)
    }
    const event: GitCommit = {
      owner: repo.owner,
      repo: repo.name,
      branch,
      sha,
      changes: this.diff(repo, before, sha)
    }
    for (const listener of this.commitListeners) {
      try {
        listener(event)
      } catch (error) {
        // A broken subscriber must not break the API answer; make it visible instead.
        console.error('github sandbox: onCommit listener failed', error)
      }
    }
  }

  deleteBranch(repo: StoredRepo, branch: string): void {
    const sha = repo.branches.get(branch)
    if (sha === undefined) return
    repo.branches.delete(branch)
    repo.branchMovedAt.set(branch, Date.now())
    for (const pull of repo.pulls.values()) if (pull.head === branch) pull.lastHeadSha = sha
  }

  /**
   * A three-way merge by path: `theirs` changes since the merge base applied to `ours`. A path both
   * sides changed differently is a conflict (GitHub would show the pull request as dirty).
   */
  mergeFiles(
    repo: StoredRepo,
    ours: string,
    theirs: string
  ): { files: Map<string, FileEntry>; conflicts: string[] } {
    const baseSha = repo.git.mergeBase(ours, theirs)
    const base = this.files(repo, baseSha ? repo.git.commits.get(baseSha) : null)
    const mine = this.files(repo, repo.git.commits.get(ours))
    const other = this.files(repo, repo.git.commits.get(theirs))
    const files = new Map(mine)
    const conflicts: string[] = []
    for (const path of new Set([...base.keys(), ...other.keys()])) {
      const was = base.get(path)?.sha
      const now = other.get(path)
      if (was === now?.sha) continue
      const current = mine.get(path)?.sha
      if (current !== was && current !== now?.sha) {
        conflicts.push(path)
        continue
      }
      if (now) files.set(path, now)
      else files.delete(path)
    }
    return { files, conflicts: conflicts.sort() }
  }
}

export function textChanges(files: Record<string, string | null>): Map<string, string | null> {
  return new Map(Object.entries(files))
}
