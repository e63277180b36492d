// The job summary, rendered from the run report with core.summary, which escapes nothing
// (actions/toolkit packages/core/src/summary.ts): every text from the cluster, Coder, Git or the
// inputs is escaped here, and each one is cut so that the summary stays far below the 1 MiB cap.
import * as core from '@actions/core'
import {
  isSuccess,
  type RunReport,
  type StepRow,
  type TestPart,
  type VersionPart
} from './report.js'
import { ganttChart } from './gantt.js'
import { presetRows } from './test-results.js'
import { tidyFacts } from './tidy-facts.js'
import { rollbackCancelled, verificationFacts, verificationHeadline } from './verification.js'

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

export function headline(
  report: Pick<RunReport, 'outcome' | 'template' | 'promotion' | 'verification'>
): string {
  const verified = report.outcome === 'cancelled' ? null : verificationHeadline(report)
  if (verified) return verified
  const { name: template, version, active } = report.template
  const what = version.name
    ? `${template ?? ''} ${version.name}`
    : template || 'the template version'
  const result = report.promotion.result
  switch (report.outcome) {
    case 'promoted':
      return result === 'AlreadyActive'
        ? `✅ ${what} passed its test and was already active`
        : `✅ ${what} passed its test and was promoted`
    case 'would-promote':
      return `✅ ${what} passed its test (dry-run: ${result === 'AlreadyActive' ? 'already active' : 'would be promoted'})`
    case 'passed':
      return `✅ ${what} passed its test (promotion skipped)`
    case 'refused':
      return `⛔ ${what} passed its test; the promotion was refused`
    case 'timed-out':
      return `⏱️ ${what}: the gate timed out`
    case 'cancelled':
      if (!report.promotion.requested)
        return `🛑 ${what}: the run was cancelled; nothing was promoted`
      if (report.verification?.rollback?.outcome === 'sent') return rollbackCancelled(report, what)
      return version.id && active?.id === version.id
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
    addPresetTable(summary, report)
    summary.addTable([
      [
        { data: 'What', header: true },
        { data: 'Value', header: true }
      ],
      ...facts(report).filter(([, value]) => value !== '')
    ])
    const chart = ganttChart(report, report.test.clock ?? null, now)
    // Blank lines around it: the fence is Markdown inside the summary's HTML.
    if (chart) summary.addRaw(`\n\n${chart}\n\n`, true)
    addTimeline(summary, report)
  } else if (report.run.url) {
    summary.addRaw(`<p>Workflow run: ${link(report.run.url, report.run.label ?? '')}</p>`, true)
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
  const { error, problems = [] } = report.failure ?? {}
  if (error) summary.addRaw(`<p><strong>${escapeHtml(error)}</strong></p>`, true)
  if (problems.length > 0) summary.addList(problems.map((line) => escapeHtml(line)))
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
  const { failure, test } = report
  const next = (failure?.advice ?? []).map((line) => richText(line))
  if (isSuccess(report.outcome)) return next
  if (test.inspectCommand && test.exists)
    next.push(`Look at the test: ${code(test.inspectCommand)}`)
  const troubleshooting = failure?.troubleshooting
  if (troubleshooting?.url)
    next.push(`More in ${link(troubleshooting.url, `troubleshooting: ${failure?.kind ?? ''}`)}`)
  else if (troubleshooting) next.push(`More in ${code(troubleshooting.ref)}`)
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

/** One row per preset test (test-presets): preset, test, phase, reason. */
function addPresetTable(summary: Summary, report: RunReport): void {
  const rows = presetRows(report.tests)
  if (rows.length === 0) return
  summary.addTable([
    ['Preset', 'Test', 'Phase', 'Reason'].map((data) => ({ data, header: true })),
    ...rows.map((row) => row.map((cell) => escapeHtml(cell)))
  ])
}

/** The "What / Value" rows; the caller drops those whose value is empty. */
function facts(report: RunReport): [string, string][] {
  const { template, test, gitops, promotion, run } = report
  const { version, previousActive: previous, active } = template
  const unchanged = active?.id !== undefined && active.id === previous?.id
  return [
    ['Template', code(joinNonEmpty(template.organization, template.name, '.'))],
    [version.id ? 'Tested version' : 'Version', versionText(version)],
    ['Test', code(joinNonEmpty(test.namespace, test.name, '/'))],
    ['Test workspace', workspace(test.workspace)],
    ['Phase', code(test.phase)],
    ['Reason', code(test.reason)],
    ['Message', escapeHtml(test.message ?? '')],
    [
      'Promotion',
      code(promotion.result) +
        (promotion.confirmedBy === 're-read' ? ' (confirmed by a re-read)' : '')
    ],
    ...verificationFacts(report).map(([what, text]): [string, string] => [what, escapeHtml(text)]),
    ['Previous active version', versionText(previous)],
    [
      'Active version (read at the end)',
      active?.id ? `${versionText(active)}${unchanged ? ', unchanged' : ''}` : 'could not be read'
    ],
    [
      'Manifest',
      gitops.manifestPath
        ? `${code(gitops.manifestPath)}${gitops.repository ? ` in ${code(gitops.repository)}` : ''}`
        : ''
    ],
    ['GitOps commit', commitFact(report)],
    [
      'Pull request',
      gitops.pullRequest?.url ? link(gitops.pullRequest.url, `#${gitops.pullRequest.number}`) : ''
    ],
    ['Removed by keep-tests', gitops.prunedManifests.map((path) => code(path)).join(', ')],
    [
      'Kept by keep-tests (changed after it chose them)',
      gitops.prunedKept.map((path) => code(path)).join(', ')
    ],
    ...tidyFacts(report).map(([what, items]): [string, string] => [
      what,
      items.map((item) => escapeHtml(item)).join('<br>')
    ]),
    ['Inspect the test', test.lookedFor ? code(test.inspectCommand) : ''],
    ['Workflow run', run.url ? link(run.url, run.label || run.url) : ''],
    [
      'GitHub deployment',
      report.deployment
        ? `${code(report.deployment.id)} to ${code(report.deployment.environment)}`
        : ''
    ]
  ]
}

/** `name` (`id`), the name linked to the version in Coder. */
function versionText(version: VersionPart | undefined): string {
  const { name, id, url } = version ?? {}
  if (!name && !id) return ''
  const named = `${code(name || '(unnamed)')}${id ? ` (${code(id)})` : ''}`
  return url ? `${named}, ${anchor(url, 'in Coder')}` : named
}

function commitFact(report: RunReport): string {
  const { landed } = report.gitops
  if (landed) {
    const sha = anchor(landed.url ?? '', code(landed.sha.slice(0, 12)))
    return landed.branch ? `${sha} on ${code(landed.branch)}` : sha
  }
  return report.rows.some((row) => row.name === 'commit' && row.result === 'succeeded')
    ? 'none: Git already held the manifest'
    : ''
}

function workspace(workspace: TestPart['workspace']): string {
  if (!workspace) return ''
  const owner = workspace.ownerId ? `, owner ${code(workspace.ownerId)}` : ''
  const deleted = workspace.deleted ? ` (WorkspaceDeleted ${code(workspace.deleted)})` : ''
  return `${code(workspace.name)}${owner}${deleted}`
}

/** The test's status changes, the middle cut out when there are more than MAX_TIMELINE. */
function addTimeline(summary: Summary, report: RunReport): void {
  const { timeline } = report.test
  if (timeline.length === 0) return
  const shown =
    timeline.length > MAX_TIMELINE
      ? [...timeline.slice(0, MAX_TIMELINE / 2), null, ...timeline.slice(-MAX_TIMELINE / 2)]
      : timeline
  const lines = shown.map((entry) =>
    entry === null
      ? `… ${timeline.length - MAX_TIMELINE} more …`
      : escapeHtml(
          `+${seconds(entry.at - report.startedAt)} ${entry.phase || '(no status)'}${entry.reason ? ` / ${entry.reason}` : ''}${entry.message ? `: ${entry.message}` : ''}`,
          MAX_TIMELINE_LINE
        )
  )
  summary.addDetails('Timeline of the test', `<pre>${lines.join('\n')}</pre>`)
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

function code(text: string | undefined): string {
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

function joinNonEmpty(a: string | undefined, b: string | undefined, separator: string): string {
  return a && b ? `${a}${separator}${b}` : a || b || ''
}
