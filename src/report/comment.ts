// The pull-request comment (comment-on-pr): the outcome, the version, the test result, the run and
// what to do next, in Markdown. Every text from another system is escaped for Markdown and HTML:
// GitHub renders comments, so a status message must not become a link, a mention or markup.
import type { GitOpsPart, RunReport, TestPart, VersionPart } from './report.js'
import { headline } from './summary.js'
import { ganttChart } from './gantt.js'
import { tidyFacts } from './tidy-facts.js'
import { shortSha } from '../settings/naming.js'
import { presetRows } from './test-results.js'

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

function versionText(version: VersionPart | undefined): string {
  const { name, id, url } = version ?? {}
  if (!name && !id) return ''
  const label = name && id ? `${name} (${id})` : name || id || ''
  return url ? markdownLink(url, label) : escapeMarkdown(label)
}

function testResult(test: TestPart): string {
  const state = [test.phase, test.reason].filter(Boolean).join(' / ')
  const text = [state, test.message].filter(Boolean).join(': ')
  return escapeMarkdown(text, 300)
}

function gitopsLink(gitops: GitOpsPart): string {
  if (gitops.pullRequest?.url)
    return markdownLink(gitops.pullRequest.url, `pull request #${gitops.pullRequest.number}`)
  const landed = gitops.landed
  return landed?.url ? markdownLink(landed.url, `commit ${shortSha(landed.sha)}`) : ''
}

function factRows(report: RunReport): [string, string][] {
  const { template, test, run } = report
  return [
    ['Template', escapeMarkdown([template.organization, template.name].filter(Boolean).join('.'))],
    ['Version', versionText(template.version)],
    ['Test', escapeMarkdown([test.namespace, test.name].filter(Boolean).join('/'))],
    ['Test result', testResult(test)],
    ['Promotion', escapeMarkdown(report.promotion.result ?? '')],
    ['Active version', versionText(template.active)],
    ['GitOps', gitopsLink(report.gitops)],
    ...tidyFacts(report).map(([what, items]): [string, string] => [
      what,
      items.map((item) => escapeMarkdown(item)).join('<br>')
    ]),
    ['Workflow run', run.url ? markdownLink(run.url, run.label || 'this run') : '']
  ]
}

function bullets(title: string, items: string[]): string[] {
  if (items.length === 0) return []
  return [`**${title}**`, '', ...items.map((item) => `- ${escapeProse(item)}`), '']
}

export function renderComment(report: RunReport): string {
  const { error, problems = [], advice = [], troubleshooting } = report.failure ?? {}
  const lines = [`### ${escapeMarkdown(headline(report))}`, '']
  if (error) lines.push(escapeMarkdown(error), '')
  for (const problem of problems) lines.push(`- ${escapeMarkdown(problem)}`)
  if (problems.length > 0) lines.push('')
  lines.push('| | |', '|---|---|')
  for (const [name, value] of factRows(report)) if (value) lines.push(`| ${name} | ${value} |`)
  lines.push('')
  const presets = presetRows(report.tests)
  if (presets.length > 0) {
    lines.push('| Preset | Test | Phase | Reason |', '|---|---|---|---|')
    for (const row of presets)
      lines.push(`| ${row.map((cell) => escapeMarkdown(cell, 200)).join(' | ')} |`)
    lines.push('')
  }
  const chart = ganttChart(report, report.test.clock ?? null, report.startedAt)
  if (chart) lines.push(chart, '')
  lines.push(...bullets('What to do next', advice))
  lines.push(...bullets('What stays behind', report.leftBehind))
  const { inspectCommand, exists } = report.test
  if (inspectCommand && exists) {
    // A code span cannot hold markup; a backtick in the command would end it, so it is dropped.
    lines.push(`Look at the test: \`${inspectCommand.replace(/[`\r\n]/g, '')}\``, '')
  }
  if (troubleshooting?.url) {
    lines.push(markdownLink(troubleshooting.url, 'Troubleshooting this failure'), '')
  }
  return lines.join('\n').trimEnd()
}
