// The rules of the mode input (interface.md, `mode` and `expected-active-version-id`): which job
// this run is, and the promote setting that goes with it. Pure.
import type { InputReader } from './rules.js'
import type { InputName, PromoteMode, RunMode } from './settings.js'

// Coder IDs are UUIDs (coder-api-subset.json, format uuid).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface ModeSettings {
  mode: RunMode
  promote: PromoteMode
  expectedActiveVersionId: string
}

/** `promote` is the parsed promote input; errors go to the reader, each naming its inputs. */
export function parseRunMode(reader: InputReader<InputName>, promote: PromoteMode): ModeSettings {
  const given = reader.raw('mode')
  const modes: readonly RunMode[] = ['gate', 'test', 'promote', 'verify']
  const chosen = given ? reader.choice<RunMode>('mode', 'gate', modes) : ''
  // An invalid mode is one error: the cross-checks below would judge a mode nobody asked for.
  const invalid = given !== '' && !(modes as readonly string[]).includes(given)
  // An explicit gate or promote asks for a promotion that promote: false forbids: say both.
  if (!invalid && (chosen === 'gate' || chosen === 'promote') && promote === 'skip') {
    reader.errors.push({
      input: 'mode',
      message: `Input "mode" "${chosen}" and input "promote" "false" contradict each other: mode ${chosen} promotes. Use mode: test for a run without the promote, or drop promote: false.`
    })
  }
  const mode: RunMode = chosen || (promote === 'skip' ? 'test' : 'gate')
  const expected = reader.raw('expected-active-version-id')
  if (expected && mode !== 'promote' && !invalid) {
    reader.errors.push({
      input: 'expected-active-version-id',
      message: `Input "expected-active-version-id" is for mode: promote only (this run's mode is ${mode}): remove it, or set mode: promote.`
    })
  } else if (expected && !UUID.test(expected)) {
    reader.fail('expected-active-version-id', 'must be a Coder version ID (a UUID)')
  }
  return { mode, promote: mode === 'test' ? 'skip' : promote, expectedActiveVersionId: expected }
}
