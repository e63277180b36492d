// The end of the log: the outcome, what to do next, what stays behind and the facts to act on, in a
// few plain lines, for readers of the raw log (and of `npm run local`). Text from other systems is
// written through the safe logger (src/log/log.ts): never a workflow command.
import type { RunReport, VersionPart } from './report.js'
import { isSuccess } from './report.js'
import { headline } from './summary.js'

export function epilogueLines(report: RunReport): string[] {
  const { error, problems = [], advice = [], troubleshooting } = report.failure ?? {}
  const lines = [`${headline(report)}`]
  if (error) lines.push(error)
  for (const problem of problems) lines.push(`  - ${problem}`)
  for (const warning of report.warnings) lines.push(`Warning: ${warning}`)
  if (advice.length > 0) {
    lines.push('What to do next:')
    for (const line of advice) lines.push(`  - ${line}`)
  }
  const where = troubleshooting?.url || troubleshooting?.ref
  if (where) lines.push(`Troubleshooting: ${where}`)
  if (report.leftBehind.length > 0) {
    lines.push('What stays behind:')
    for (const item of report.leftBehind) lines.push(`  - ${item}`)
  }
  return [...lines, ...factLines(report)]
}

/** One line per fact that is known; names beside IDs, links as plain URLs. */
function factLines(report: RunReport): string[] {
  const failed = !isSuccess(report.outcome)
  const { template, test, gitops } = report
  const workspace = test.workspace
  const facts: [string, string][] = [
    [template.version.id ? 'Tested version' : 'Version', versionText(template.version)],
    [
      'Test workspace',
      workspace
        ? `${workspace.name}${workspace.ownerId ? ` (owner ${workspace.ownerId})` : ''}`
        : ''
    ],
    ['Previous active version', failed ? versionText(template.previousActive) : ''],
    ['Active version now', versionText(template.active)],
    ['GitOps commit', gitops.landed?.url || gitops.landed?.sha || ''],
    ['Pull request', gitops.pullRequest?.url ?? ''],
    ['Inspect the test', failed && test.exists ? (test.inspectCommand ?? '') : ''],
    ['Workflow run', failed ? (report.run.url ?? '') : '']
  ]
  return facts.filter(([, value]) => value !== '').map(([name, value]) => `${name}: ${value}`)
}

function versionText(version: VersionPart | undefined): string {
  const { name = '', id, url } = version ?? {}
  if (!id) return name
  return `${name || '(unnamed)'} (${id})${url ? ` ${url}` : ''}`
}
