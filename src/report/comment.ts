// The pull-request comment (comment-on-pr): the outcome, the version, the test result, the run and
// what to do next, in Markdown. Every text from another system is escaped for Markdown and HTML:
// GitHub renders comments, so a status message must not become a link, a mention or markup.
import type { RunReport } from './report.js'
import { headline } from './summary.js'
import { ganttChart } from './gantt.js'
import { tidyFacts } from './tidy-facts.js'

export const COMMENT_MARKER = 'result'

// Characters that make markup anywhere in a line; `@` too, so a mention never shows as one.
const MARKDOWN_SPECIAL = /[\\`*_[\]()|~<>&@]/g
// At the start of a line: a heading, a list item, a quote or a setext underline.
const LINE_START_SPECIAL = /^(?:[#\-+>=]|\d+\.)/
// U+2060 WORD JOINER: invisible, and it breaks the patterns GitHub links after rendering (mentions,
// issue references, autolinks), which see the text with character references already decoded.
const JOINER = '\u2060'

const reference = (c: string): string => `&#${c.charCodeAt(0)};`

/** One line of plain text: markup characters as character references, nothing auto-linked. */
export function escapeMarkdown(text: string, max = 1000): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text
  return escapeInline(cut.replace(/\s*[\r\n]+\s*/g, ' ').trimStart()).replace(
    LINE_START_SPECIAL,
    (lead) => lead.slice(0, -1) + reference(lead.slice(-1))
  )
}

/** Text inside a line: the same escapes, without the ones only the start of a line needs. */
function escapeInline(text: string): string {
  return text
    .replace(/:\/\//g, `:${JOINER}//`)
    .replace(/\bwww\./gi, (www) => `${www.slice(0, 3)}${JOINER}.`)
    .replace(/[@#]/g, (c) => `${c}${JOINER}`)
    .replace(MARKDOWN_SPECIAL, reference)
}

// The gate's own sentences (advice, what stays behind) carry `commands` and the URLs it built; the
// status fields they quote were checked against their documented shapes (steps/wait.ts workspaceOf).
const PROSE_TOKEN = /(`[^`\r\n]+`|https?:\/\/[^\s<>"`]+?(?=[.,:;)]?(?:\s|$)))/

/** A sentence of the gate's: commands stay code spans, http(s) URLs links, the rest escaped. */
export function escapeProse(text: string): string {
  const parts = text.replace(/\s*[\r\n]+\s*/g, ' ').split(PROSE_TOKEN)
  return parts
    .map((part, i) => {
      if (i % 2 === 0) return i === 0 ? escapeMarkdown(part) : escapeInline(part)
      return part.startsWith('`') ? part : markdownLink(part, part)
    })
    .join('')
}

/**
 * A Markdown link, or the escaped label alone when the URL is not plain http(s). Characters that
 * could end the link target or start markup are percent-encoded.
 */
export function markdownLink(url: string, label: string): string {
  if (!/^https?:\/\/[^\s]+$/.test(url)) return escapeMarkdown(label)
  const target = url.replace(
    /[()<>"'`\\[\]|]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`
  )
  return `[${escapeMarkdown(label)}](${target})`
}

function versionText(name: string, id: string, url: string): string {
  if (!name && !id) return ''
  const label = name && id ? `${name} (${id})` : name || id
  return url ? markdownLink(url, label) : escapeMarkdown(label)
}

function testResult(report: RunReport): string {
  const state = [report.phase, report.reason].filter(Boolean).join(' / ')
  const text = [state, report.message].filter(Boolean).join(': ')
  return escapeMarkdown(text, 300)
}

function factRows(report: RunReport): [string, string][] {
  return [
    ['Template', escapeMarkdown([report.organization, report.template].filter(Boolean).join('.'))],
    ['Version', versionText(report.versionName, report.versionId, report.versionUrl)],
    ['Test', escapeMarkdown([report.namespace, report.testName].filter(Boolean).join('/'))],
    ['Test result', testResult(report)],
    ['Promotion', escapeMarkdown(report.promotionResult)],
    [
      'Active version',
      versionText(report.activeVersionName, report.activeVersionId, report.activeVersionUrl)
    ],
    [
      'GitOps',
      report.pullRequestUrl
        ? markdownLink(report.pullRequestUrl, `pull request #${report.pullRequestNumber}`)
        : report.commitUrl
          ? markdownLink(report.commitUrl, `commit ${report.commitSha.slice(0, 7)}`)
          : ''
    ],
    ...tidyFacts(report).map(([what, items]): [string, string] => [
      what,
      items.map((item) => escapeMarkdown(item)).join('<br>')
    ]),
    [
      'Workflow run',
      report.runUrl ? markdownLink(report.runUrl, report.runLabel || 'this run') : ''
    ]
  ]
}

function bullets(title: string, items: string[]): string[] {
  if (items.length === 0) return []
  return [`**${title}**`, '', ...items.map((item) => `- ${escapeProse(item)}`), '']
}

export function renderComment(report: RunReport): string {
  const lines = [`### ${escapeMarkdown(headline(report))}`, '']
  if (report.error) lines.push(escapeMarkdown(report.error), '')
  for (const problem of report.problems) lines.push(`- ${escapeMarkdown(problem)}`)
  if (report.problems.length > 0) lines.push('')
  lines.push('| | |', '|---|---|')
  for (const [name, value] of factRows(report)) if (value) lines.push(`| ${name} | ${value} |`)
  lines.push('')
  const chart = ganttChart(report, report.controllerClock, report.startedAt)
  if (chart) lines.push(chart, '')
  lines.push(...bullets('What to do next', report.advice))
  lines.push(...bullets('What stays behind', report.leftBehind))
  if (report.inspectCommand && report.testExists) {
    // A code span cannot hold markup; a backtick in the command would end it, so it is dropped.
    lines.push(`Look at the test: \`${report.inspectCommand.replace(/[`\r\n]/g, '')}\``, '')
  }
  if (report.troubleshootingUrl) {
    lines.push(markdownLink(report.troubleshootingUrl, 'Troubleshooting this failure'), '')
  }
  return lines.join('\n').trimEnd()
}
