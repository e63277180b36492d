// The GitHub sandbox's data: repositories (git objects, branches, settings, rules, pull requests,
// comments), tokens and users. Every branch move goes through moveRef, which tells onCommit
// listeners which paths changed, so the GitOps sync sees the same thing whichever API wrote.
import type { GitCommit } from '../contracts.js'
import {
  type CommitObject,
  type FileEntry,
  GitObjects,
  gitDate,
  type Person
} from './git-objects.js'
import type { ClassicProtection, Ruleset } from './rules.js'

export type Access = 'none' | 'read' | 'write'
export type RepoRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read'
/** installation: a GitHub App token such as GITHUB_TOKEN; user: a personal access token. */
export type TokenKind = 'installation' | 'user'

export interface SandboxTokenOptions {
  /** Default github-actions[bot] (the GITHUB_TOKEN's identity). */
  login?: string
  kind?: TokenKind
  /** The role on every repository; sets the defaults below. Default 'write'. */
  role?: RepoRole
  contents?: Access
  pullRequests?: Access
  issues?: Access
  /** Reading classic branch protection needs administration read. */
  administration?: Access
  /**
   * What GET /repos/{o}/{r} shows in `permissions`. 'all-false' is what was reported for GitHub App
   * installation tokens (lindell/multi-gitter#224); 'omitted' leaves the field out.
   */
  repositoryPermissions?: 'accurate' | 'all-false' | 'omitted'
}

export interface TokenGrant {
  login: string
  kind: TokenKind
  role: RepoRole
  contents: Access
  pullRequests: Access
  issues: Access
  administration: Access
  repositoryPermissions: 'accurate' | 'all-false' | 'omitted'
}

const ROLE_DEFAULTS: Record<
  RepoRole,
  Pick<TokenGrant, 'contents' | 'pullRequests' | 'issues' | 'administration'>
> = {
  admin: { contents: 'write', pullRequests: 'write', issues: 'write', administration: 'write' },
  maintain: { contents: 'write', pullRequests: 'write', issues: 'write', administration: 'none' },
  write: { contents: 'write', pullRequests: 'write', issues: 'write', administration: 'none' },
  triage: { contents: 'read', pullRequests: 'write', issues: 'write', administration: 'none' },
  read: { contents: 'read', pullRequests: 'read', issues: 'read', administration: 'none' }
}

export function tokenGrant(options: SandboxTokenOptions = {}): TokenGrant {
  const role = options.role ?? 'write'
  const defaults = ROLE_DEFAULTS[role]
  return {
    login: options.login ?? GITHUB_ACTIONS_LOGIN,
    kind: options.kind ?? 'installation',
    role,
    contents: options.contents ?? defaults.contents,
    pullRequests: options.pullRequests ?? defaults.pullRequests,
    issues: options.issues ?? defaults.issues,
    administration: options.administration ?? defaults.administration,
    repositoryPermissions: options.repositoryPermissions ?? 'accurate'
  }
}

export const GITHUB_ACTIONS_LOGIN = 'github-actions[bot]'

export interface RepoSettings {
  /** GitHub's default is false: auto-merge must be allowed per repository. */
  allowAutoMerge: boolean
  allowSquashMerge: boolean
  allowMergeCommit: boolean
  allowRebaseMerge: boolean
  deleteBranchOnMerge: boolean
  /**
   * GitHub computes mergeability in the background: for this long after a pull request is opened
   * or its head or base moves, it shows `mergeable: null` and `mergeable_state: 'unknown'`.
   */
  mergeabilityDelayMs: number
  /** How long the required status checks take to pass after each push to a pull request head. */
  checksDurationMs: number
  /** Auto-merge merges this long after the pull request became mergeable. */
  autoMergeDelayMs: number
}

export const DEFAULT_SETTINGS: RepoSettings = {
  allowAutoMerge: false,
  allowSquashMerge: true,
  allowMergeCommit: true,
  allowRebaseMerge: true,
  deleteBranchOnMerge: false,
  mergeabilityDelayMs: 0,
  checksDurationMs: 0,
  autoMergeDelayMs: 0
}

export type MergeMethod = 'merge' | 'squash' | 'rebase'

export interface AutoMerge {
  enabledBy: string
  mergeMethod: MergeMethod
  enabledAt: string
  commitTitle: string | null
  commitMessage: string | null
}

export interface StoredPull {
  number: number
  id: number
  nodeId: string
  title: string
  body: string | null
  /** Branch names in this repository (no forks in the sandbox). */
  head: string
  base: string
  /** The head SHA when the head branch is gone (deleted after merge). */
  lastHeadSha: string
  user: string
  state: 'open' | 'closed'
  draft: boolean
  createdAt: string
  createdAtMs: number
  updatedAt: string
  closedAt: string | null
  closedBy: string | null
  mergedAt: string | null
  mergedBy: string | null
  mergeCommitSha: string | null
  labels: string[]
  autoMerge: AutoMerge | null
  approvals: Set<string>
  /** When auto-merge first saw it mergeable (reset when it stops being so). */
  cleanSinceMs: number | null
}

export interface StoredComment {
  id: number
  nodeId: string
  issueNumber: number
  body: string
  user: string
  createdAt: string
  updatedAt: string
}

export interface StoredLabel {
  id: number
  nodeId: string
  name: string
  color: string
  description: string | null
}

export interface StoredRepo {
  id: number
  nodeId: string
  owner: string
  name: string
  defaultBranch: string
  settings: RepoSettings
  git: GitObjects
  branches: Map<string, string>
  /** When each branch last moved (Date.now()). */
  branchMovedAt: Map<string, number>
  /** The branch each commit was first seen on (SandboxCommit.branch). */
  commitBranch: Map<string, string>
  rulesets: Ruleset[]
  protections: Map<string, ClassicProtection>
  pulls: Map<number, StoredPull>
  comments: Map<number, StoredComment>
  labels: Map<string, StoredLabel>
  nextIssueNumber: number
}

export interface SandboxUser {
  login: string
  id: number
  type: 'User' | 'Bot'
}

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
