// The seam between the steps and the Git host of the GitOps repository (Kargo's pkg/gitprovider is
// the model: one interface, one registered implementation per host). The steps see only this file
// and the host-neutral rules (prune.ts, branch-guard.ts); GitHub implements it in github-host.ts,
// the tests in memory (test/gitops/memory/host.ts). No type of a host's client appears here.
import type { Delivery, MergeMethod, MergeStrategy } from '../settings/settings.js'
import type { Clock } from '../timing/clock.js'
import type { GateWrites } from './branch-guard.js'
import type { DroppedRemoval, JudgedRemoval } from './prune.js'

/** What every call of a step brings: the run's cancel, its clock, and the step's deadline. */
export interface HostCall {
  signal: AbortSignal
  clock: Clock
  /** Epoch ms on `clock`: a wait the host asks for (a rate limit) must end by then. */
  deadline?: number
}

// ---- the preflight: read-only ----

export interface GitOpsFacts {
  /** 'missing': not found, which hosts also answer for a repository the token may not see. */
  repository: 'found' | 'missing' | 'bad-token' | 'forbidden'
  /** The branch asked for, or the repository's default branch. */
  branch: string
  branchExists: boolean
  /** Absent when the host did not say. */
  canWrite?: boolean
  /** What requires a pull request for the branch, e.g. 'a repository ruleset'; null: nothing found (rulesKnown says whether the rules could be read). */
  pullRequestRequiredBy: string | null
  /** false when a read failed: we cannot tell whether a pull request is required. */
  rulesKnown: boolean
  /** Whether the repository allows a merge the host does once the checks pass; absent when the host did not say. */
  allowAutoMerge?: boolean
  /** Every rule that refuses a direct commit to the branch, and whether the token may bypass it; absent: not read. */
  commitRules?: CommitRule[]
}

/** A rule that refuses a direct commit to the branch. */
export interface CommitRule {
  /** The host's rule type, e.g. 'pull_request', 'required_status_checks', 'push restrictions'. */
  rule: string
  /** Where it comes from, e.g. 'ruleset "main" (id 7)' or 'classic branch protection'. */
  by: string
  /** The token may bypass it for a direct commit. */
  bypass: boolean
}

export interface GitOpsExpectations {
  owner: string
  repo: string
  delivery: Delivery
  /** pull-request-merge; 'auto' needs the repository to allow auto-merge. */
  merge: MergeStrategy
}

export interface GitOpsProblem {
  problem: string
  fix: string
}

// ---- the commit ----

export interface ChangeInput {
  /** The branch to commit to; '' = the default branch. */
  branch: string
  /** Pull-request mode: create `branch` from the head of this branch when it does not exist. */
  baseBranch?: string
  /** The test manifests, all in the one commit; each is created, or already there the same. */
  manifests: ManifestChange[]
  /** Files to remove in the same commit, each only while the judged blob is still at its path. */
  deletions: JudgedRemoval[]
  message: string
}

export interface ManifestChange {
  path: string
  content: string
  isSame(existing: string): boolean
}

/** One commit or none: an identical manifest and nothing to remove make no commit. */
export interface ChangeOutcome {
  status: 'created' | 'unchanged'
  /** '' when unchanged. */
  commitSha: string
  /** Absent when unchanged. */
  commitUrl?: string
  branch: string
  deleted: string[]
  /** Removals left out at the head committed onto, and why. */
  dropped: DroppedRemoval[]
  /** How often another writer moved the branch first. */
  lostRaces: number
  /** How often the gate waited for GitHub's rate limit before it judged again; absent when never. */
  rateLimitPauses?: number
}

export interface ManifestFile {
  path: string
  content: string
  /** The blob SHA the content was read from: what keep-tests judges. */
  sha: string
}

export interface ManifestListing {
  files: ManifestFile[]
  /** Why the listing is not complete; '' when whole. */
  cut: string
}

// ---- the pull request and its merge ----

export interface OpenInput {
  head: string
  base: string
  title: string
  body: string
  labels: string[]
  /** false: the base no longer holds the manifest, so a merged pull request is not done. */
  manifestOnBase?: boolean
}

export interface HostPullRequest {
  number: number
  url: string
  /** The host's own ID of the pull request (GitHub: the GraphQL node ID). */
  nodeId: string
  /** The head when it was opened or found: the only commit the gate merges. */
  headSha: string
  /** Who opened it: the account the gate writes as, when the gate opened it. */
  author: string | null
  state: 'open' | 'closed'
  merged: boolean
  /** An existing pull request: open, or already merged. */
  reused: boolean
}

export interface MergeInput {
  pullRequest: { number: number; nodeId: string; url?: string; headSha: string }
  strategy: MergeStrategy
  method: MergeMethod
  /** Epoch ms: `immediate` retries a merge the host does not allow yet until then. */
  deadline: number
  /** gitops-branch: a pull request into another base is a foreign change, never merged. */
  expectedBase?: string
}

export type MergeRequested =
  { kind: 'manual' } | { kind: 'auto-merge-enabled' } | { kind: 'merged'; mergeCommitSha: string }

export interface MergeWaitInput {
  number: number
  /** Epoch ms on the call's clock. */
  deadline: number
  /** An open pull request whose head moved away from this commit fails at once (head-moved). */
  expectedHeadSha?: string
  /** gitops-branch: a pull request whose base changed fails at once (a foreign change). */
  expectedBase?: string
}

export interface MergedPullRequest {
  number: number
  url: string
  mergeCommitSha: string
  mergedBy: string | null
  /** The head the host merged. */
  headSha: string
}

export interface BranchGuardInput {
  /** The pull request whose base, opener and diff are judged. */
  number: number
  /** The branch name, for the message. */
  branch: string
  /** The head commit about to be merged (or the branch name: its head now). */
  headSha: string
  /** The gate's change; the viewer is read by the host. */
  gate: Omit<GateWrites, 'viewer'>
}

/**
 * The failures the steps answer differently, whatever host raised them; `said` is the host's own
 * words where it gave some (data, never used to decide).
 */
export type HostFailureKind =
  | 'branch-protected'
  | 'manifest-conflict'
  | 'rate-limited'
  | 'merge-timeout'
  | 'head-moved'
  /** The commit may have landed, and the branch could not be read to tell. */
  | 'outcome-unknown'

export interface HostFailure {
  kind: HostFailureKind
  said: string
}

export interface HostLinks {
  /** Undefined when a part is unknown: never a guessed link. */
  commit(sha: string): string | undefined
  pullRequest(number: number): string | undefined
  file(ref: string, path: string): string | undefined
}

/**
 * What the steps need of the host of the GitOps repository. Every method takes the step's call;
 * every error's message is fit to show to the user (it says what failed and what to check).
 */
export interface GitHost {
  /** The host's name, for messages: 'GitHub'. */
  readonly name: string
  /** The repository, for messages: 'owner/repo'. */
  readonly repository: string
  readonly links: HostLinks
  /** What gitops-token needs, in the host's words, for the advice of a failed write. */
  readonly tokenNeeds: { write: string; pullRequests: string }

  /** Preflight: the repository, the branch ('' = the default), the token's rights and the rules. */
  inspect(branch: string, call: HostCall): Promise<GitOpsFacts>
  /** What the run cannot do there, each with the fix in the host's words. Pure. */
  problems(facts: GitOpsFacts, want: GitOpsExpectations): GitOpsProblem[]
  /** A file's text at a branch or commit; null when it is not there. */
  readFile(ref: string, path: string, call: HostCall): Promise<string | null>
  /** The branch's head commit; throws when the branch is not there. */
  branchHead(branch: string, call: HostCall): Promise<{ sha: string; url: string }>
  /** The YAML files directly in `folder` at `ref`, with their text and blob SHA. */
  listManifests(ref: string, folder: string, call: HostCall): Promise<ManifestListing>
  /** A gate branch with nothing of its own (behind its base) is moved to the base's head. */
  forwardSpentBranch(branch: string, base: string, call: HostCall): Promise<boolean>
  /** One commit of the manifest and the deletions (never forced; lost races are retried). */
  commit(change: ChangeInput, call: HostCall): Promise<ChangeOutcome>
  /** Reuses the open pull request of head into base, or a merged one of the tip; else opens one. */
  openPullRequest(open: OpenInput, call: HostCall): Promise<HostPullRequest>
  /** Throws ForeignChangeError (branch-guard.ts): the head holds what the gate did not write. */
  guardBranch(guard: BranchGuardInput, call: HostCall): Promise<void>
  /** As the strategy says: nothing (manual), the host's auto-merge (auto), a merge (immediate). */
  requestMerge(merge: MergeInput, call: HostCall): Promise<MergeRequested>
  /** Until merged (the merge commit), closed without merge, the head moved, or the deadline. */
  waitForMerge(wait: MergeWaitInput, call: HostCall): Promise<MergedPullRequest>
  /** Auto-merge off; runs after a cancel too, so it has its own limit. false: it did not happen. */
  disableAutoMerge(pullRequest: { nodeId: string }, timeoutMs: number): Promise<boolean>
  /** Which of the failures the steps tell apart an error of this host is; null: none of them. */
  failureOf(error: unknown): HostFailure | null
}
