// Competing writers (interface.md, "Competing writers"): which versions a CoderTemplate spec.files
// writer made, the newest three, and the warning.
import { describe, expect, it } from '@jest/globals'
import {
  competingVersions,
  competingWritersWarning,
  type NamedVersion
} from '../../../src/coder/competing-writers.js'

const v = (name: string, createdAt = ''): NamedVersion => ({ name, createdAt })
const HEX = '0123456789abcdef0123'

describe('competingVersions', () => {
  it.each<[string, NamedVersion[], string[]]>([
    ['none', [v('v1.0.0'), v('main-abc1234')], []],
    ['one', [v('v1.0.0'), v(`k8s-${HEX}`)], [`k8s-${HEX}`]],
    ['with a -N suffix', [v(`k8s-${HEX}-2`)], [`k8s-${HEX}-2`]],
    [
      'not the shape: 19 or 21 hex, uppercase, another prefix, a bad suffix',
      [
        v(`k8s-${HEX.slice(1)}`),
        v(`k8s-${HEX}0`),
        v(`k8s-${HEX.toUpperCase()}`),
        v(`k9s-${HEX}`),
        v(`k8s-${HEX}-x`),
        v(`k8s-${HEX}-`)
      ],
      []
    ],
    [
      'the newest three by created_at, unknown times last',
      [
        v(`k8s-${HEX}`, '2026-01-01T00:00:00Z'),
        v(`k8s-${HEX}-1`, '2026-03-01T00:00:00Z'),
        v(`k8s-${HEX}-2`, ''),
        v(`k8s-${HEX}-3`, '2026-02-01T00:00:00Z'),
        v(`k8s-${HEX}-4`, '2026-04-01T00:00:00Z')
      ],
      [`k8s-${HEX}-4`, `k8s-${HEX}-1`, `k8s-${HEX}-3`]
    ]
  ])('%s', (_name, versions, names) => {
    expect(competingVersions(versions).map((x) => x.name)).toEqual(names)
  })
})

describe('competingWritersWarning', () => {
  it('is null without such versions', () => {
    expect(competingWritersWarning('docker', [], 0)).toBeNull()
  })
  it('names the count and the newest', () => {
    expect(competingWritersWarning('docker', [v(`k8s-${HEX}`, '2026-01-01T00:00:00Z')], 4)).toBe(
      `Template docker has 4 versions named k8s-<hex>, made by a coder-k8s CoderTemplate spec.files writer (newest: k8s-${HEX} (2026-01-01T00:00:00Z)). Its next sync can re-activate its own version and undo a promotion: let one writer manage this template.`
    )
  })
})
