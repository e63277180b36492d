// What keep-versions and archive-failed did, as the facts tables of the summary and the comment
// show it. Pure; the tidy part is built in parts.ts, its line in "what stays" in left-behind.ts.
import type { RunReport } from './report.js'

/** The rows of the facts table: label, then one item per line. */
export function tidyFacts(report: Pick<RunReport, 'tidy'>): [string, string[]][] {
  const { tidy } = report
  const rows: [string, string[]][] = []
  if (tidy.archived.length > 0) rows.push(['Archived versions', tidy.archived])
  if (tidy.wouldArchive.length > 0) rows.push(['Would archive (dry-run)', tidy.wouldArchive])
  if (tidy.notes.length > 0) rows.push(['Versions that stay', tidy.notes])
  return rows
}
