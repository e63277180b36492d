import { describe, expect, it } from '@jest/globals'
import {
  choosePresets,
  missingPresetsText,
  type PresetChoice,
  presetParameters
} from '../../../src/settings/preset-selection.js'
import { presetsOfAnswer } from '../../../src/coder/presets.js'
import type { PresetSelection } from '../../../src/settings/presets.js'

const small = { name: 'small', parameters: [{ name: 'cpu', value: '2' }], isDefault: true }
const large = {
  name: 'Large GPU',
  parameters: [
    { name: 'cpu', value: '16' },
    { name: 'gpu', value: 'true' }
  ],
  isDefault: false
}
const OVERRIDE = [{ name: 'cpu', value: '4' }]

describe('choosePresets', () => {
  it.each<[string, PresetSelection, (typeof small)[], PresetChoice]>([
    [
      "'' = the one default test",
      { kind: 'none' },
      [small, large],
      { ok: true, tests: [{ preset: '', parameters: OVERRIDE }], note: '' }
    ],
    [
      'all = every preset, by name, test-parameters on top',
      { kind: 'all' },
      [small, large],
      {
        ok: true,
        tests: [
          {
            preset: 'Large GPU',
            parameters: [
              { name: 'cpu', value: '4' },
              { name: 'gpu', value: 'true' }
            ]
          },
          { preset: 'small', parameters: [{ name: 'cpu', value: '4' }] }
        ],
        note: ''
      }
    ],
    [
      'all on a version without presets: the default test, and it says so',
      { kind: 'all' },
      [],
      {
        ok: true,
        tests: [{ preset: '', parameters: OVERRIDE }],
        note: expect.stringContaining('no presets') as unknown as string
      }
    ],
    [
      'named, in the order given',
      { kind: 'named', names: ['small', 'Large GPU'] },
      [large, small],
      {
        ok: true,
        tests: [
          { preset: 'small', parameters: [{ name: 'cpu', value: '4' }] },
          {
            preset: 'Large GPU',
            parameters: [
              { name: 'cpu', value: '4' },
              { name: 'gpu', value: 'true' }
            ]
          }
        ],
        note: ''
      }
    ],
    [
      'a named preset the version lacks',
      { kind: 'named', names: ['small', 'xl', 'large gpu'] },
      [small, large],
      { ok: false, missing: ['xl', 'large gpu'], available: ['small', 'Large GPU'] }
    ],
    [
      'a named preset on a version without presets',
      { kind: 'named', names: ['small'] },
      [],
      { ok: false, missing: ['small'], available: [] }
    ]
  ])('%s', (_, selection, presets, expected) => {
    expect(choosePresets(selection, presets, OVERRIDE)).toEqual(expected)
  })
})

describe('presetParameters', () => {
  it.each([
    [[], [], []],
    [[{ name: 'a', value: '1' }], [], [{ name: 'a', value: '1' }]],
    [
      [{ name: 'a', value: '1' }],
      [{ name: 'b', value: '2' }],
      [
        { name: 'a', value: '1' },
        { name: 'b', value: '2' }
      ]
    ],
    [[{ name: 'a', value: '1' }], [{ name: 'a', value: '9' }], [{ name: 'a', value: '9' }]]
  ])('%j + %j', (preset, overrides, expected) => {
    expect(presetParameters(preset, overrides)).toEqual(expected)
  })
})

describe('missingPresetsText', () => {
  it.each([
    [['xl'], ['small'], 'the preset "xl" that version v2 lacks; its presets are "small".'],
    [['a', 'b'], [], 'the presets "a", "b" that version v2 lacks; it has no presets.']
  ])('%j of %j', (missing, available, text) => {
    expect(missingPresetsText(missing, available, 'v2')).toContain(text)
  })
})

describe('presetsOfAnswer', () => {
  it.each<[string, unknown, unknown]>([
    ['null = no presets (coderd)', null, { presets: [], duplicates: [] }],
    ['[]', [], { presets: [], duplicates: [] }],
    [
      'PascalCase as coderd sends it, Parameters null',
      [
        {
          ID: 'x',
          Name: 'small',
          Parameters: [{ Name: 'cpu', Value: '2' }],
          Default: true,
          DesiredPrebuildInstances: null
        },
        { ID: 'y', Name: 'bare', Parameters: null, Default: false }
      ],
      {
        presets: [
          { name: 'small', parameters: [{ name: 'cpu', value: '2' }], isDefault: true },
          { name: 'bare', parameters: [], isDefault: false }
        ],
        duplicates: []
      }
    ],
    [
      'camelCase as the API description gives it',
      [{ id: 'x', name: 'small', parameters: [{ name: 'cpu', value: '2' }], default: false }],
      {
        presets: [{ name: 'small', parameters: [{ name: 'cpu', value: '2' }], isDefault: false }],
        duplicates: []
      }
    ],
    [
      'a name twice: the first kept',
      [
        { Name: 'a', Parameters: [{ Name: 'p', Value: '1' }] },
        { Name: 'a', Parameters: [] }
      ],
      {
        presets: [{ name: 'a', parameters: [{ name: 'p', value: '1' }], isDefault: false }],
        duplicates: ['a']
      }
    ],
    ['an object', { presets: [] }, 'not a JSON array'],
    ['no name', [{ Parameters: [] }], 'without a name'],
    [
      'a parameter value not a string',
      [{ Name: 'a', Parameters: [{ Name: 'p', Value: 1 }] }],
      'bad'
    ]
  ])('%s', (_, body, expected) => {
    if (typeof expected === 'string') expect(() => presetsOfAnswer(body)).toThrow(expected)
    else expect(presetsOfAnswer(body)).toEqual(expected)
  })
})
