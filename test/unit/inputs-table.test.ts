// The README's inputs and outputs tables, and those of docs/reference/, name every input and
// output of action.yml once, and nothing that action.yml lacks.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import YAML from 'yaml'
import { firstCells } from './markdown.js'

const read = (file: string): string =>
  readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')
const action = YAML.parse(read('action.yml')) as {
  inputs: Record<string, unknown>
  outputs: Record<string, unknown>
}

/** The names in the first column (one `name` per row) of the tables headed `header`. */
function namesIn(text: string, header: string): string[] {
  return firstCells(text, header).map((cell) => /^`([a-z0-9-]+)`$/.exec(cell)?.[1] ?? cell)
}

/** What a table gets wrong against the declared names: missing, unknown, or twice. */
function tableProblems(rows: string[], declared: string[]): string[] {
  const missing = declared.filter((name) => !rows.includes(name)).map((n) => `${n}: no row`)
  const unknown = rows
    .filter((name) => !declared.includes(name))
    .map((name) => `${name}: not in action.yml`)
  const twice = rows.filter((name, i) => rows.indexOf(name) !== i).map((n) => `${n}: two rows`)
  return [...missing, ...unknown, ...twice]
}

const INPUTS = Object.keys(action.inputs)
const OUTPUTS = Object.keys(action.outputs)

describe.each([
  ['README.md', 'Input', INPUTS],
  ['docs/reference/inputs.md', 'Input', INPUTS],
  ['README.md', 'Output', OUTPUTS],
  ['docs/reference/outputs.md', 'Output', OUTPUTS]
])('%s, the "%s" tables', (file, header, declared) => {
  const rows = namesIn(read(file), header)

  it('have a row for each one of action.yml, and no other', () => {
    expect(rows.length).toBeGreaterThan(10)
    expect(tableProblems(rows, declared)).toEqual([])
  })
})

describe('the table check', () => {
  it('names a missing row, an unknown input and a row written twice', () => {
    expect(tableProblems(['a', 'b', 'b', 'x'], ['a', 'b', 'c'])).toEqual([
      'c: no row',
      'x: not in action.yml',
      'b: two rows'
    ])
  })

  it('reads the first column of the tables with the header, outside code', () => {
    const text = [
      '| Input | Default |',
      '| --- | --- |',
      '| `a` | 1 |',
      '',
      '| Other |',
      '| --- |',
      '| `z` |',
      '```',
      '| `y` | 2 |',
      '```',
      '| Input | x |',
      '| :-- | - |',
      '| `b` | 2 |'
    ].join('\n')
    expect(namesIn(text, 'Input')).toEqual(['a', 'b'])
  })
})
