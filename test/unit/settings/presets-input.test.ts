import { describe, expect, it } from '@jest/globals'
import {
  parsePresetSelection,
  type PresetSelection,
  presetTestNames
} from '../../../src/settings/presets.js'
import { stableHash } from '../../../src/settings/naming.js'

describe('parsePresetSelection', () => {
  it.each<[string, PresetSelection | string]>([
    ['', { kind: 'none' }],
    ['  \n , ', { kind: 'none' }],
    ['all', { kind: 'all' }],
    [' all \n', { kind: 'all' }],
    ['large', { kind: 'named', names: ['large'] }],
    ['small, Large GPU', { kind: 'named', names: ['small', 'Large GPU'] }],
    ['small\nlarge\r\nxl', { kind: 'named', names: ['small', 'large', 'xl'] }],
    ['small,small', { kind: 'named', names: ['small'] }],
    ['All', { kind: 'named', names: ['All'] }],
    ['all, large', '"all" stands alone'],
    [`${'p'.repeat(129)}`, 'longer than 128'],
    [Array.from({ length: 33 }, (_, i) => `p${i}`).join(','), 'at most 32 presets'],
    ['a\tb', 'control character']
  ])('%j -> %j', (text, expected) => {
    const parsed = parsePresetSelection(text)
    if (typeof expected === 'string') expect(parsed).toEqual(expect.stringContaining(expected))
    else expect(parsed).toEqual(expected)
  })
})

describe('presetTestNames', () => {
  const hashOf = (preset: string): string => stableHash(`preset\n${preset}`)
  it.each<[string, string[], Record<string, string>]>([
    ['docker-v2', ['small'], { small: 'docker-v2-small' }],
    ['docker-v2', ['Large GPU'], { 'Large GPU': 'docker-v2-large-gpu' }],
    ['docker-v2', ['Größe_XL.2'], { 'Größe_XL.2': 'docker-v2-gro-e-xl-2' }],
    ['docker-v2', ['!!!'], { '!!!': 'docker-v2-preset' }],
    // Two presets on one label: each gets the hash of its own exact name.
    [
      'docker-v2',
      ['Large GPU', 'large-gpu', 'small'],
      {
        'Large GPU': `docker-v2-large-gpu-${hashOf('Large GPU')}`,
        'large-gpu': `docker-v2-large-gpu-${hashOf('large-gpu')}`,
        small: 'docker-v2-small'
      }
    ]
  ])('%s + %j', (testName, presets, expected) => {
    expect(Object.fromEntries(presetTestNames(testName, presets))).toEqual(expected)
  })

  it('cuts at 63 characters with a hash suffix, distinct for presets sharing a long prefix', () => {
    const base = 'a'.repeat(50)
    const names = presetTestNames(base, ['gpu-large-nodes-x', 'gpu-large-nodes-y'])
    const [x, y] = [...names.values()]
    expect(x).toHaveLength(63)
    expect(x).toMatch(/^a{50}-gpu-[0-9a-f]{8}$/)
    expect(y).toMatch(/^a{50}-gpu-[0-9a-f]{8}$/)
    expect(x).not.toBe(y)
    for (const name of names.values()) expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
  })

  it('is stable: the same preset gets the same name whatever else the version has', () => {
    const alone = presetTestNames('t', ['large']).get('large')
    const withOthers = presetTestNames('t', ['xl', 'large', 'small']).get('large')
    expect(withOthers).toBe(alone)
  })

  it('never gives a preset the default test name', () => {
    expect(presetTestNames('t', ['']).get('')).toBe('t-preset')
  })
})
