// mode: verify in the report: the version that ran live, the result, and the rollback with its
// guard, from the verify step's value or facts; and their lines in the summary. Pure.
import type { Journal } from '../steps/journal.js'
import {
  known,
  type PromotionPart,
  type RunReport,
  type VerificationPart,
  type VersionPart
} from './report.js'

export function verificationPart(journal: Journal): VerificationPart | undefined {
  if (journal.value('inputs')?.settings.mode !== 'verify') return undefined
  const done = journal.factsOf('verify')
  if (!done) return {}
  const version = (v: { id: string; name: string } | undefined): VersionPart | undefined =>
    v ? { id: known(v.id), name: known(v.name) } : undefined
  const { rollback } = done
  return {
    result: done.result,
    ran: version(done.ran),
    why: known(done.why),
    rollback: rollback
      ? { outcome: rollback.outcome, target: version(rollback.target), detail: rollback.detail }
      : undefined
  }
}

/** mode: verify: the rollback as the promotion (promotion-result), absent when none was tried. */
export function rollbackPromotion(journal: Journal): PromotionPart | undefined {
  if (journal.value('inputs')?.settings.mode !== 'verify') return undefined
  const rollback = journal.factsOf('verify')?.rollback
  const result = rollback
    ? (
        {
          applied: 'Promoted',
          'already-active': 'AlreadyActive',
          'would-apply': 'WouldPromote',
          skipped: 'Skipped',
          refused: 'Refused',
          impossible: undefined,
          failed: undefined,
          sent: undefined
        } as const
      )[rollback.outcome]
    : undefined
  return { result, requested: rollback?.outcome === 'sent' }
}

/** The warning of an inconclusive verification: both versions named. */
export function verificationWarnings(journal: Journal): string[] {
  const done = journal.value('verify')
  return done?.result === 'Inconclusive' && done.why
    ? [`The live verification is inconclusive: ${done.why}.`]
    : []
}

const shown = (v: VersionPart | undefined): string =>
  v ? `${v.name ?? '(unnamed)'} (${v.id ?? 'unknown'})` : 'unknown'

/** The rows of the facts table for mode: verify. */
export function verificationFacts(report: Pick<RunReport, 'verification'>): [string, string][] {
  const v = report.verification
  if (!v) return []
  const rollback = v.rollback
  const rows: [string, string][] = [
    ['Live version tested', v.ran ? shown(v.ran) : ''],
    ['Verification result', v.result ?? '']
  ]
  if (rollback) {
    const outcome: Record<typeof rollback.outcome, string> = {
      applied: 'rolled back to',
      'already-active': 'target already active,',
      'would-apply': 'would roll back to (dry-run)',
      skipped: 'skipped (promote: false), to',
      refused: 'refused, to',
      impossible: 'impossible',
      failed: 'failed',
      sent: 'sent, its answer not seen (cancelled), to'
    }
    const target = rollback.target ? ` ${shown(rollback.target)}` : ''
    rows.push(['Rollback', `${outcome[rollback.outcome]}${target}: ${rollback.detail}`])
  }
  return rows
}

/** The headline of a verification, or null when the report is not one. */
export function verificationHeadline(
  report: Pick<RunReport, 'verification' | 'template'>
): string | null {
  const v = report.verification
  if (!v) return null
  const what = `${report.template.name ?? 'the template'} ${v.ran?.name ?? 'active version'}`
  switch (v.result) {
    case 'Passed':
      return `✅ ${what}: the live version passed its test`
    case 'Inconclusive':
      return `⚠️ ${what}: the live verification is inconclusive`
    case 'RolledBack':
      return `↩️ ${what}: the live version failed its test and was rolled back to ${shown(v.rollback?.target)}`
    case 'Failed':
      return `❌ ${what}: the live version failed its test`
    default:
      // The run ended before the decision (a preflight, commit or wait failure).
      return `❌ ${report.template.name ?? 'the template'}: the live verification did not finish`
  }
}

/** The headline when a cancel cut the rollback request: the target may be active. */
export function rollbackCancelled(
  report: Pick<RunReport, 'verification' | 'template'>,
  what: string
): string {
  const target = report.verification?.rollback?.target
  return target?.id && report.template.active?.id === target.id
    ? `🛑 ${what}: the run was cancelled after the rollback request; the rollback target is active`
    : `🛑 ${what}: the run was cancelled during the rollback request; the rollback target may be active`
}
