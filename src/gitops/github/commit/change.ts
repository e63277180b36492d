// The GitOps change as ONE commit: the manifest, plus the deletions of keep-tests, through GraphQL
// createCommitOnBranch (commit-on-branch.ts: one content-creating request per attempt, pinned to
// the head the change was judged at). Create only: the test spec is immutable, so a manifest
// present with another spec is a conflict. Identical content and nothing to delete make no commit,
// so a re-run changes nothing. Pull-request mode first creates its branch at the base's head (REST).
import type { ChangeInput, ChangeOutcome } from '../../host.js'
import {
  callClock,
  DEFAULT_GITHUB_REQUEST_TIMEOUT_MS,
  type GitHubCall,
  githubCall,
  githubError,
  rateLimitText,
  requestOptions
} from '../client/call.js'
import { afterCommitRateLimit } from '../client/commit-rate-limit.js'
import { removalsAtHead } from '../../prune.js'
import { nextRaceAttempt } from '../client/race-backoff.js'
import { readBlobAt } from './read-file.js'
import { commitOnBranch, LostRace, RateLimitedCommit, RefusedByRules } from './commit-on-branch.js'
import { CHECKED_WRITE_ATTEMPTS, mayHaveStored, withoutBlindRetry } from '../client/resend.js'

const TOKEN = { input: 'gitops-token', needs: '`contents: write`' }

/** The host-neutral change (gitops/host.ts), with GitHub's call and the race loop's knobs. */
export interface CommitChangeInput extends GitHubCall, ChangeInput {
  /** Lost races are retried until this time (on `clock`). Default: 10 minutes from the start. */
  deadline?: number
  /** The race backoff's jitter, in [0, 1). Default the toolkit's (src/timing/backoff.ts); tests fix it. */
  random?: () => number
}

/** The host-neutral outcome of one change (gitops/host.ts), as GitHub gives it. */
export type CommitOutcome = ChangeOutcome

/** The file exists with other content: the spec is immutable, a new version needs a new name. */
export class ManifestConflictError extends Error {
  override name = 'ManifestConflictError'
  constructor(repository: string, branch: string, path: string) {
    // The CRD's CEL rule refuses spec changes: "spec is immutable, create a new CoderTemplateTest".
    super(
      `${path} already exists on branch ${branch} of ${repository} with a different spec. The CoderTemplateTest spec is immutable, so the file was left unchanged. A new template version needs a new test name: push it under a new version name, or set test-name.`
    )
  }
}

/** A ruleset or a classic protection refused the write: retrying cannot help. */
export class BranchProtectedError extends Error {
  override name = 'BranchProtectedError'
  constructor(repository: string, branch: string, said: string) {
    super(
      `GitHub refused the commit to branch ${branch} of ${repository}: the branch is protected (${said.replace(/\s+/g, ' ').trim()}). Changes must be made through a pull request: set gitops-mode: pull-request.`
    )
  }
}

export async function commitChange(input: CommitChangeInput): Promise<CommitOutcome> {
  const branch = input.branch || (await defaultBranch(input))
  const clock = callClock(input)
  const deadline = input.deadline ?? clock.now() + DEFAULT_RACE_WINDOW_MS
  for (let lostRaces = 0, pauses = 0; ;) {
    input.signal?.throwIfAborted()
    try {
      const outcome = { ...(await commitOnce(input, branch)), lostRaces }
      return pauses === 0 ? outcome : { ...outcome, rateLimitPauses: pauses }
    } catch (error) {
      // Not a lost race: wait as GitHub asked, then the head is read and the change judged again.
      if (error instanceof RateLimitedCommit) {
        await rateLimitPause(input, branch, error.answer, ++pauses, deadline)
        continue
      }
      if (!(error instanceof LostRace)) throw error
      lostRaces += 1
      // Another writer moved the branch: pause, re-read the head and build the commit again.
      // Never forced; a protection refusal is not a LostRace and fails at once.
      const wait = nextRaceAttempt(lostRaces, input.random?.(), clock.now(), deadline)
      if (wait === null) throw keptMoving(input, branch, lostRaces)
      // A cancel during the pause rejects with the signal's reason, as everywhere else.
      await clock.sleep(wait, input.signal)
    }
  }
}

const DEFAULT_RACE_WINDOW_MS = 600_000

async function rateLimitPause(
  input: CommitChangeInput,
  branch: string,
  answer: unknown,
  pause: number,
  deadline: number
): Promise<void> {
  const clock = callClock(input)
  input.signal?.throwIfAborted()
  const step = afterCommitRateLimit(answer, {
    now: clock.now(),
    deadline,
    requestTimeoutMs: input.requestTimeoutMs ?? DEFAULT_GITHUB_REQUEST_TIMEOUT_MS,
    pause,
    random: input.random?.(),
    aborted: false
  })
  if (step.action === 'not-limited') throw answer
  if (step.action === 'give-up') {
    const where = `${input.owner}/${input.repo}`
    const text = rateLimitText(step.limited, `committing to branch ${branch}`, where, step.decision)
    throw new Error(text, { cause: answer })
  }
  // A cancel during the wait rejects with the signal's reason.
  await clock.sleep(step.waitMs, input.signal)
}

function keptMoving(input: CommitChangeInput, branch: string, lostRaces: number): Error {
  return new Error(
    `Branch ${branch} of ${input.owner}/${input.repo} kept moving while the gate committed to it (${lostRaces} writes of others came first, until the deadline); run the job again.`
  )
}

async function defaultBranch(input: CommitChangeInput): Promise<string> {
  const { data } = await githubCall(input, TOKEN, 'reading the repository', (request) =>
    input.octokit.rest.repos.get({ owner: input.owner, repo: input.repo, request })
  )
  return data.default_branch
}

async function commitOnce(
  input: CommitChangeInput,
  branch: string
): Promise<Omit<CommitOutcome, 'lostRaces'>> {
  const repository = `${input.owner}/${input.repo}`
  let head = await headOf(input, branch)
  const creating = head === null
  if (head === null) {
    if (!input.baseBranch) throw new Error(`Branch ${branch} does not exist in ${repository}.`)
    head = await headOf(input, input.baseBranch)
    if (head === null)
      throw new Error(`Branch ${input.baseBranch} does not exist in ${repository}.`)
  }
  const additions = []
  for (const manifest of input.manifests) {
    const existing = (await readBlobAt({ ...input, ref: head, path: manifest.path }))?.content
    if (existing !== undefined && !manifest.isSame(existing))
      throw new ManifestConflictError(repository, branch, manifest.path)
    if (existing === undefined) additions.push(manifest)
  }
  // keep-tests decided on one listing; what is removed is decided again at this head.
  const atHead = new Map<string, string | null>()
  for (const { path } of input.deletions)
    atHead.set(path, (await readBlobAt({ ...input, ref: head, path }))?.sha ?? null)
  const { remove, dropped } = removalsAtHead(input.deletions, atHead)
  if (creating) await createBranch(input, branch, head)
  if (additions.length === 0 && remove.length === 0)
    return { status: 'unchanged', commitSha: '', branch, deleted: [], dropped }
  const commit = await commitOnBranch({
    ...input,
    branch,
    expectedHead: head,
    message: input.message,
    additions,
    deletions: remove
  }).catch((error: unknown) => {
    if (error instanceof RefusedByRules)
      throw new BranchProtectedError(repository, branch, error.message)
    throw error
  })
  return {
    status: 'created',
    commitSha: commit.sha,
    commitUrl: commit.url,
    branch,
    deleted: remove,
    dropped
  }
}

async function headOf(input: CommitChangeInput, branch: string): Promise<string | null> {
  try {
    const { data } = await input.octokit.rest.git.getRef({
      owner: input.owner,
      repo: input.repo,
      ref: `heads/${branch}`,
      request: requestOptions(input)
    })
    return data.object.sha
  } catch (error) {
    if (githubError(error)?.status === 404) return null
    return githubCall(input, TOKEN, `reading branch ${branch}`, () => Promise.reject(error))
  }
}

/**
 * Creates the branch at `sha` (pull-request mode), never forced. The retry plugin's blind re-send
 * is off: after a lost answer the branch itself tells whether the write happened.
 */
async function createBranch(input: CommitChangeInput, branch: string, sha: string): Promise<void> {
  const { octokit, owner, repo } = input
  for (let attempt = 1; ; attempt++) {
    try {
      const request = withoutBlindRetry(requestOptions(input))
      await octokit.rest.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha, request })
      return
    } catch (error) {
      if (input.signal?.aborted || !mayHaveStored(error)) return refused(input, branch, error)
      // Looked for after every unclear answer, the last one too.
      await callClock(input).sleep(200 * attempt, input.signal)
      const now = await headOf(input, branch)
      if (now === sha) return
      // Made by another writer: a lost race. Still absent: the write did not happen, send again.
      if (now !== null) throw new LostRace(`branch ${branch} was created by another writer`)
      if (attempt >= CHECKED_WRITE_ATTEMPTS) return refused(input, branch, error)
    }
  }
}

async function refused(input: CommitChangeInput, branch: string, error: unknown): Promise<never> {
  const answer = githubError(error)
  // Protection first: its texts may come with 409 too, which must not be retried as a race.
  if (answer && isProtection(answer.status, answer.message))
    throw new BranchProtectedError(`${input.owner}/${input.repo}`, branch, answer.message)
  if (answer && isConcurrentWrite(answer.status, answer.message)) throw new LostRace(answer.message)
  return githubCall(input, TOKEN, `creating branch ${branch}`, () => Promise.reject(error))
}

/**
 * GitHub answers both a lost race and a protection refusal of a ref write with 422 and no
 * structured field that tells them apart, so the documented texts decide, anchored at the start.
 */
export function isConcurrentWrite(status: number, message: string): boolean {
  return (
    status === 409 ||
    (status === 422 && /^(Update is not a fast forward|Reference already exists)\b/.test(message))
  )
}

export function isProtection(status: number, message: string): boolean {
  return (
    (status === 422 || status === 409) &&
    /^(Repository rule violations found|Protected branch update failed for |Cannot (force-push to|delete) this protected branch)/.test(
      message
    )
  )
}
