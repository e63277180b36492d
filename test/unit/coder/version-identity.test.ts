// Version identity: a version of our name is this commit's only when its message ends with this
// commit's marker. A wrong "yes" reuses another commit's version as ours (the tested template is not
// the one of this commit); a wrong "no" fails a re-run that should reuse its own version.
import { describe, expect, it } from '@jest/globals'
import {
  carriesGateMarker,
  hasVersionMarker,
  isUuid,
  withVersionMarker
} from '../../../src/coder/version-identity.js'

const SHA = '0123456789abcdef0123456789abcdef01234567'
const SHA12 = '0123456789ab'
const OTHER = 'fedcba9876543210fedcba9876543210fedcba98'
const RUN = 'https://github.com/acme/templates/actions/runs/77'
const LATER_RUN = 'https://github.com/acme/templates/actions/runs/78'

describe('withVersionMarker', () => {
  it.each([
    ['a message and a commit', 'Add Go', SHA, RUN, `Add Go (commit ${SHA12}, ${RUN})`],
    ['an upper-case sha', 'Add Go', SHA.toUpperCase(), RUN, `Add Go (commit ${SHA12}, ${RUN})`],
    ['a short sha as it is', 'Add Go', 'abc1234', RUN, `Add Go (commit abc1234, ${RUN})`],
    ['no commit: the run URL alone', 'Add Go', '', RUN, `Add Go (${RUN})`]
  ])('%s', (_, message, sha, run, expected) => {
    expect(withVersionMarker(message, sha, run)).toBe(expected)
  })
})

describe('hasVersionMarker', () => {
  it.each<[string, string, string, boolean]>([
    ['our marker', `Add Go (commit ${SHA12}, ${RUN})`, SHA, true],
    [
      'our marker from another run (another run URL)',
      `Add Go (commit ${SHA12}, ${LATER_RUN})`,
      SHA,
      true
    ],
    ['our marker without a run URL', `Add Go (commit ${SHA12})`, SHA, true],
    ['our marker, then blanks and a newline', `Add Go (commit ${SHA12}, ${RUN}) \n`, SHA, true],
    [
      'our marker, the sha given in upper case',
      `Add Go (commit ${SHA12}, ${RUN})`,
      SHA.toUpperCase(),
      true
    ],
    ['a multi-line message', `Add Go\n\nand more (commit ${SHA12}, ${RUN})`, SHA, true],
    ["another commit's marker", `Add Go (commit ${OTHER.slice(0, 12)}, ${RUN})`, SHA, false],
    ['our marker, then more text', `Add Go (commit ${SHA12}, ${RUN}) and more`, SHA, false],
    [
      "our marker quoted before another commit's",
      `Revert "(commit ${SHA12}, ${RUN})" (commit ${OTHER.slice(0, 12)}, ${LATER_RUN})`,
      SHA,
      false
    ],
    ['the first 7 characters only', `Add Go (commit ${SHA.slice(0, 7)}, ${RUN})`, SHA, false],
    ['a marker in upper case', `Add Go (commit ${SHA12.toUpperCase()}, ${RUN})`, SHA, false],
    ['no marker', 'Add Go', SHA, false],
    ['the run URL alone', `Add Go (${RUN})`, SHA, false],
    ['an empty message', '', SHA, false],
    ['no commit known', `Add Go (commit ${SHA12}, ${RUN})`, '', false],
    ['a commit shorter than a marker', `Add Go (commit abc1234, ${RUN})`, 'abc1234', false],
    [
      'a commit shorter than a marker, and a marker that starts with it',
      `Add Go (commit abc1234abcde, ${RUN})`,
      'abc1234',
      false
    ],
    ['a marker with a blank in the URL part', `Add Go (commit ${SHA12}, a b)`, SHA, false]
  ])('%s -> %s', (_, message, sha, expected) => {
    expect(hasVersionMarker(message, sha)).toBe(expected)
  })

  it.each([
    ['Add Go', SHA, RUN],
    ['', SHA, RUN],
    ['ends like a marker (commit aaaaaaaaaaaa, x)', SHA, RUN],
    ['line one\nline two', SHA.toUpperCase(), RUN]
  ])('finds the marker that withVersionMarker wrote: %j', (message, sha, run) => {
    const written = withVersionMarker(message, sha, run)
    expect(hasVersionMarker(written, sha)).toBe(true)
    expect(hasVersionMarker(written, OTHER)).toBe(false)
  })
})

describe('carriesGateMarker', () => {
  it.each([
    [withVersionMarker('m', 'abcdef0123456789', 'https://github.com/o/r/actions/runs/1'), true],
    ['(commit abcdef012345, https://x/runs/1)', true],
    ['(commit abcdef012345)', true],
    ['pushed by hand', false],
    ['(commit abcdef012345, https://x/runs/1) and more', false],
    ['', false]
  ])('%s -> %s', (message, expected) => {
    expect(carriesGateMarker(message)).toBe(expected)
  })
})

describe('isUuid: the form of every Coder ID', () => {
  it.each<[unknown, boolean]>([
    ['aaaaaaaa-0000-4000-8000-000000000001', true],
    ['AAAAAAAA-0000-4000-8000-000000000001', true],
    ['aaaaaaaa-0000-4000-8000-00000000001', false],
    ['aaaaaaaa00004000800000000000000001', false],
    [' aaaaaaaa-0000-4000-8000-000000000001', false],
    ['aaaaaaaa-0000-4000-8000-000000000001\n', false],
    ['gggggggg-0000-4000-8000-000000000001', false],
    ['v1.0.0', false],
    ['', false],
    [null, false],
    [42, false]
  ])('%j: %s', (value, expected) => {
    expect(isUuid(value)).toBe(expected)
  })
})
