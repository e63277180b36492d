// The writers the report is published through (report/publish.ts): core's outputs and job
// summary, the run's safe log, and the pull-request commenter of comment-on-pr, built here from
// the settings and the clients so that report/ imports nothing above it.
import * as core from '@actions/core'
import { githubClient } from './clients.js'
import { upsertComment } from './workflow-repository/pr-comment.js'
import { actionsLog } from './log/log.js'
import { COMMENT_MARKER } from './report/comment.js'
import type { Commenter, ReportWriters } from './report/publish.js'
import type { Settings } from './settings/settings.js'

type Env = Record<string, string | undefined>

const COMMENT_LIMIT_MS = 15_000
const COMMENT_CALL_LIMIT_MS = 10_000

export function reportWriters(settings: Settings | null, env: Env): ReportWriters {
  return {
    setOutput: (name, value) => core.setOutput(name, value),
    writeSummary,
    log: actionsLog,
    commenter: settings ? commenterOf(settings, env) : null,
    now: () => Date.now()
  }
}

async function writeSummary(text: string): Promise<void> {
  core.summary.emptyBuffer()
  // core.summary reads the variable from process.env itself.
  if (!process.env.GITHUB_STEP_SUMMARY) {
    core.info('GITHUB_STEP_SUMMARY is not set; the job summary is not written.')
    return
  }
  await core.summary.addRaw(text).write()
}

function commenterOf(settings: Settings, env: Env): Commenter | null {
  const pullRequestNumber = settings.pullRequestNumber
  if (!settings.commentOnPr || pullRequestNumber === null) return null
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  return {
    pullRequestNumber,
    upsert: (body) =>
      upsertComment({
        octokit: githubClient(settings.githubToken, env.GITHUB_API_URL ?? '', actionsLog),
        owner,
        repo,
        issueNumber: pullRequestNumber,
        marker: `${COMMENT_MARKER}:${settings.test.name}`,
        body,
        signal: AbortSignal.timeout(COMMENT_LIMIT_MS),
        // The signal does not stop the throttling plugin's wait; the deadline refuses such a wait.
        deadline: Date.now() + COMMENT_LIMIT_MS,
        requestTimeoutMs: COMMENT_CALL_LIMIT_MS
      })
  }
}
