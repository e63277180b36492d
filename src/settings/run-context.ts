// The workflow run as the runner describes it: GITHUB_* variables and the event payload.
import { readFileSync } from 'node:fs'
import type { RunContext } from './settings.js'
import { shortSha } from './naming.js'

type Env = Record<string, string | undefined>

export function readRunContext(env: Env): RunContext {
  const payload = readEventPayload(env.GITHUB_EVENT_PATH)
  const pr = record(payload.pull_request)
  const head = record(pr.head)
  const headCommit = record(payload.head_commit)
  const prNumber = typeof pr.number === 'number' ? pr.number : Number(payload.number)
  const pullRequest =
    Number.isInteger(prNumber) && typeof head.sha === 'string'
      ? { number: prNumber, headSha: head.sha }
      : undefined
  const subject =
    typeof pr.title === 'string' && pullRequest
      ? `PR #${pullRequest.number}: ${pr.title}`
      : typeof headCommit.message === 'string'
        ? headCommit.message
        : ''
  return {
    eventName: env.GITHUB_EVENT_NAME ?? '',
    ref: env.GITHUB_REF ?? '',
    sha: env.GITHUB_SHA ?? '',
    pullRequest,
    serverUrl: (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, ''),
    repository: env.GITHUB_REPOSITORY ?? '',
    runId: env.GITHUB_RUN_ID ?? '',
    runAttempt: env.GITHUB_RUN_ATTEMPT ?? '1',
    workspace: env.GITHUB_WORKSPACE || process.cwd(),
    subject
  }
}

function readEventPayload(path: string | undefined): Record<string, unknown> {
  if (!path) return {}
  try {
    return record(JSON.parse(readFileSync(path, 'utf8')))
  } catch {
    return {}
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
}

/**
 * The commit a version of this run is named after: the PR head for pull requests (as in
 * pr-<number>-<sha7>), else GITHUB_SHA. A new run of the same PR head, after its base moved, has
 * another merge commit but the same version name, and must still know the version as its own.
 */
export function revisionOf(context: RunContext): string {
  return context.pullRequest && context.eventName.startsWith('pull_request')
    ? context.pullRequest.headSha
    : context.sha
}

// The run without its attempt, and never empty: it goes into the version message marker and the
// commit text, which a re-run attempt must see unchanged. The report links the attempt
// (report/links.ts runUrlOf).
export function runUrlWithoutAttempt(context: RunContext): string {
  return `${context.serverUrl}/${context.repository}/actions/runs/${context.runId}`
}

export function defaultSubject(context: RunContext): string {
  const sha = revisionOf(context)
  return context.subject.split(/\r?\n/)[0]?.trim() || `Commit ${shortSha(sha)}`
}
