// The mode rules (action.yml, `mode` and `expected-active-version-id`) through parseInputs, as
// the action reads them: which job a run is, and the promote setting that goes with it.
import { describe, expect, it } from '@jest/globals'
import type { InputName } from '../../../src/settings/parse.js'
import { type Inputs, parseWith as parse } from './settings-fixture.js'

const ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'

describe('the mode input', () => {
  it.each<[Inputs, { mode: string; promote: string; expectedActiveVersionId: string }]>([
    [{}, { mode: 'gate', promote: 'promote', expectedActiveVersionId: '' }],
    [{ promote: 'false' }, { mode: 'test', promote: 'skip', expectedActiveVersionId: '' }],
    [{ promote: 'dry-run' }, { mode: 'gate', promote: 'dry-run', expectedActiveVersionId: '' }],
    [{ mode: 'gate' }, { mode: 'gate', promote: 'promote', expectedActiveVersionId: '' }],
    [{ mode: ' gate ' }, { mode: 'gate', promote: 'promote', expectedActiveVersionId: '' }],
    [{ mode: 'test' }, { mode: 'test', promote: 'skip', expectedActiveVersionId: '' }],
    [
      { mode: 'test', promote: 'false' },
      { mode: 'test', promote: 'skip', expectedActiveVersionId: '' }
    ],
    // test is everything but the promote, whatever promote says.
    [
      { mode: 'test', promote: 'dry-run' },
      { mode: 'test', promote: 'skip', expectedActiveVersionId: '' }
    ],
    [{ mode: 'promote' }, { mode: 'promote', promote: 'promote', expectedActiveVersionId: '' }],
    [
      { mode: 'promote', promote: 'dry-run' },
      { mode: 'promote', promote: 'dry-run', expectedActiveVersionId: '' }
    ],
    [
      { mode: 'promote', 'expected-active-version-id': ` ${ID} ` },
      { mode: 'promote', promote: 'promote', expectedActiveVersionId: ID }
    ]
  ])('%j gives %j', (inputs, expected) => {
    const result = parse(inputs)
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'))
    const { mode, promote, expectedActiveVersionId } = result.settings
    expect({ mode, promote, expectedActiveVersionId }).toEqual(expected)
  })

  it.each<[Inputs, InputName, string]>([
    [
      { mode: 'gate', promote: 'false' },
      'mode',
      'Input "mode" "gate" and input "promote" "false" contradict each other: mode gate promotes. Use mode: test for a run without the promote, or drop promote: false.'
    ],
    [
      { mode: 'promote', promote: 'false' },
      'mode',
      'Input "mode" "promote" and input "promote" "false" contradict each other: mode promote promotes. Use mode: test for a run without the promote, or drop promote: false.'
    ],
    [
      { mode: 'release' },
      'mode',
      'Input "mode" "release" is invalid: must be "gate", "test", "promote" or "verify".'
    ],
    [
      { mode: 'Promote' },
      'mode',
      'Input "mode" "Promote" is invalid: must be "gate", "test", "promote" or "verify".'
    ],
    // An invalid mode is the one error: no cross-check judges the fallback mode.
    [
      { mode: 'release', promote: 'false' },
      'mode',
      'Input "mode" "release" is invalid: must be "gate", "test", "promote" or "verify".'
    ],
    [
      { mode: 'Promote', 'expected-active-version-id': ID },
      'mode',
      'Input "mode" "Promote" is invalid: must be "gate", "test", "promote" or "verify".'
    ],
    [
      { 'expected-active-version-id': ID },
      'expected-active-version-id',
      'Input "expected-active-version-id" is for mode: promote only (this run\'s mode is gate): remove it, or set mode: promote.'
    ],
    [
      { mode: 'test', 'expected-active-version-id': ID },
      'expected-active-version-id',
      'Input "expected-active-version-id" is for mode: promote only (this run\'s mode is test): remove it, or set mode: promote.'
    ],
    [
      { mode: 'promote', 'expected-active-version-id': 'v1.0.0' },
      'expected-active-version-id',
      'Input "expected-active-version-id" "v1.0.0" is invalid: must be a Coder version ID (a UUID).'
    ]
  ])('%j is refused on %s', (inputs, input, message) => {
    const result = parse(inputs)
    expect(result.ok ? [] : result.errors).toEqual([{ input, message }])
  })
})
