// One commit onto an existing branch with GraphQL createCommitOnBranch: ONE content-creating
// request per attempt, where the Git Data API takes three (tree, commit, ref). GitHub counts GraphQL
// mutations against the same content limit (80 a minute, 500 an hour, "Rate limits for the REST
// API"), and fifty gates racing for one branch used up the 500 with lost races (bench --matrix 50).
// It is compare-and-set: GitHub commits only while the branch is at expectedHeadOid.
import type { GraphqlError } from '../pull-request/state.js'
import { commitFailureStep, commitRefusal, gitBlobSha, isSentChange } from './commit-answer.js'
import { commitFiles } from './diff-files.js'
import {
  callClock,
  type GitHubCall,
  githubCall,
  githubError,
  rateLimitOf,
  requestOptions,
  userError
} from '../client/call.js'
import {
  CHECKED_WRITE_ATTEMPTS,
  mayHaveStored,
  withoutBlindRetry,
  withoutRateLimitResend
} from '../client/resend.js'

const TOKEN = { input: 'gitops-token', needs: '`contents: write`' }

export const CREATE_COMMIT_ON_BRANCH = `mutation CreateCommitOnBranch($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid url } }
}`

export interface CommitOnBranchInput extends GitHubCall {
  branch: string
  /** The head the change was judged at: GitHub commits only while the branch is still there. */
  expectedHead: string
  /** Headline, a blank line, then the body (as git stores it). */
  message: string
  additions: Array<{ path: string; content: string }>
  deletions: string[]
}

export interface CommitMade {
  sha: string
  url: string
}

/** Another writer moved the branch first: re-read the head and build the change again. */
export class LostRace extends Error {
  override name = 'LostRace'
}

/**
 * GitHub refused the mutation for a rate limit, and it was not re-sent (octokit.ts): change.ts
 * waits (commit-rate-limit.ts), re-reads the head and judges the change again.
 */
export class RateLimitedCommit extends Error {
  override name = 'RateLimitedCommit'
  constructor(readonly answer: unknown) {
    super('GitHub refused the commit for a rate limit', { cause: answer })
  }
}

/** A refusal that is the branch's rules or protection; change.ts turns it into BranchProtectedError. */
export class RefusedByRules extends Error {
  override name = 'RefusedByRules'
}

// Rules that refuse a direct commit (GitHub's ruleset rule types, REST "Get rules for a branch").
const BLOCKS_DIRECT_COMMIT = new Set(['pull_request', 'update', 'required_status_checks'])

/** The mutation may have landed, and the branch could not be read to tell: nothing is claimed. */
export class CommitOutcomeUnknown extends Error {
  override name = 'CommitOutcomeUnknown'
}

export async function commitOnBranch(input: CommitOnBranchInput): Promise<CommitMade> {
  for (let attempt = 1; ; attempt++) {
    let failure: unknown
    try {
      return await sendCommit(input)
    } catch (error) {
      failure = error
    }
    if (input.signal?.aborted)
      throw userError(failure, input, TOKEN, `committing to ${input.branch}`)
    const errors = graphqlErrors(failure)
    const step = commitFailureStep({
      rateLimited: rateLimitOf(failure, callClock(input).now()) !== undefined,
      errors,
      mayHaveStored: mayHaveStored(failure)
    })
    if (step === 'rate-limited') throw new RateLimitedCommit(failure)
    if (step === 'error')
      throw userError(failure, input, TOKEN, `committing to branch ${input.branch}`)
    if (step === 'refused') {
      const refused = await refusal(input, errors ?? [])
      // A resend after a lost answer meets STALE_DATA when the first copy landed late: ours.
      const landed = attempt > 1 && refused instanceof LostRace ? await ourCommit(input) : null
      if (landed) return landed
      throw refused
    }
    // The answer was lost, and the commit may have landed: the branch tells, never a blind resend.
    await callClock(input).sleep(200 * attempt, input.signal)
    const { since, ours } = await lookOnBranch(input, failure)
    if (ours) return { sha: ours.sha, url: ours.url }
    if (since.length > 0) throw new LostRace(`branch ${input.branch} moved`)
    // Still at the expected head: nothing was stored. Send again (still compare-and-set), or stop.
    if (attempt >= CHECKED_WRITE_ATTEMPTS) throw notStored(input, failure, attempt)
  }
}

/** The commits since the expected head, and ours; a read that fails leaves the outcome unknown. */
async function lookOnBranch(
  input: CommitOnBranchInput,
  failure: unknown
): Promise<{ since: Landed[]; ours: Landed | undefined }> {
  let since: Landed[]
  try {
    since = await commitsSince(input)
  } catch (error) {
    if (input.signal?.aborted) throw error
    throw new CommitOutcomeUnknown(
      `GitHub gave no clear answer to the commit to branch ${input.branch} of ${input.owner}/${input.repo} (${answerText(input, failure)}), and the branch could not be read to tell whether it landed (${messageOf(error)}). Check the branch: a re-run finds its own manifest and does not commit it twice.`,
      { cause: failure }
    )
  }
  return { since, ours: await oursOrUnproven(since, input) }
}

/**
 * findOurs, where a diff that cannot be read proves nothing: the branch moved (a lost race), and
 * change.ts re-reads the head and judges the change by content, finding the manifest in place.
 * That path reports no commit of this run (commit-sha empty) although it made one.
 */
async function oursOrUnproven(
  since: Landed[],
  input: CommitOnBranchInput
): Promise<Landed | undefined> {
  try {
    return await findOurs(since, input)
  } catch (error) {
    if (input.signal?.aborted) throw error
    return undefined
  }
}

/** The branch proved it: still at the expected head after the last unclear answer. */
function notStored(input: CommitOnBranchInput, failure: unknown, attempts: number): Error {
  return new Error(
    `GitHub gave no clear answer to the commit to branch ${input.branch} of ${input.owner}/${input.repo} ${attempts} times (last: ${answerText(input, failure)}); the branch is still at ${input.expectedHead.slice(0, 7)}, so nothing was committed. Check https://www.githubstatus.com and run the job again.`,
    { cause: failure }
  )
}

function answerText(input: CommitOnBranchInput, failure: unknown): string {
  const errors = graphqlErrors(failure)
  if (errors && !githubError(failure))
    return `GraphQL: ${errors.map((e) => e.message.replace(/\s+/g, ' ').trim()).join('; ')}`
  return messageOf(userError(failure, input, TOKEN, `committing to branch ${input.branch}`))
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

async function sendCommit(input: CommitOnBranchInput): Promise<CommitMade> {
  const [headline, ...rest] = input.message.split('\n')
  const body = rest.join('\n').replace(/^\n/, '')
  const answer = await input.octokit.graphql<{ createCommitOnBranch: { commit: CommitAnswer } }>(
    CREATE_COMMIT_ON_BRANCH,
    {
      input: {
        branch: {
          repositoryNameWithOwner: `${input.owner}/${input.repo}`,
          branchName: input.branch
        },
        expectedHeadOid: input.expectedHead,
        message: body === '' ? { headline } : { headline, body },
        fileChanges: {
          additions: input.additions.map(({ path, content }) => ({
            path,
            contents: Buffer.from(content, 'utf8').toString('base64')
          })),
          deletions: input.deletions.map((path) => ({ path }))
        }
      },
      // Neither plugin re-sends it: after a wait the head it is pinned to has likely moved.
      request: withoutRateLimitResend(withoutBlindRetry(requestOptions(input)))
    }
  )
  const { commit } = answer.createCommitOnBranch
  return { sha: commit.oid, url: commit.url }
}

interface CommitAnswer {
  oid: string
  url: string
}

/** The errors of a GraphQL answer (@octokit/graphql's GraphqlResponseError); undefined for others. */
function graphqlErrors(error: unknown): GraphqlError[] | undefined {
  const errors = (error as { errors?: unknown })?.errors
  if (!Array.isArray(errors) || errors.length === 0) return undefined
  return errors.map((e: { type?: unknown; message?: unknown }) => ({
    ...(typeof e?.type === 'string' ? { type: e.type } : {}),
    message: typeof e?.message === 'string' ? e.message : ''
  }))
}

async function refusal(input: CommitOnBranchInput, errors: GraphqlError[]): Promise<Error> {
  const decision = commitRefusal(errors)
  if (decision === 'lost-race') return new LostRace(`branch ${input.branch} moved`)
  // GitHub's words, kept as data on one line.
  const said = errors
    .map((e) => `${e.type ?? 'ERROR'}: ${e.message.replace(/\s+/g, ' ').trim()}`)
    .join('; ')
  if (decision === 'protected') return new RefusedByRules(said)
  const where = `branch ${input.branch} of ${input.owner}/${input.repo}`
  if (decision === 'access')
    return new Error(
      `GitHub refused the commit to ${where} (${said}). gitops-token needs ${TOKEN.needs} there.`
    )
  // guess: a ruleset's refusal comes with a type of its own (keystatic#1598 says it is not
  // BRANCH_PROTECTION_RULE_VIOLATION); the branch's rules, read as data, tell whether it was one.
  if (await rulesBlockCommits(input)) return new RefusedByRules(said)
  return new Error(`GitHub refused the commit to ${where} (${said}).`)
}

async function rulesBlockCommits(input: CommitOnBranchInput): Promise<boolean> {
  try {
    const { data } = await input.octokit.rest.repos.getBranchRules({
      owner: input.owner,
      repo: input.repo,
      branch: input.branch,
      per_page: 100,
      request: requestOptions(input)
    })
    return data.some((rule) => BLOCKS_DIRECT_COMMIT.has(rule.type))
  } catch (error) {
    if (input.signal?.aborted) throw error
    // Cannot tell: the refusal is reported as it came.
    return false
  }
}

/**
 * Our commit: the first one after the expected head (only it can have that parent on a line of
 * first parents) whose diff is exactly the change sent (commit-answer.ts), read from GitHub's
 * own diff of that commit (REST "Get a commit"), never from its message or author.
 */
async function findOurs(since: Landed[], input: CommitOnBranchInput): Promise<Landed | undefined> {
  const first = since[0]
  if (first?.parent !== input.expectedHead) return undefined
  const sent = {
    additions: input.additions.map((a) => ({ path: a.path, blobSha: gitBlobSha(a.content) })),
    deletions: input.deletions
  }
  return isSentChange(await commitFiles(input, first.sha), sent) ? first : undefined
}

/** Our commit after a resend met STALE_DATA; null when the branch cannot prove it (a lost race). */
async function ourCommit(input: CommitOnBranchInput): Promise<CommitMade | null> {
  try {
    const ours = await oursOrUnproven(await commitsSince(input), input)
    return ours ? { sha: ours.sha, url: ours.url } : null
  } catch (error) {
    if (input.signal?.aborted) throw error
    return null
  }
}

interface Landed {
  sha: string
  parent: string | undefined
  message: string
  url: string
}

/** The commits on the branch since the expected head (REST compare), oldest first. */
async function commitsSince(input: CommitOnBranchInput): Promise<Landed[]> {
  const { data } = await githubCall(input, TOKEN, `reading branch ${input.branch}`, (request) =>
    input.octokit.rest.repos.compareCommitsWithBasehead({
      owner: input.owner,
      repo: input.repo,
      basehead: `${input.expectedHead}...${input.branch}`,
      per_page: 100,
      request
    })
  )
  return data.commits.map((c) => ({
    sha: c.sha,
    parent: c.parents[0]?.sha,
    message: c.commit.message,
    url: c.html_url
  }))
}
