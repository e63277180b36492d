// Which buildinfo versions may name a tool-cache directory: a table of the pure rule.
import { describe, expect, it } from '@jest/globals'
import { MAX_SERVER_VERSION_LENGTH, serverVersionProblem } from '../../src/coder/server-version.js'

describe('serverVersionProblem', () => {
  it.each([
    'v2.20.1',
    '2.20.1',
    'v2.20.1+abc1234',
    'v2.21.0-devel+abc1234',
    'v2.21.0-rc.1',
    `v1.2.3-${'a'.repeat(MAX_SERVER_VERSION_LENGTH - 7)}`
  ])('accepts %j', (version) => {
    expect(serverVersionProblem(version)).toBeNull()
  })

  it.each([
    ['a path out of the cache', '../../x'],
    ['a path behind a version', 'v2.20.1/../../x'],
    ['a suffix with a slash', 'v2.20.1-a/b'],
    ['a backslash', 'v2.20.1+..\\..\\x'],
    ['a workflow command after a newline', 'v2.20.1\n::error::x'],
    ['a carriage return', 'v2.20.1\r::warning::x'],
    ['a leading blank', ' v2.20.1'],
    ['two parts only', 'v2.20'],
    ['a name', 'latest'],
    ['empty', ''],
    ['too long', `v1.2.3-${'a'.repeat(MAX_SERVER_VERSION_LENGTH - 6)}`]
  ])('refuses %s', (_what, version) => {
    const problem = serverVersionProblem(version)
    expect(problem).toContain('is not a release version')
    // Shown as one line of data, cut when long.
    expect(problem).not.toMatch(/[\r\n]/)
    expect(problem!.length).toBeLessThan(400)
  })
})
