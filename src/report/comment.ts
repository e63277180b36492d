// The pull-request comment (comment-on-pr): the headline, the facts and what to do next, in Markdown.
// Every text from another system is escaped for Markdown and HTML: GitHub renders comments, so a
// status message must not become a link, a mention or markup.
import type { RunReport } from './report.js'
import { headline } from './summary.js'

export const COMMENT_MARKER = 'result'

const MARKDOWN_SPECIAL = /[\\`*_{}[\]()#+\-.!|~@<>&"']/g

export function escapeMarkdown(text: string, max = 1000): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text
  return cut
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(MARKDOWN_SPECIAL, (c) => `&#${c.charCodeAt(0)};`)
}

export function renderComment(report: RunReport): string {
  const lines = [`### ${escapeMarkdown(headline(report))}`, '']
  if (report.error) lines.push(escapeMarkdown(report.error), '')
  for (const problem of report.problems) lines.push(`- ${escapeMarkdown(problem)}`)
  if (report.problems.length > 0) lines.push('')
  const facts: [string, string][] = [
    ['Template', `${report.organization}.${report.template}`],
    [
      'Version',
      report.versionId ? `${report.versionName} (${report.versionId})` : report.versionName
    ],
    ['Test', `${report.namespace}/${report.testName}`],
    ['Phase', [report.phase, report.reason].filter(Boolean).join(' / ')],
    ['Promotion', report.promotionResult],
    ['Active version', report.activeVersionId]
  ]
  lines.push('| | |', '|---|---|')
  for (const [name, value] of facts) if (value) lines.push(`| ${name} | ${escapeMarkdown(value)} |`)
  lines.push('')
  if (report.advice.length > 0) {
    lines.push('**What to do next**', '')
    for (const advice of report.advice) lines.push(`- ${escapeMarkdown(advice)}`)
    lines.push('')
  }
  if (/^https:\/\//.test(report.runUrl)) lines.push(`[Workflow run](${report.runUrl})`)
  return lines.join('\n')
}
