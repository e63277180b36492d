// Writes the report everywhere it belongs: the step outputs, the job summary, the end of the log,
// one annotation, the exit code, and (comment-on-pr) the pull-request comment. Each write is
// independent: one that fails is a warning, never a lost summary. The writers come from the
// wiring (src/report-writers.ts), so that report/ knows no client and no setting.
import * as core from '@actions/core'
import { messageOf, type StepLog } from '../steps/step.js'
import { errorAnnotation } from './annotation.js'
import { renderComment } from './comment.js'
import { epilogueLines } from './epilogue.js'
import { writeOutputs } from './outputs.js'
import { isSuccess, type RunReport } from './report.js'
import { headline, renderSummary } from './summary.js'

/** Upserts the gate's comment on one pull request and answers its URL. */
export interface Commenter {
  pullRequestNumber: number
  upsert(body: string): Promise<string>
}

export interface ReportWriters {
  /** One step output (core.setOutput). */
  setOutput(name: string, value: string): void
  /** The job summary's text, written where the runner shows it. */
  writeSummary(text: string): Promise<void>
  /** The run's safe log: the epilogue quotes text from other systems. */
  log: StepLog
  /** null when comment-on-pr is off or there is no pull request to comment on. */
  commenter: Commenter | null
  now(): number
}

export async function publishReport(report: RunReport, writers: ReportWriters): Promise<void> {
  try {
    writeOutputs(report, writers.setOutput)
  } catch (error) {
    writers.log.warning(`Could not write the step outputs: ${messageOf(error)}`)
  }
  try {
    await writers.writeSummary(renderSummary(report, writers.now()))
  } catch (error) {
    writers.log.warning(`Could not write the job summary: ${messageOf(error)}`)
  }
  for (const line of epilogueLines(report)) writers.log.info(line)
  // The annotation and exit code first: a throttled or failing comment must not delay or lose them.
  annotate(report)
  await commentOnPullRequest(report, writers)
}

/** The outcome as one annotation, and the exit code. Annotation text is escaped by core. */
function annotate(report: RunReport): void {
  if (isSuccess(report.outcome)) {
    core.notice(headline(report), { title: 'Coder template gate' })
    return
  }
  if (report.outcome === 'invalid-input') {
    for (const problem of report.failure?.problems ?? []) core.error(problem)
    core.setFailed(report.failure?.error ?? '')
    return
  }
  // The reasons too, not only the headline (annotation.ts); core escapes the newlines as %0A.
  const { title, message } = errorAnnotation(report)
  core.error(message, { title })
  // Not core.setFailed: it would add a second error annotation that holds the headline only.
  process.exitCode = core.ExitCode.Failure
}

async function commentOnPullRequest(report: RunReport, writers: ReportWriters): Promise<void> {
  const { commenter, log } = writers
  if (!commenter) return
  try {
    const url = await commenter.upsert(renderComment(report))
    // The URL is GitHub's answer: data, never a workflow command.
    log.info(`Commented on pull request #${commenter.pullRequestNumber}: ${url}`)
  } catch (error) {
    log.warning(
      `Could not comment on pull request #${commenter.pullRequestNumber}: ${messageOf(error)}`
    )
  }
}
