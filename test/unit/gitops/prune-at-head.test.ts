// keep-tests decided again at the head the commit goes onto: a removal holds only while the blob
// that was judged the gate's is still at its path.
import { describe, expect, it } from '@jest/globals'
import {
  type DroppedRemoval,
  droppedRemovalText,
  type JudgedRemoval,
  removalsAtHead
} from '../../../src/gitops/prune.js'

const j = (path: string, blobSha: string): JudgedRemoval => ({ path, blobSha })

describe('removalsAtHead', () => {
  it.each<[string, JudgedRemoval[], [string, string | null][], string[], DroppedRemoval[]]>([
    ['nothing judged: nothing', [], [['a.yaml', 'aaa']], [], []],
    ['the same blob: removed', [j('a.yaml', 'aaa')], [['a.yaml', 'aaa']], ['a.yaml'], []],
    [
      'another blob at the path: dropped as replaced',
      [j('a.yaml', 'aaa')],
      [['a.yaml', 'bbb']],
      [],
      [{ path: 'a.yaml', reason: 'replaced' }]
    ],
    [
      'not at the head any more: dropped as gone',
      [j('a.yaml', 'aaa')],
      [['a.yaml', null]],
      [],
      [{ path: 'a.yaml', reason: 'gone' }]
    ],
    [
      'a path never read counts as gone, never as removable',
      [j('a.yaml', 'aaa')],
      [],
      [],
      [{ path: 'a.yaml', reason: 'gone' }]
    ],
    [
      'an empty judged SHA never matches a file',
      [j('a.yaml', '')],
      [['a.yaml', 'aaa']],
      [],
      [{ path: 'a.yaml', reason: 'replaced' }]
    ],
    [
      'mixed: order kept',
      [j('a.yaml', 'aaa'), j('b.yaml', 'bbb'), j('c.yaml', 'ccc'), j('d.yaml', 'ddd')],
      [
        ['a.yaml', 'aaa'],
        ['b.yaml', 'xxx'],
        ['c.yaml', null],
        ['d.yaml', 'ddd']
      ],
      ['a.yaml', 'd.yaml'],
      [
        { path: 'b.yaml', reason: 'replaced' },
        { path: 'c.yaml', reason: 'gone' }
      ]
    ]
  ])('%s', (_name, judged, head, remove, dropped) => {
    expect(removalsAtHead(judged, new Map(head))).toEqual({ remove, dropped })
  })

  it('says which path was kept and why', () => {
    expect(droppedRemovalText({ path: 'a.yaml', reason: 'replaced' })).toBe(
      'a.yaml was not removed: another file was put at that path after keep-tests chose it'
    )
    expect(droppedRemovalText({ path: 'a.yaml', reason: 'gone' })).toBe(
      'a.yaml was not removed: it was already gone from the branch'
    )
  })
})
