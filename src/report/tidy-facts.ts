// What keep-versions and archive-failed did, for the report: the archived-versions output, the
// summary line, what stayed, and how to bring back this run's version. Pure.
import type { Journal } from '../steps/journal.js'
import { unarchiveCommand } from '../steps/tidy.js'
import type { RunReport } from './report.js'

export function fillTidy(report: RunReport, journal: Journal): void {
  const tidied = journal.value('tidy')
  if (!tidied) return
  report.archivedVersions = tidied.archived
  report.wouldArchiveVersions = tidied.wouldArchive
  report.tidyNotes = tidied.notes
  if (tidied.warning) report.warnings.push(tidied.warning)
  if (tidied.oursArchived) {
    report.leftBehind.push(
      `Version ${report.versionName} was archived because its test failed (archive-failed): nobody can promote or pick it by mistake. Bring it back with \`${unarchiveCommand(report.organization, report.template, report.versionName)}\`.`
    )
  }
}

/** The rows of the facts table: label, then one item per line. */
export function tidyFacts(report: RunReport): [string, string[]][] {
  const rows: [string, string[]][] = []
  if (report.archivedVersions.length > 0) rows.push(['Archived versions', report.archivedVersions])
  if (report.wouldArchiveVersions.length > 0)
    rows.push(['Would archive (dry-run)', report.wouldArchiveVersions])
  if (report.tidyNotes.length > 0) rows.push(['Versions that stay', report.tidyNotes])
  return rows
}
