// What an answer to the commit mutation (createCommitOnBranch) means: read by status codes and
// GraphQL's structured `type`, never by message text. Pure; table in
// test/unit/gitops/github/commit/commit-refusal.test.ts.
import { createHash } from 'node:crypto'
import { type BranchFile, effectsOf } from '../../branch-guard.js'
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

/** The blob SHA git gives these bytes: sha1("blob <length>\0" + bytes), as `git hash-object` prints. */
export function gitBlobSha(text: string): string {
  const bytes = Buffer.from(text, 'utf8')
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}

export interface SentChange {
  additions: Array<{ path: string; blobSha: string }>
  deletions: string[]
}

/**
 * Whether one commit's diff against its parent is exactly the change sent: each addition at its
 * path with the bytes sent (by blob SHA), each deletion removed, and nothing else. After a lost
 * answer this, not the message or the author (anyone can write those), says the commit is ours.
 * A rename counts as the removal of its previous path and the addition of its path.
 */
export function isSentChange(files: readonly BranchFile[], sent: SentChange): boolean {
  const added = new Map(sent.additions.map((a) => [a.path, a.blobSha]))
  const deleted = new Set(sent.deletions)
  const seen = new Set<string>()
  for (const effect of files.flatMap(effectsOf)) {
    seen.add(effect.path)
    const fits =
      effect.status === 'removed'
        ? deleted.has(effect.path)
        : added.has(effect.path) && effect.sha === added.get(effect.path)
    if (!fits) return false
  }
  return [...added.keys(), ...deleted].every((path) => seen.has(path))
}
