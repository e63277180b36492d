// The sandbox's compare pairs renames as git does (at least 50% similar), so the gate's branch
// guard meets "renamed" entries with previous_filename, as on GitHub.
import { describe, expect, it } from '@jest/globals'
import { diffEntries, type TreeFile } from '../../sandbox/github/diff-entries.js'

const file = (text: string, sha = text): TreeFile => ({ sha, text })
const tree = (files: Record<string, string>) =>
  new Map(Object.entries(files).map(([path, text]) => [path, file(text)]))

const TEST_V1 = 'kind: CoderTemplateTest\nname: docker-v1\nversion: v1\nnamespace: coder\n'
const TEST_V2 = 'kind: CoderTemplateTest\nname: docker-v2\nversion: v2\nnamespace: coder\n'

describe('diffEntries', () => {
  it.each<[string, Record<string, string>, Record<string, string>, unknown[]]>([
    ['nothing changed', { a: 'x\n' }, { a: 'x\n' }, []],
    ['an added file', {}, { a: 'x\n' }, [{ path: 'a', sha: 'x\n', status: 'added' }]],
    ['a removed file', { a: 'x\n' }, {}, [{ path: 'a', sha: 'x\n', status: 'removed' }]],
    ['a changed file', { a: 'x\n' }, { a: 'y\n' }, [{ path: 'a', sha: 'y\n', status: 'modified' }]],
    [
      'the same bytes under another path',
      { old: 'x\n' },
      { new: 'x\n' },
      [{ path: 'new', sha: 'x\n', status: 'renamed', previousPath: 'old' }]
    ],
    [
      'half the lines shared: a rename',
      { 'v1.yaml': TEST_V1 },
      { 'v2.yaml': TEST_V2 },
      [{ path: 'v2.yaml', sha: TEST_V2, status: 'renamed', previousPath: 'v1.yaml' }]
    ],
    [
      'fewer than half shared: a removal and an addition',
      { a: 'one\ntwo\nthree\n' },
      { b: 'one\nfour\nfive\n' },
      [
        { path: 'a', sha: 'one\ntwo\nthree\n', status: 'removed' },
        { path: 'b', sha: 'one\nfour\nfive\n', status: 'added' }
      ]
    ]
  ])('%s', (_name, before, after, expected) => {
    expect(diffEntries(tree(before), tree(after))).toEqual(expected)
  })
})
