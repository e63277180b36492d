// keep-versions and archive-failed as inputs (action.yml): defaults, bounds, and the errors.
import { describe, it, expect } from '@jest/globals'
import type { InputName } from '../../../src/settings/parse.js'
import { type Inputs, parseWith as parse, refusalsIn } from './settings-fixture.js'

describe('keep-versions and archive-failed', () => {
  it.each<[Inputs, number, boolean]>([
    [{}, 0, false],
    [{ 'keep-versions': '0' }, 0, false],
    [{ 'keep-versions': ' 3 ' }, 3, false],
    [{ 'keep-versions': '1000' }, 1000, false],
    [{ 'archive-failed': 'true' }, 0, true],
    [{ 'archive-failed': 'false', 'keep-versions': '1' }, 1, false]
  ])('%j', (inputs, keepVersions, archiveFailed) => {
    const result = parse(inputs)
    expect(result.ok && result.settings.tidy).toEqual({ keepVersions, archiveFailed })
  })

  const refused = (input: InputName, values: string[], message: string) =>
    values.map((value): [InputName, string, string] => [input, value, message])
  it.each<[InputName, string, string]>([
    ...refused(
      'keep-versions',
      ['-1', '1.5', '1001', 'all'],
      'must be a whole number from 0 to 1000'
    ),
    ...refused('archive-failed', ['yes', 'True'], 'archive-failed')
  ])('%s %j is refused', (input, value, message) => {
    const [refusal] = refusalsIn(input, parse({ [input]: value }))
    expect(refusal).toContain(message)
  })
})
