// The workflow run as the runner describes it: GITHUB_* variables and the event payload.
import { readFileSync } from 'node:fs'
import type { RunContext } from './inputs.js'

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
