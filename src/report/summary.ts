// The job summary, rendered from the run report with core.summary. core.summary escapes nothing
// (action-ecosystem.md §5.1), so every text from the cluster, Coder, Git or the inputs is escaped
// here, and each one is cut so that the summary stays far below the 1 MiB cap.
import * as core from '@actions/core'
import { isSuccess, type RunReport, type StepRow } from './report.js'
import { ganttChart } from './gantt.js'
import { tidyFacts } from './tidy-facts.js'

const MAX_TEXT = 2000
const MAX_TIMELINE = 40
const MAX_TIMELINE_LINE = 400

export function escapeHtml(text: string, max = MAX_TEXT): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text
  // A blank line would end the HTML block and let the rest render as Markdown: keep one line.
  return cut
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

export function headline(report: RunReport): string {
  const what = report.versionName
    ? `${report.template} ${report.versionName}`
    : report.template || 'the template version'
  switch (report.outcome) {
    case 'promoted':
      return report.promotionResult === 'AlreadyActive'
        ? `✅ ${what} passed its test and was already active`
        : `✅ ${what} passed its test and was promoted`
    case 'would-promote':
      return `✅ ${what} passed its test (dry-run: ${report.promotionResult === 'AlreadyActive' ? 'already active' : 'would be promoted'})`
    case 'passed':
      return `✅ ${what} passed its test (promotion skipped)`
    case 'refused':
      return `⛔ ${what} passed its test; the promotion was refused`
    case 'timed-out':
      return `⏱️ ${what}: the gate timed out`
    case 'cancelled':
      if (!report.promotionRequested)
        return `🛑 ${what}: the run was cancelled; nothing was promoted`
      return report.versionId && report.activeVersionId === report.versionId
        ? `🛑 ${what}: the run was cancelled after the promote request; the version is active`
        : `🛑 ${what}: the run was cancelled during the promote request; the version may be active`
    case 'invalid-input':
      return '❌ Invalid input: nothing was pushed, committed or promoted'
    default:
      return `❌ ${what} was not promoted`
  }
}

type Summary = typeof core.summary

/** The summary as HTML/Markdown text, built with core.summary's buffer. */
export function renderSummary(report: RunReport, now: number): string {
  const summary = core.summary.emptyBuffer()
  addMessages(summary, report)
  if (report.outcome !== 'invalid-input') {
    addStepTable(summary, report, now)
    summary.addTable([
      [
        { data: 'What', header: true },
        { data: 'Value', header: true }
      ],
      ...facts(report).filter(([, value]) => value !== '')
    ])
    const chart = ganttChart(report, report.controllerClock, now)
    // Blank lines around it: the fence is Markdown inside the summary's HTML.
    if (chart) summary.addRaw(`\n\n${chart}\n\n`, true)
    addTimeline(summary, report)
  } else if (report.runUrl) {
    summary.addRaw(`<p>Workflow run: ${link(report.runUrl, report.runLabel)}</p>`, true)
  }
  return summary.stringify()
}

/** The headline, then the error, problems, warnings, advice and what stays behind. */
function addMessages(summary: Summary, report: RunReport): void {
  summary.addHeading(escapeHtml(headline(report)), 2)
  if (report.mode === 'promote')
    summary.addRaw(
      '<p>Promote job (<code>mode: promote</code>): it pushed and committed nothing, and promotes the version that the test job tested.</p>',
      true
    )
  if (report.error) summary.addRaw(`<p><strong>${escapeHtml(report.error)}</strong></p>`, true)
  if (report.problems.length > 0) summary.addList(report.problems.map((line) => escapeHtml(line)))
  for (const line of report.warnings) summary.addRaw(`<p>⚠️ ${escapeHtml(line)}</p>`, true)
  const next = nextSteps(report)
  if (next.length > 0) {
    summary.addRaw('<p>💡 What to do next:</p>', true)
    summary.addList(next)
  }
  if (report.leftBehind.length > 0) {
    summary.addRaw('<p>🧹 What stays behind, and how to clean it up:</p>', true)
    summary.addList(report.leftBehind.map((line) => richText(line)))
  }
}

/** The advice, the command that shows the test, and the troubleshooting section. */
function nextSteps(report: RunReport): string[] {
  if (isSuccess(report.outcome)) return report.advice.map((line) => richText(line))
  const next = report.advice.map((line) => richText(line))
  if (report.inspectCommand && report.testExists)
    next.push(`Look at the test: ${code(report.inspectCommand)}`)
  if (report.troubleshootingUrl)
    next.push(
      `More in ${link(report.troubleshootingUrl, `troubleshooting: ${report.failureKind ?? ''}`)}`
    )
  else if (report.troubleshootingRef) next.push(`More in ${code(report.troubleshootingRef)}`)
  return next
}

function addStepTable(summary: Summary, report: RunReport, now: number): void {
  summary.addTable([
    [
      { data: 'Step', header: true },
      { data: 'Result', header: true },
      { data: 'Duration', header: true },
      { data: 'Detail', header: true }
    ],
    ...report.rows.map((row) => [
      row.name,
      row.result,
      duration(row, now) || '–',
      escapeHtml(row.detail) || '–'
    ])
  ])
}

/** The "What / Value" rows; the caller drops those whose value is empty. */
function facts(report: RunReport): [string, string][] {
  const unchanged =
    report.activeVersionId !== '' && report.activeVersionId === report.previousActiveVersionId
  return [
    ['Template', code(joinNonEmpty(report.organization, report.template, '.'))],
    [
      report.versionId ? 'Tested version' : 'Version',
      version(report.versionName, report.versionId, report.versionUrl)
    ],
    ['Test', code(joinNonEmpty(report.namespace, report.testName, '/'))],
    ['Test workspace', workspace(report)],
    ['Phase', code(report.phase)],
    ['Reason', code(report.reason)],
    ['Message', escapeHtml(report.message)],
    [
      'Promotion',
      code(report.promotionResult) +
        (report.promotionConfirmedBy === 're-read' ? ' (confirmed by a re-read)' : '')
    ],
    [
      'Previous active version',
      version(
        report.previousActiveVersionName,
        report.previousActiveVersionId,
        report.previousActiveVersionUrl
      )
    ],
    [
      'Active version (read at the end)',
      report.activeVersionId
        ? `${version(report.activeVersionName, report.activeVersionId, report.activeVersionUrl)}${unchanged ? ', unchanged' : ''}`
        : 'could not be read'
    ],
    [
      'Manifest',
      report.manifestPath
        ? `${code(report.manifestPath)}${report.gitopsRepository ? ` in ${code(report.gitopsRepository)}` : ''}`
        : ''
    ],
    ['GitOps commit', commitFact(report)],
    [
      'Pull request',
      report.pullRequestUrl ? link(report.pullRequestUrl, `#${report.pullRequestNumber}`) : ''
    ],
    ['Removed by keep-tests', report.prunedManifests.map((path) => code(path)).join(', ')],
    [
      'Kept by keep-tests (changed after it chose them)',
      report.prunedKept.map((path) => code(path)).join(', ')
    ],
    ...tidyFacts(report).map(([what, items]): [string, string] => [
      what,
      items.map((item) => escapeHtml(item)).join('<br>')
    ]),
    ['Inspect the test', report.testLookedFor ? code(report.inspectCommand) : ''],
    ['Workflow run', report.runUrl ? link(report.runUrl, report.runLabel || report.runUrl) : '']
  ]
}

/** `name` (`id`), the name linked to the version in Coder. */
function version(name: string, id: string, url: string): string {
  if (!name && !id) return ''
  const named = `${code(name || '(unnamed)')}${id ? ` (${code(id)})` : ''}`
  return url ? `${named}, ${anchor(url, 'in Coder')}` : named
}

function commitFact(report: RunReport): string {
  if (report.commitSha) {
    const sha = anchor(report.commitUrl, code(report.commitSha.slice(0, 12)))
    return report.commitBranch ? `${sha} on ${code(report.commitBranch)}` : sha
  }
  return report.rows.some((row) => row.name === 'commit' && row.result === 'succeeded')
    ? 'none: Git already held the manifest'
    : ''
}

function workspace(report: RunReport): string {
  if (!report.workspaceName) return ''
  const owner = report.workspaceOwnerId ? `, owner ${code(report.workspaceOwnerId)}` : ''
  const deleted = report.workspaceDeleted
    ? ` (WorkspaceDeleted ${code(report.workspaceDeleted)})`
    : ''
  return `${code(report.workspaceName)}${owner}${deleted}`
}

/** The test's status changes, the middle cut out when there are more than MAX_TIMELINE. */
function addTimeline(summary: Summary, report: RunReport): void {
  if (report.timeline.length === 0) return
  const shown =
    report.timeline.length > MAX_TIMELINE
      ? [
          ...report.timeline.slice(0, MAX_TIMELINE / 2),
          null,
          ...report.timeline.slice(-MAX_TIMELINE / 2)
        ]
      : report.timeline
  const lines = shown.map((entry) =>
    entry === null
      ? `… ${report.timeline.length - MAX_TIMELINE} more …`
      : escapeHtml(
          `+${seconds(entry.at - report.startedAt)} ${entry.phase || '(no status)'}${entry.reason ? ` / ${entry.reason}` : ''}${entry.message ? `: ${entry.message}` : ''}`,
          MAX_TIMELINE_LINE
        )
  )
  summary.addDetails('Timeline of the test', `<pre>${lines.join('\n')}</pre>`)
}

export async function writeSummary(report: RunReport, now: number): Promise<void> {
  const text = renderSummary(report, now)
  core.summary.emptyBuffer()
  if (!process.env.GITHUB_STEP_SUMMARY) {
    core.info('GITHUB_STEP_SUMMARY is not set; the job summary is not written.')
    return
  }
  await core.summary.addRaw(text).write()
}

function duration(step: StepRow, now: number): string {
  if (step.startedAt === undefined) return ''
  return seconds((step.endedAt ?? now) - step.startedAt)
}

function seconds(ms: number): string {
  const total = Math.max(0, ms) / 1000
  if (total < 60) return `${total.toFixed(1)} s`
  const minutes = Math.floor(total / 60)
  return `${minutes} min ${Math.round(total - minutes * 60)} s`
}

function code(text: string): string {
  return text ? `<code>${escapeHtml(text)}</code>` : ''
}

function link(url: string, text: string): string {
  return /^https?:\/\//.test(url)
    ? `<a href="${escapeHtml(url)}">${escapeHtml(text)}</a>`
    : escapeHtml(url)
}

/** HTML that is already safe, as a link when the URL is http(s). */
function anchor(url: string, html: string): string {
  return /^https?:\/\//.test(url) ? `<a href="${escapeHtml(url)}">${html}</a>` : html
}

/** Escaped text in which `commands` become code and http(s) URLs become links. */
export function richText(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(
      /https?:\/\/[^\s<>"`]+?(?=[.,:;)]?(?:\s|$|<))/g,
      (url) => `<a href="${url}">${url}</a>`
    )
}

function joinNonEmpty(a: string, b: string, separator: string): string {
  return a && b ? `${a}${separator}${b}` : a || b
}
