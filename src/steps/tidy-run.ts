// When the tidy step runs: after the outcome is known, on success and failure alike, once the
// preflight has named the organization and the template; never after a cancel.
import type { TidySettings } from '../settings/settings.js'
import type { Journal } from './journal.js'
import type { Located } from './locate.js'
import type { Preflight } from './preflight.js'
import type { Pushed } from './push.js'
import { type TidyInput, tidyVersions, tidyWanted } from './tidy.js'

/** What the tidy run needs of the wiring (src/wiring.ts's Gate); no step imports the wiring. */
export interface TidyWiring {
  settings: { tidy: TidySettings }
  tidy(
    preflight: Preflight,
    pushed: Pick<Pushed, 'template' | 'versionId' | 'versionName'> | undefined,
    testFailed: boolean,
    located?: Located
  ): TidyInput
}

/** This run's test ended Failed (not a timeout, nor an integrity failure). */
function testEndedFailed(journal: Journal): boolean {
  const wait = journal.entry('wait')?.result
  if (wait === undefined || wait.ok) return false
  // An integrity failure judged an object that is not ours, whatever its phase.
  return wait.failure.kind === 'test-failed' && wait.facts?.last?.phase === 'Failed'
}

export async function tidyAfterOutcome(journal: Journal, gate: TidyWiring | null): Promise<void> {
  const preflight = journal.value('preflight')
  const testFailed = testEndedFailed(journal)
  if (!gate || !preflight || journal.context.signal.aborted) return
  if (!tidyWanted(gate.settings.tidy, testFailed)) return
  const located = journal.value('locate')
  const input = gate.tidy(preflight, journal.value('push') ?? located, testFailed, located)
  try {
    // The step ends at once on a cancel; the grace lets it hand over what stayed.
    await journal.run('tidy', (c) => tidyVersions(input, c), { cancelGraceMs: 1000 })
  } catch {
    // The tidy step never fails; a cancel past the grace stops it (StepStopped), and the journal
    // already holds that entry for the report.
  }
}
