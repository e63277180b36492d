// The end of the log: the outcome and what to do next, for readers of the raw log (and of
// `npm run local`). Text from other systems is written through the safe logger: never a command.
import type { RunReport } from './report.js'
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
  if (report.troubleshootingUrl) lines.push(`Troubleshooting: ${report.troubleshootingUrl}`)
  if (report.leftBehind.length > 0) {
    lines.push('What stays behind:')
    for (const item of report.leftBehind) lines.push(`  - ${item}`)
  }
  if (report.activeVersionId)
    lines.push(
      `Active version now: ${report.activeVersionName || '(unnamed)'} (${report.activeVersionId})`
    )
  return lines
}
