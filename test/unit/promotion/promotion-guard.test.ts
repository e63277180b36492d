import { describe, expect, it } from '@jest/globals'
import { guardPromotion, type VersionFacts } from '../../../src/promotion/guard.js'

const v = (id: string, createdAt?: string): VersionFacts => ({ id, name: `name-${id}`, createdAt })
const ours = v('ours', '2026-12-02T10:00:00.000Z')
const older = v('older', '2026-12-01T10:00:00.000Z')
const newer = v('newer', '2026-12-03T10:00:00.000Z')
const unknown = v('unknown')

describe('guardPromotion', () => {
  it.each([
    // [case, starting, active, allowRollback, expected kind, why]
    ['ours is active already', older, ours, false, 'already-active', undefined],
    ['ours active in a template this run created', null, ours, false, 'already-active', undefined],
    ['an older version, unchanged since the start', older, older, false, 'promote', undefined],
    [
      'changed during the run to an older version',
      older,
      v('other', '2026-11-01T00:00:00Z'),
      false,
      'refused',
      'changed'
    ],
    ['changed during the run, even with allow-rollback', older, newer, true, 'refused', 'changed'],
    ['a template this run created, now another version', null, older, false, 'refused', 'changed'],
    [
      'a newer version active since the start (re-run of an old release)',
      newer,
      newer,
      false,
      'refused',
      'rollback'
    ],
    ['the same rollback with allow-rollback', newer, newer, true, 'promote', undefined],
    [
      'unknown creation time: refused without allow-rollback',
      unknown,
      unknown,
      false,
      'refused',
      'rollback'
    ],
    ['unknown creation time with allow-rollback', unknown, unknown, true, 'promote', undefined],
    [
      'created at the same instant counts as not older',
      v('same', ours.createdAt),
      v('same', ours.createdAt),
      false,
      'refused',
      'rollback'
    ]
  ] as const)('%s', (_name, starting, active, allowRollback, kind, why) => {
    const decision = guardPromotion({ ours, starting, active, allowRollback })
    expect(decision.kind).toBe(kind)
    if (decision.kind === 'refused') {
      expect(decision.why).toBe(why)
      expect(decision.active).toBe(active)
      // The refusal names the version that is active now, by name and ID.
      expect(decision.message).toContain(active.id)
      expect(decision.message).toContain(active.name)
    }
  })

  it('names allow-rollback only for a rollback', () => {
    const rollback = guardPromotion({ ours, starting: newer, active: newer, allowRollback: false })
    const changed = guardPromotion({ ours, starting: older, active: newer, allowRollback: false })
    expect(rollback.kind === 'refused' && rollback.message).toContain('allow-rollback: true')
    expect(changed.kind === 'refused' && changed.message).not.toContain('allow-rollback')
  })

  it.each<[string, VersionFacts, VersionFacts, string]>([
    ['both times known', ours, newer, `(${newer.createdAt} after ${ours.createdAt})`],
    ['the active time unknown', ours, unknown, '(or the creation times are unknown)'],
    ['our time unknown', v('ours', ''), newer, '(or the creation times are unknown)']
  ])(
    'a rollback refusal shows the creation times only when both are known: %s',
    (_, o, a, text) => {
      const decision = guardPromotion({ ours: o, starting: a, active: a, allowRollback: false })
      expect(decision.kind === 'refused' && decision.why).toBe('rollback')
      expect(decision.kind === 'refused' && decision.message).toContain(text)
    }
  )

  it('names the starting version, or none, when another writer changed it', () => {
    const changed = guardPromotion({ ours, starting: older, active: newer, allowRollback: false })
    const created = guardPromotion({ ours, starting: null, active: newer, allowRollback: false })
    expect(changed.kind === 'refused' && changed.message).toContain(
      'it was name-older (older) when the run started and is name-newer (newer) now'
    )
    expect(created.kind === 'refused' && created.message).toContain('it was none when the run')
  })

  it.each([
    [false, 'it was name-older (older) when the run started and is name-newer (newer) now'],
    [
      true,
      "it was name-older (older) at the guard's starting point (expected-active-version-id, the version active when the test job started) and is name-newer (newer) now"
    ]
  ])(
    'says where the starting point came from (expected-active-version-id: %s)',
    (expected, text) => {
      const decision = guardPromotion({
        ours,
        starting: older,
        active: newer,
        allowRollback: false,
        startingIsExpected: expected
      })
      expect(decision.kind === 'refused' && decision.message).toContain(text)
    }
  )
})
