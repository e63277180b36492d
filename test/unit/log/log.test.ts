// Which log text is fenced in a stop-commands block: a table of the pure rule of src/log/log.ts.
import { describe, expect, it } from '@jest/globals'
import { looksLikeCommand, safeLogLines } from '../../../src/log/log.js'

describe('looksLikeCommand', () => {
  it.each([
    ['a command', '::warning::x'],
    ['a command after blanks', '  \t::error::x'],
    ['a command on a later line', 'boom\n::add-mask::x'],
    ['a command after a carriage return', 'progress 10%\r::error::x'],
    ['a command after \\r\\n', 'ok\r\n::set-output name=a::b'],
    ['the legacy form at the start', '##[error]x'],
    ['the legacy form inside a line', 'commit message: fix ##[warning]x']
  ])('fences %s', (_what, text) => {
    expect(looksLikeCommand(text)).toBe(true)
  })

  it.each([
    ['plain text', 'Downloading the Coder CLI v2.20.1'],
    ['colons inside a line', 'a::b and c :: d'],
    ['a single colon at the start', ':warning:x'],
    ['a hash without a bracket', '## heading']
  ])('leaves %s alone', (_what, text) => {
    expect(looksLikeCommand(text)).toBe(false)
  })
})

describe('safeLogLines', () => {
  it('fences command-like text with the token, and nothing else', () => {
    expect(safeLogLines('plain', () => 'T')).toEqual(['plain'])
    expect(safeLogLines(' ::error::x', () => 'T')).toEqual([
      '::stop-commands::T',
      ' ::error::x',
      '::T::'
    ])
  })
})
