// End to end, a Coder that stays tidy: keep-versions archives the gate's older versions
// and nothing else; archive-failed archives this run's version when its test failed; dry-run only
// lists. The run's chart is in the summary.
import { describe, expect, it } from '@jest/globals'
import { withVersionMarker } from '../../src/coder/version-identity.js'
import { OWNER, type World } from '../sandbox/world.js'
import { expectNoSecrets } from './expect.js'
import { activeVersionName } from './world-reads.js'
import { oneWorldPerTest } from './world-per-test.js'

const newWorld = oneWorldPerTest()
const OLD_SHA = '0123456789abcdef0123456789abcdef01234567'
const GATE_MESSAGE = withVersionMarker(
  'older release',
  OLD_SHA,
  'https://github.com/acme/templates/actions/runs/5'
)

/** 5 gate versions g1..g5 (g3 active), a hand-pushed one between them; g1 used by a workspace. */
function seedHistory(w: World): void {
  w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
  for (const name of ['g1', 'g2', 'laptop', 'g3', 'g4', 'g5']) {
    w.coder.seedVersion({
      template: 'docker',
      name,
      message: name === 'laptop' ? 'pushed by hand' : GATE_MESSAGE,
      activate: name === 'g3'
    })
  }
  w.coder.useVersion(w.coder.backend.findVersionByName(OWNER, 'docker', 'g1')!.id)
}

function archivedNames(w: World): string[] {
  return w.coder.backend
    .listVersions(OWNER, 'docker')
    .filter((v) => v.archived)
    .map((v) => v.name)
}

describe('keep-versions and archive-failed, end to end', () => {
  it('keep-versions: 2 archives exactly the older gate versions that may go', async () => {
    const w = await newWorld()
    seedHistory(w)
    const run = await w.run({ 'keep-versions': '2' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    expect(activeVersionName(w)).toBe('v1.0.0')
    // Newest two: v1.0.0 (ours, now active) and g5. g3 was active at the start (the rollback
    // target); g1 is in use, so Coder refuses it; laptop and v0.9.0 carry no gate marker.
    expect(archivedNames(w).sort()).toEqual(['g2', 'g4'])
    expect(run.outputs['archived-versions']).toBe('g2,g4')
    expect(run.summary).toContain('Archived versions')
    expect(run.summary).toContain('g3: kept, active when the run started (the rollback target)')
    expect(run.summary).toMatch(/g1: not archived, Coder refused/)
    expect(run.summary).toContain('```mermaid\ngantt')
    expect(run.summary).toMatch(/section Test \(controller clock\)\n {4}Test workspace build :done/)
    expect(run.summary).toMatch(/ {4}tidy succeeded :done, step\d+, \d+, \d+/)
    expect(run.summary).toContain('Timeline of the test')
    expectNoSecrets(w, run)
  })

  it('promote: dry-run lists what would be archived and archives nothing', async () => {
    const w = await newWorld()
    seedHistory(w)
    const run = await w.run({ 'keep-versions': '2', promote: 'dry-run' })
    expect(run.exitCode).toBe(0)
    expect(archivedNames(w)).toEqual([])
    expect(run.outputs['archived-versions']).toBe('')
    expect(run.summary).toContain('Would archive (dry-run)')
    expect(w.coder.requests.filter((r) => r.path.endsWith('/archive'))).toEqual([])
  })

  it("archive-failed archives this run's version when its test failed, and says how to undo it", async () => {
    const w = await newWorld.withDocker()
    w.kube.controller!.script('docker-v1-0-0', {
      failAt: { step: 'WaitingForAgents', reason: 'AgentStartError', message: 'exit 1.' }
    })
    const run = await w.run({ 'archive-failed': 'true' })
    expect(run.exitCode).toBe(1)
    expect(run.outputs.phase).toBe('Failed')
    expect(archivedNames(w)).toEqual(['v1.0.0'])
    expect(run.outputs['archived-versions']).toBe('v1.0.0')
    expect(activeVersionName(w)).toBe('v0.9.0')
    expect(run.summary).toContain('was archived because its test failed (archive-failed)')
    expect(run.summary).toContain('coder templates versions unarchive docker v1.0.0 -O acme')
    expectNoSecrets(w, run)
  })
})
