// Pull request state as GitHub shows it over time (unknown -> blocked -> clean), and opening one.
// Merging is in merge.ts; the REST routes in pulls.ts.
import { gitDate } from './git-objects.js'
import { requiredApprovals, requiredChecks } from './rules.js'
import type { SandboxState, StoredPull, StoredRepo } from './state.js'

export type MergeableState = 'unknown' | 'clean' | 'blocked' | 'dirty' | 'draft'

export interface Mergeability {
  mergeable: boolean | null
  state: MergeableState
  pendingChecks: string[]
  conflicts: string[]
}

export function headSha(repo: StoredRepo, pull: StoredPull): string {
  return repo.branches.get(pull.head) ?? pull.lastHeadSha
}

/**
 * What GitHub shows: while it computes (mergeabilityDelayMs after the pull request opened or its
 * head or base moved) null/'unknown'; then 'dirty' on conflicts, 'blocked' while a required review
 * is missing or a required check is still running (checksDurationMs after each push), else 'clean'.
 * `settled` skips the background delay (a merge request computes it at once).
 */
export function mergeability(
  state: SandboxState,
  repo: StoredRepo,
  pull: StoredPull,
  now = Date.now(),
  settled = false
): Mergeability {
  const none = { pendingChecks: [], conflicts: [] }
  // guess: closed pull requests show mergeable null and state unknown.
  if (pull.state !== 'open') return { mergeable: null, state: 'unknown', ...none }
  const headMoved = repo.branchMovedAt.get(pull.head) ?? pull.createdAtMs
  const baseMoved = repo.branchMovedAt.get(pull.base) ?? pull.createdAtMs
  const knownAt =
    Math.max(pull.createdAtMs, headMoved, baseMoved) + repo.settings.mergeabilityDelayMs
  if (!settled && now < knownAt) return { mergeable: null, state: 'unknown', ...none }
  const base = repo.branches.get(pull.base)
  const conflicts = base ? state.mergeFiles(repo, base, headSha(repo, pull)).conflicts : []
  if (conflicts.length > 0)
    return { mergeable: false, state: 'dirty', pendingChecks: [], conflicts }
  if (pull.draft) return { mergeable: true, state: 'draft', ...none }
  const checksDone = now >= Math.max(headMoved, pull.createdAtMs) + repo.settings.checksDurationMs
  const pendingChecks = checksDone ? [] : requiredChecks(repo, pull.base)
  const reviewMissing = pull.approvals.size < requiredApprovals(repo, pull.base)
  if (reviewMissing || pendingChecks.length > 0) {
    return { mergeable: true, state: 'blocked', pendingChecks, conflicts: [] }
  }
  return { mergeable: true, state: 'clean', ...none }
}

/** Opens a pull request (the API and the sandbox's scripted humans share this). */
export function openPull(
  state: SandboxState,
  repo: StoredRepo,
  input: {
    head: string
    base: string
    title: string
    body?: string | null
    draft?: boolean
    login: string
  }
): StoredPull {
  const number = repo.nextIssueNumber++
  const id = state.nextId('pull')
  const now = new Date()
  const when = gitDate(now)
  const pull: StoredPull = {
    number,
    id,
    nodeId: `PR_kwDO${Buffer.from(`${repo.id}:${number}`).toString('base64url')}`,
    title: input.title,
    body: input.body ?? null,
    head: input.head,
    base: input.base,
    lastHeadSha: repo.branches.get(input.head) ?? '',
    user: input.login,
    state: 'open',
    draft: input.draft ?? false,
    createdAt: when,
    createdAtMs: now.getTime(),
    updatedAt: when,
    closedAt: null,
    closedBy: null,
    mergedAt: null,
    mergedBy: null,
    mergeCommitSha: null,
    labels: [],
    autoMerge: null,
    approvals: new Set(),
    cleanSinceMs: null
  }
  state.user(input.login)
  repo.pulls.set(number, pull)
  return pull
}
