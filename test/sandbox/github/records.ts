// The GitHub sandbox's stored records: repositories, their settings, pull requests, comments,
// labels, and users (SandboxState in state.ts holds them).
import type { GitObjects } from './git-objects.js'
import type { ClassicProtection, Ruleset } from './rules.js'

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
