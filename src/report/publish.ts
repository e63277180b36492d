// Writes the report everywhere it belongs: the step outputs, the job summary, the end of the log,
// one annotation, the exit code, and (comment-on-pr) the pull-request comment. Each write is
// independent: one that fails is a warning, never a lost summary.
import * as core from '@actions/core'
import { githubClient } from '../clients.js'
import { upsertComment } from '../gitops/pr-comment.js'
import { actionsLog, writeSafely } from '../log.js'
import { messageOf } from '../steps/step.js'
import type { Gate } from '../wiring.js'
import { errorAnnotation } from './annotation.js'
import { COMMENT_MARKER, renderComment } from './comment.js'
import { epilogueLines } from './epilogue.js'
import { writeOutputs } from './outputs.js'
import { isSuccess, type RunReport } from './report.js'
import { headline, writeSummary } from './summary.js'

export async function publishReport(
  report: RunReport,
  gate: Gate | null,
  env: Record<string, string | undefined>
): Promise<void> {
  writeOutputs(report)
  await writeSummary(report, Date.now()).catch((error: unknown) =>
    core.warning(`Could not write the job summary: ${messageOf(error)}`)
  )
  for (const line of epilogueLines(report)) writeSafely(line)
  // The annotation and exit code first: a throttled or failing comment must not delay or lose them.
  annotate(report)
  await commentOnPullRequest(report, gate, env)
}

/** The outcome as one annotation, and the exit code. Annotation text is escaped by core. */
function annotate(report: RunReport): void {
  if (isSuccess(report.outcome)) {
    core.notice(headline(report), { title: 'Coder template gate' })
    return
  }
  if (report.outcome === 'invalid-input') {
    for (const problem of report.problems) core.error(problem)
    core.setFailed(report.error)
    return
  }
  // The reasons too, not only the headline (annotation.ts); core escapes the newlines as %0A.
  const { title, message } = errorAnnotation(report)
  core.error(message, { title })
  // Not core.setFailed: it would add a second error annotation that holds the headline only.
  process.exitCode = core.ExitCode.Failure
}

const COMMENT_LIMIT_MS = 15_000
const COMMENT_CALL_LIMIT_MS = 10_000

async function commentOnPullRequest(
  report: RunReport,
  gate: Gate | null,
  env: Record<string, string | undefined>
): Promise<void> {
  const settings = gate?.settings
  if (!settings?.commentOnPr || settings.pullRequestNumber === null) return
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  try {
    const url = await upsertComment({
      octokit: githubClient(settings.githubToken, env.GITHUB_API_URL ?? '', actionsLog),
      owner,
      repo,
      issueNumber: settings.pullRequestNumber,
      marker: `${COMMENT_MARKER}:${settings.test.name}`,
      body: renderComment(report),
      signal: AbortSignal.timeout(COMMENT_LIMIT_MS),
      // The signal does not stop the throttling plugin's wait; the deadline refuses such a wait.
      deadline: Date.now() + COMMENT_LIMIT_MS,
      requestTimeoutMs: COMMENT_CALL_LIMIT_MS
    })
    // The URL is GitHub's answer: data, never a workflow command.
    writeSafely(`Commented on pull request #${settings.pullRequestNumber}: ${url}`)
  } catch (error) {
    core.warning(
      `Could not comment on pull request #${settings.pullRequestNumber}: ${messageOf(error)}`
    )
  }
}
