// The tests of a run as the report shows them: the test-results output (one entry per test), the
// per-preset table of the summary and the pull-request comment, and the chart's bars. Built from
// the journal: what the wait saw of each test, else what was committed or located (not yet seen).
import type { Journal } from '../steps/journal.js'
import type { TestResultPart } from './report.js'

export function testResultsOf(journal: Journal): TestResultPart[] {
  const seen = journal.factsOf('wait')?.tests
  if (seen && seen.length > 0)
    return seen.map((t) => ({
      name: t.name,
      preset: t.preset,
      phase: t.last?.phase || undefined,
      reason: t.last?.reason || undefined,
      versionId: t.versionId,
      seenAt: t.syncedAt ?? undefined,
      finalAt: finalAt(t.timeline, t.last?.phase),
      timeline: t.timeline
    }))
  const done = journal.value('commit') ?? journal.value('locate')
  const committed = done?.tests ?? (done ? [{ name: nameOf(journal), preset: '' }] : [])
  const facts = journal.factsOf('wait')
  // A wait that recorded no entry per test (one test): its top-level facts are that test's.
  if (facts && committed.length === 1) {
    const only = committed[0] as { name: string; preset: string }
    return [
      {
        name: only.name,
        preset: only.preset,
        phase: facts.last?.phase || undefined,
        reason: facts.last?.reason || undefined,
        versionId: journal.value('wait')?.versionId || undefined,
        seenAt: facts.syncedAt ?? undefined,
        finalAt: finalAt(facts.timeline, facts.last?.phase),
        timeline: facts.timeline
      }
    ]
  }
  return committed.map((t) => ({ name: t.name, preset: t.preset, timeline: [] }))
}

function nameOf(journal: Journal): string {
  const done = journal.value('commit') ?? journal.value('locate')
  return done?.manifest.metadata?.name || journal.value('inputs')?.settings.test.name || ''
}

/** When the test reached its final phase, from its timeline; absent while it is not final. */
function finalAt(
  timeline: { at: number; phase: string }[],
  phase: string | undefined
): number | undefined {
  if (phase !== 'Succeeded' && phase !== 'Failed') return undefined
  return timeline.find((entry) => entry.phase === phase)?.at
}

/** The test-results output: JSON, unknowns as '' (the edge, as outputs.ts does). */
export function testResultsJson(tests: readonly TestResultPart[]): string {
  return JSON.stringify(
    tests.map((t) => ({
      name: t.name,
      preset: t.preset,
      phase: t.phase ?? '',
      reason: t.reason ?? '',
      versionId: t.versionId ?? ''
    }))
  )
}

/** The per-preset rows (preset, test, phase, reason); none when the run tested no preset. */
export function presetRows(tests: readonly TestResultPart[]): [string, string, string, string][] {
  if (!tests.some((t) => t.preset !== '')) return []
  return tests.map((t) => [t.preset || '(default)', t.name, t.phase ?? '–', t.reason ?? '–'])
}
