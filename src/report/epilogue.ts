// The end of the log: the outcome, what to do next, what stays behind and the facts to act on, in a
// few plain lines, for readers of the raw log (and of `npm run local`). Text from other systems is
// written through the safe logger (src/log.ts): never a workflow command.
import type { RunReport } from './report.js'
import { isSuccess } from './report.js'
import { headline } from './summary.js'

export function epilogueLines(report: RunReport): string[] {
  const lines = [`${headline(report)}`]
  if (report.error) lines.push(report.error)
  for (const problem of report.problems) lines.push(`  - ${problem}`)
  for (const warning of report.warnings) lines.push(`Warning: ${warning}`)
  if (report.advice.length > 0) {
    lines.push('What to do next:')
    for (const advice of report.advice) lines.push(`  - ${advice}`)
  }
  const troubleshooting = report.troubleshootingUrl || report.troubleshootingRef
  if (troubleshooting) lines.push(`Troubleshooting: ${troubleshooting}`)
  if (report.leftBehind.length > 0) {
    lines.push('What stays behind:')
    for (const item of report.leftBehind) lines.push(`  - ${item}`)
  }
  return [...lines, ...factLines(report)]
}

/** One line per fact that is known; names beside IDs, links as plain URLs. */
function factLines(report: RunReport): string[] {
  const failed = !isSuccess(report.outcome)
  const facts: [string, string][] = [
    [
      report.versionId ? 'Tested version' : 'Version',
      version(report.versionName, report.versionId, report.versionUrl)
    ],
    [
      'Test workspace',
      report.workspaceName
        ? `${report.workspaceName}${report.workspaceOwnerId ? ` (owner ${report.workspaceOwnerId})` : ''}`
        : ''
    ],
    [
      'Previous active version',
      failed
        ? version(
            report.previousActiveVersionName,
            report.previousActiveVersionId,
            report.previousActiveVersionUrl
          )
        : ''
    ],
    [
      'Active version now',
      version(report.activeVersionName, report.activeVersionId, report.activeVersionUrl)
    ],
    ['GitOps commit', report.commitUrl || report.commitSha],
    ['Pull request', report.pullRequestUrl],
    ['Inspect the test', failed && report.testExists ? report.inspectCommand : ''],
    ['Workflow run', failed ? report.runUrl : '']
  ]
  return facts.filter(([, value]) => value !== '').map(([name, value]) => `${name}: ${value}`)
}

function version(name: string, id: string, url: string): string {
  if (!id) return name
  return `${name || '(unnamed)'} (${id})${url ? ` ${url}` : ''}`
}
