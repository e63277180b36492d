// comment-on-pr: one comment per pull request and marker, created once and updated on later runs.
// The hidden marker (`<!-- coder-template-gate:<marker> -->`, the first line) finds it, but anyone
// can write a marker, so only a comment of the token's own account counts as ours: another user's
// copy is never edited, and never stops us from writing our own.
//
// The account comes from GraphQL `viewer`, which answers for every kind of token; GET /user answers
// 403 to an installation token (GITHUB_TOKEN, a GitHub App's; measured:
// actions/create-github-app-token#258, anthropics/claude-code-action#538), so no login is guessed.
// guess: for an installation token `viewer` is the App's bot account (`<app-slug>[bot]`), the
// login its comments carry.
import {
  callClock,
  type GitHubCall,
  githubCall,
  requestOptions,
  repoOf,
  type TokenAdvice,
  userError
} from '../gitops/github/client/call.js'
import {
  CHECKED_WRITE_ATTEMPTS,
  mayHaveStored,
  withoutBlindRetry
} from '../gitops/github/client/resend.js'

export interface UpsertCommentInput extends GitHubCall {
  /** The pull request (its issue number). */
  issueNumber: number
  /** Names this comment among the gate's: letters, digits and `._:/-`. */
  marker: string
  /** The comment without the marker line. */
  body: string
  /** The account whose comment may be updated; default: the token's own (GraphQL viewer). */
  login?: string
  /** The pause before looking again after a lost answer to a create. Default 1000; tests pass 1. */
  lostAnswerPauseMs?: number
}

const GITHUB_TOKEN_ADVICE: TokenAdvice = {
  input: 'github-token',
  needs: '`pull-requests: write` (in the workflow: `permissions: pull-requests: write`)'
}

const PER_PAGE = 100
// Bounds the read at 10,000 comments; a pull request with more gets a new comment.
const MAX_PAGES = 100

export function markerLine(marker: string): string {
  // `>` is refused, so no marker can end the HTML comment early and show itself.
  if (!/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/.test(marker)) {
    throw new Error(
      `The comment marker ${JSON.stringify(marker)} may hold only letters, digits and ._:/-`
    )
  }
  return `<!-- coder-template-gate:${marker} -->`
}

/** Whether a comment is ours with this marker: our account wrote it, and its first line is the marker. */
export function isOwnMarkedComment(
  comment: { user?: { login: string } | null; body?: string | null },
  login: string,
  line: string
): boolean {
  if (comment.user?.login.toLowerCase() !== login.toLowerCase()) return false
  // GitHub stores bodies edited on the web with CRLF; trim drops the CR.
  return (comment.body ?? '').split('\n', 1)[0].trim() === line
}

/** Creates or updates the one marked comment of our account; returns its URL. */
export async function upsertComment(input: UpsertCommentInput): Promise<string> {
  const line = markerLine(input.marker)
  const body = `${line}\n${input.body}`
  const login = input.login ?? (await ownLogin(input))
  const existing = await findComment(input, login, line)
  if (existing?.body === body) return existing.html_url
  if (existing) return updateComment(input, existing.id, body)
  return createComment(input, login, line, body)
}

async function updateComment(
  input: UpsertCommentInput,
  commentId: number,
  body: string
): Promise<string> {
  const { data } = await githubCall(
    input,
    GITHUB_TOKEN_ADVICE,
    `updating our comment on pull request #${input.issueNumber}`,
    (request) =>
      input.octokit.rest.issues.updateComment({
        ...repoOf(input),
        comment_id: commentId,
        body,
        request
      })
  )
  return data.html_url
}

/**
 * A create is not idempotent: after a 5xx or no answer the comment may be stored all the same, so
 * it is looked for again before it is written again (never the retry plugin's blind re-send).
 */
async function createComment(
  input: UpsertCommentInput,
  login: string,
  line: string,
  body: string
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { data } = await input.octokit.rest.issues.createComment({
        ...repoOf(input),
        issue_number: input.issueNumber,
        body,
        request: withoutBlindRetry(requestOptions(input))
      })
      return data.html_url
    } catch (error) {
      if (input.signal?.aborted || attempt >= CHECKED_WRITE_ATTEMPTS || !mayHaveStored(error))
        throw userError(
          error,
          input,
          GITHUB_TOKEN_ADVICE,
          `commenting on pull request #${input.issueNumber}`
        )
      await callClock(input).sleep((input.lostAnswerPauseMs ?? 1000) * attempt, input.signal)
      const stored = await findComment(input, login, line)
      if (stored)
        return stored.body === body ? stored.html_url : updateComment(input, stored.id, body)
    }
  }
}

const VIEWER = `query Viewer { viewer { login } }`

async function ownLogin(input: UpsertCommentInput): Promise<string> {
  const data = await githubCall(
    input,
    GITHUB_TOKEN_ADVICE,
    'reading the account of github-token',
    (request) => input.octokit.graphql<{ viewer: { login: string } }>(VIEWER, { request })
  )
  return data.viewer.login
}

type Comment = Awaited<
  ReturnType<UpsertCommentInput['octokit']['rest']['issues']['listComments']>
>['data'][number]

/** The oldest marked comment of our account, page by page (no Link header needed). */
async function findComment(
  input: UpsertCommentInput,
  login: string,
  line: string
): Promise<Comment | null> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { data } = await githubCall(
      input,
      GITHUB_TOKEN_ADVICE,
      `reading the comments of pull request #${input.issueNumber}`,
      (request) =>
        input.octokit.rest.issues.listComments({
          ...repoOf(input),
          issue_number: input.issueNumber,
          per_page: PER_PAGE,
          page,
          request
        })
    )
    const ours = data.find((comment) => isOwnMarkedComment(comment, login, line))
    if (ours) return ours
    if (data.length < PER_PAGE) return null
  }
  return null
}
