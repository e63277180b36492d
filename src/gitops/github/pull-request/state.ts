// Pure decisions of pull-request mode, and its typed errors: what a pull request's state means for
// the wait, what a merge answer means for the next attempt, and what an auto-merge refusal means.
// Status codes and GraphQL error types decide first. Where GitHub gives nothing but a sentence
// (several refusals share one status or one type), fixed texts are matched whole, anchored, so that
// a branch or check name chosen by a user cannot change the decision.

export type PullRequestState = 'merged' | 'closed' | 'waiting'

export interface PullRequestStatus {
  state: string
  /** Only in the full form (GET one pull request). */
  merged?: boolean | null
  merged_at?: string | null
}

/** merged (either field says so) | closed without merge | waiting (open). */
export function pullRequestState(pr: PullRequestStatus): PullRequestState {
  if (pr.merged === true || (pr.merged_at ?? null) !== null) return 'merged'
  if (pr.state === 'closed') return 'closed'
  return 'waiting'
}

/**
 * A merged pull request of the branch's tip counts as done only while gitops-branch still holds
 * its manifest: a revert, or another run's keep-tests, may have removed it since. Otherwise the
 * gate opens a new pull request.
 */
export function mergedIsDone(
  pr: { merged: boolean; headSha: string },
  tipSha: string,
  manifestOnBase: boolean
): boolean {
  return pr.merged && pr.headSha === tipSha && manifestOnBase
}

export interface Mergeability {
  mergeable: boolean | null
  mergeable_state: string
  draft?: boolean
}

export type MergeReadiness = 'computing' | 'conflicts' | 'draft' | 'try'

/** Before a merge request: GitHub computes mergeability in the background (null meanwhile). */
export function mergeReadiness(pr: Mergeability): MergeReadiness {
  if (pr.draft === true || pr.mergeable_state === 'draft') return 'draft'
  if (pr.mergeable === null || pr.mergeable_state === 'unknown') return 'computing'
  if (pr.mergeable === false || pr.mergeable_state === 'dirty') return 'conflicts'
  // clean, blocked, behind, unstable, has_hooks: only the merge answer tells whether it may go now.
  return 'try'
}

export type MergeRefusalKind =
  | 'conflicts'
  | 'draft'
  | 'method-not-allowed'
  | 'head-moved'
  | 'reviews'
  | 'rules'
  | 'forbidden'
  | 'other'

export type MergeAnswer =
  { action: 'retry'; reason: string } | { action: 'refuse'; kind: MergeRefusalKind; reason: string }

// 405 is GitHub's one status for every merge it will not do now (REST docs, "Merge a pull
// request"), so the sentence is all there is. Rulesets list each violation between blank lines
// under this header (test/sandbox/github/rules.ts cites the measured forms).
const RULE_HEADER = 'Repository rule violations found'
// Measured: 'Required status check "ci" is expected.' and "6 of 6 required status checks are
// expected." guess: the "is pending" / "is in progress" forms.
const PENDING_CHECK =
  /^(?:Required status check "[^"\n]*" (?:is expected|is pending|is in progress)|\d+ of \d+ required status checks (?:are expected|are pending|are in progress))\.$/
const NOT_MERGEABLE = /^Pull Request is not mergeable$/
// guess: GitHub's 405 when the base moved while it merged.
const BASE_MODIFIED = /^Base branch was modified\. Review and try the merge again\.$/
const METHOD_NOT_ALLOWED =
  /^(?:Merge commits|Squash merges|Rebase merges) are not allowed on this repository\.$/
// Measured for one review; guess: the plural form.
const REVIEW_REQUIRED =
  /^At least \d+ approving reviews? (?:is|are) required by reviewers with write access\.$/

function violations(message: string): string[] {
  const lines = message
    .split(/\n+/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
  return lines[0] === RULE_HEADER ? lines.slice(1) : lines
}

/** What a failed `PUT /pulls/{n}/merge` means: try again later, or stop with GitHub's reason. */
export function mergeAnswerDecision(status: number, message: string): MergeAnswer {
  const reason = message.trim()
  // 409: the head no longer is the sha we asked to merge (REST docs).
  if (status === 409) return { action: 'refuse', kind: 'head-moved', reason }
  if (status !== 405) return { action: 'refuse', kind: 'other', reason }
  const lines = violations(reason)
  if (lines.length === 1 && (NOT_MERGEABLE.test(lines[0]) || BASE_MODIFIED.test(lines[0]))) {
    // Also answered while GitHub recomputes; the next read tells conflicts and drafts apart.
    return { action: 'retry', reason }
  }
  if (lines.length > 0 && lines.every((line) => PENDING_CHECK.test(line))) {
    return { action: 'retry', reason }
  }
  if (lines.length === 1 && METHOD_NOT_ALLOWED.test(lines[0])) {
    return { action: 'refuse', kind: 'method-not-allowed', reason }
  }
  if (lines.some((line) => REVIEW_REQUIRED.test(line))) {
    return { action: 'refuse', kind: 'reviews', reason }
  }
  return { action: 'refuse', kind: 'rules', reason }
}

export interface GraphqlError {
  type?: string
  message: string
}

export type AutoMergeDecision = 'not-allowed' | 'merge-now' | 'forbidden' | 'refused'

// Every refusal of enablePullRequestAutoMerge has the type UNPROCESSABLE, and the REST field
// allow_auto_merge is shaped by the token's permissions (reported false to a minimal Actions
// token while the setting was on: Aethersailor/SubConverter-Extended#106), so the text decides.
// Measured: "Pull request Auto merge is not allowed for this repository" (newer reports drop the
// "Pull request " prefix) and "Pull request Pull request is in clean status"; guess: the same
// refusal for unstable and has_hooks, which are mergeable too.
const AUTO_MERGE_NOT_ALLOWED =
  /^(?:Pull request )?Auto merge is not allowed for this repository\.?$/
const ALREADY_MERGEABLE =
  /^(?:Pull request )?Pull request is in (?:clean|unstable|has_hooks) status\.?$/

/** What the errors of enablePullRequestAutoMerge mean. */
export function autoMergeDecision(errors: GraphqlError[]): AutoMergeDecision {
  if (errors.some((error) => error.type === 'FORBIDDEN')) return 'forbidden'
  const unprocessable = errors.filter((error) => error.type === 'UNPROCESSABLE')
  const says = (pattern: RegExp) =>
    unprocessable.some((error) => pattern.test(error.message.trim()))
  if (says(AUTO_MERGE_NOT_ALLOWED)) return 'not-allowed'
  if (says(ALREADY_MERGEABLE)) return 'merge-now'
  return 'refused'
}

// ---- errors ----

/** GitHub's text, shown as data on one line. */
function quoted(text: string): string {
  return JSON.stringify(text.replace(/\s+/g, ' ').trim())
}

export class ClosedWithoutMergeError extends Error {
  constructor(
    readonly number: number,
    readonly url: string,
    /** The login that closed it; null when GitHub did not say. */
    readonly closedBy: string | null
  ) {
    super(
      `Pull request #${number} (${url}) was closed without merging` +
        `${closedBy ? ` by ${closedBy}` : ''}: the test manifest never reached the GitOps ` +
        'branch, so nothing was tested or promoted. Reopen and merge it, or re-run the gate to ' +
        'open a new one.'
    )
    this.name = 'ClosedWithoutMergeError'
  }
}

export class MergeTimeoutError extends Error {
  constructor(
    readonly number: number,
    readonly url: string,
    /** What GitHub last showed, e.g. "open, mergeable_state blocked". */
    readonly lastSeen: string
  ) {
    super(
      `Pull request #${number} (${url}) was not merged within merge-timeout-seconds ` +
        `(last seen: ${lastSeen}). It stays open: merge it, or raise merge-timeout-seconds ` +
        'and re-run.'
    )
    this.name = 'MergeTimeoutError'
  }
}

export class AutoMergeNotAllowedError extends Error {
  constructor(
    readonly repository: string,
    readonly number: number,
    readonly githubReason: string
  ) {
    super(
      `GitHub refused to enable auto-merge on pull request #${number}: auto-merge is not allowed ` +
        `for ${repository} (GitHub: ${quoted(githubReason)}). Allow auto-merge in the ` +
        'repository settings (Settings, General, Pull Requests, "Allow auto-merge"), or set ' +
        '`pull-request-merge: immediate`.'
    )
    this.name = 'AutoMergeNotAllowedError'
  }
}

const REFUSAL_ADVICE: Record<MergeRefusalKind, string> = {
  conflicts: 'It conflicts with its base branch: resolve the conflict, or close it and re-run.',
  draft: 'It is a draft: mark it ready for review.',
  'method-not-allowed':
    'Set pull-request-merge-method to a merge method that the repository allows.',
  'head-moved':
    'Its branch has commits that the gate did not make: look at the branch, then close the ' +
    'pull request and re-run.',
  reviews:
    'The base branch requires an approving review: set `pull-request-merge: auto` so that ' +
    'GitHub merges after the review, or `manual`.',
  rules:
    'The rules of the base branch refuse this merge: set `pull-request-merge: auto` or ' +
    '`manual`, or let the token bypass the rules.',
  forbidden:
    'The token needs `pull-requests: write` and `contents: write` on the GitOps repository.',
  other: 'Look at the pull request on GitHub: its checks, reviews and merge settings.'
}

export class MergeRefusedError extends Error {
  constructor(
    readonly number: number,
    readonly url: string,
    readonly kind: MergeRefusalKind,
    /** GitHub's own words: data, never used to decide. */
    readonly githubReason: string,
    readonly advice = REFUSAL_ADVICE[kind]
  ) {
    super(
      `GitHub refused to merge pull request #${number} (${url}) (GitHub: ${quoted(githubReason)}). ` +
        advice
    )
    this.name = 'MergeRefusedError'
  }
}
