// What an answer to the commit mutation (createCommitOnBranch) means: read by status codes and
// GraphQL's structured `type`, never by message text. Pure; table in
// test/unit/gitops/github/commit/commit-refusal.test.ts.
import type { GraphqlError } from '../pull-request/state.js'

export type CommitRefusal = 'lost-race' | 'protected' | 'access' | 'other'

/**
 * What a refusal of the mutation means, by GitHub's structured `type` alone; the messages are data,
 * never read to decide. guess, from observed answers, not from GitHub's docs: a moved head is
 * STALE_DATA ("Expected branch to point to ... but it did not.", e.g.
 * ministryofjustice/modernisation-platform#11985), classic protection BRANCH_PROTECTION_RULE_VIOLATION
 * (handled so by Thinkmill/keystatic). A lost race only when every error says so. Pure.
 */
export function commitRefusal(errors: readonly GraphqlError[]): CommitRefusal {
  const types = errors.map((error) => error.type)
  if (types.includes('BRANCH_PROTECTION_RULE_VIOLATION')) return 'protected'
  if (types.includes('FORBIDDEN')) return 'access'
  if (types.length > 0 && types.every((type) => type === 'STALE_DATA')) return 'lost-race'
  return 'other'
}

/** What a failed mutation calls for. Pure; rows in test/unit/gitops/github/commit/commit-refusal.test.ts. */
export type CommitFailureStep = 'rate-limited' | 'look' | 'refused' | 'error'

/**
 * A rate limit first (GraphQL's primary limit is an answer with errors too: RATE_LIMITED). Then any
 * answer that may have stored is looked for on the branch before anything is reported: a 5xx, no
 * answer, our time limit, and a GraphQL error without a `type`. GitHub's GraphQL timeout is an HTTP
 * 200 with `data: null` and such an error ("Something went wrong while executing your query. This
 * may be the result of a timeout..."), and the mutation may have landed (guess, from reports such
 * as https://github.com/orgs/community/discussions/24631; GitHub documents no type for it). The
 * retry plugin turns that text into a 500 today; this does not depend on it. Typed errors only are
 * a refusal, read by their types.
 */
export function commitFailureStep(failure: {
  rateLimited: boolean
  errors: readonly GraphqlError[] | undefined
  mayHaveStored: boolean
}): CommitFailureStep {
  if (failure.rateLimited) return 'rate-limited'
  if (failure.mayHaveStored) return 'look'
  if (failure.errors === undefined) return 'error'
  return failure.errors.some((error) => error.type === undefined) ? 'look' : 'refused'
}
