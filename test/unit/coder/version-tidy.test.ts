// The choice of versions to archive (keep-versions, archive-failed): a table.
import { describe, it, expect } from '@jest/globals'
import {
  chooseVersionsToArchive,
  type ListedVersion,
  refusedArchiveWarning,
  type TidyChoiceInput
} from '../../../src/coder/version-tidy.js'
import { withVersionMarker } from '../../../src/coder/version-identity.js'

const gate = (id: string, minute: number, extra: Partial<ListedVersion> = {}): ListedVersion => ({
  id,
  name: `n-${id}`,
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
  message: withVersionMarker('feat', 'abcdef0123456789', 'https://github.com/o/r/actions/runs/1'),
  importing: false,
  ...extra
})
const hand = (id: string, minute: number): ListedVersion =>
  gate(id, minute, { message: 'pushed by hand from a laptop' })

const base: TidyChoiceInput = {
  versions: [],
  keep: 2,
  archiveOurs: false
}

const cases: [string, Partial<TidyChoiceInput>, string[], string[]][] = [
  // [case, input, archived IDs (oldest first), kept-beyond-N IDs]
  [
    'keep 0 keeps everything',
    { keep: 0, versions: [gate('a', 1), gate('b', 2), gate('c', 3)] },
    [],
    []
  ],
  ['fewer than N: nothing', { versions: [gate('a', 1), gate('b', 2)] }, [], []],
  [
    'ordering by created_at, not by list order',
    { versions: [gate('c', 3), gate('a', 1), gate('e', 5), gate('b', 2), gate('d', 4)] },
    ['a', 'b', 'c'],
    []
  ],
  [
    'ties at the same created_at: the larger ID counts as newer',
    { keep: 1, versions: [gate('x', 7), gate('y', 7), gate('z', 7)] },
    ['x', 'y'],
    []
  ],
  [
    'the active version stays',
    { activeId: 'a', versions: [gate('a', 1), gate('b', 2), gate('c', 3), gate('d', 4)] },
    ['b'],
    ['a']
  ],
  [
    'the version active at the start (rollback target) stays',
    { startingActiveId: 'b', versions: [gate('a', 1), gate('b', 2), gate('c', 3), gate('d', 4)] },
    ['a'],
    ['b']
  ],
  [
    "this run's version stays without archive-failed",
    { keep: 1, oursId: 'b', versions: [gate('a', 1), gate('b', 2), gate('c', 3)] },
    ['a'],
    ['b']
  ],
  [
    "archive-failed: this run's version goes and takes none of the N places",
    {
      keep: 2,
      oursId: 'c',
      archiveOurs: true,
      versions: [gate('a', 1), gate('b', 2), gate('c', 3)]
    },
    ['c'],
    []
  ],
  [
    "archive-failed with keep 0 archives only this run's version",
    { keep: 0, oursId: 'b', archiveOurs: true, versions: [gate('a', 1), gate('b', 2)] },
    ['b'],
    []
  ],
  [
    "archive-failed never archives this run's version when it is active",
    { keep: 0, oursId: 'b', activeId: 'b', archiveOurs: true, versions: [gate('b', 2)] },
    [],
    ['b']
  ],
  [
    "other writers' versions are never archived nor counted",
    { keep: 1, versions: [hand('h1', 1), gate('a', 2), hand('h2', 3), gate('b', 4)] },
    ['a'],
    []
  ],
  [
    'a version that no longer exists (ours, the rollback target) changes nothing',
    {
      keep: 1,
      oursId: 'gone-1',
      startingActiveId: 'gone-2',
      activeId: 'gone-3',
      versions: [gate('a', 1), gate('b', 2)]
    },
    ['a'],
    []
  ],
  [
    'an import still running stays',
    { keep: 1, versions: [gate('a', 1, { importing: true }), gate('b', 2)] },
    [],
    ['a']
  ],
  [
    'a version without a readable created_at is never archived',
    { keep: 1, versions: [gate('a', 1, { createdAt: '' }), gate('b', 2), gate('c', 3)] },
    ['b'],
    ['a']
  ]
]

describe('chooseVersionsToArchive', () => {
  it.each(cases)('%s', (_name, input, archived, kept) => {
    const choice = chooseVersionsToArchive({ ...base, ...input })
    expect(choice.archive.map((v) => v.id)).toEqual(archived)
    expect(choice.kept.map((k) => k.version.id).sort()).toEqual([...kept].sort())
  })

  it('does not change the list it is given', () => {
    const versions = [gate('b', 2), gate('a', 1), gate('c', 3)]
    chooseVersionsToArchive({ ...base, keep: 1, versions })
    expect(versions.map((v) => v.id)).toEqual(['b', 'a', 'c'])
  })
})

describe('refusedArchiveWarning', () => {
  it.each([
    ['a plain reason', 'Coder refused: in use', 'Coder refused: in use'],
    ['lines flattened', 'Coder refused: a\r\n::error::x\nb', 'Coder refused: a ::error::x b'],
    ['a long reason cut', `Coder refused: ${'x'.repeat(400)}`, `Coder refused: ${'x'.repeat(284)}…`]
  ])('%s', (_, note, reason) => {
    expect(refusedArchiveWarning('v1', note)).toBe(
      `Version v1 was not archived (keep-versions / archive-failed): ${reason}. It stays in Coder.`
    )
  })
})
