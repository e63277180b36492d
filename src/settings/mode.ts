// The rules of the mode input (action.yml, `mode` and `expected-active-version-id`): which job
// this run is, and the promote setting that goes with it. Pure.
import type { InputReader } from './rules.js'
import type { InputName, PromoteChoice, Mode } from './settings.js'
import { isUuid } from '../coder/version-identity.js'

export interface ModeSettings {
  mode: Mode
  promote: PromoteChoice
  expectedActiveVersionId: string
}

/** `promote` is the parsed promote input; errors go to the reader, each naming its inputs. */
export function parseMode(reader: InputReader<InputName>, promote: PromoteChoice): ModeSettings {
  const given = reader.raw('mode')
  const modes: readonly Mode[] = ['gate', 'test', 'promote', 'verify']
  const chosen = given ? reader.choice<Mode>('mode', 'gate', modes) : ''
  // An invalid mode is one error: the cross-checks below would judge a mode nobody asked for.
  const invalid = given !== '' && !(modes as readonly string[]).includes(given)
  // An explicit gate or promote asks for a promotion that promote: false forbids: say both.
  if (!invalid && (chosen === 'gate' || chosen === 'promote') && promote === 'skip') {
    reader.errors.push({
      input: 'mode',
      message: `Input "mode" "${chosen}" and input "promote" "false" contradict each other: mode ${chosen} promotes. Use mode: test for a run without the promote, or drop promote: false.`
    })
  }
  const mode: Mode = chosen || (promote === 'skip' ? 'test' : 'gate')
  const expected = reader.raw('expected-active-version-id')
  if (expected && mode !== 'promote' && !invalid) {
    reader.errors.push({
      input: 'expected-active-version-id',
      message: `Input "expected-active-version-id" is for mode: promote only (this run's mode is ${mode}): remove it, or set mode: promote.`
    })
  } else if (expected && !isUuid(expected)) {
    reader.fail('expected-active-version-id', 'must be a Coder version ID (a UUID)')
  }
  return { mode, promote: mode === 'test' ? 'skip' : promote, expectedActiveVersionId: expected }
}
