// End to end, where keep-tests gets the creation times it orders the manifests by: the
// push step lists the template's versions once, archived ones included, and the commit step asks
// Coder nothing.
import { describe, expect, it } from '@jest/globals'
import { GITOPS_REPO, OWNER } from '../sandbox/world.js'
import { expectNoSecrets } from './expect.js'
import { oneWorldPerTest } from './world-per-test.js'
import { manifestPathOf, seedOlderVersions } from './older-versions.js'

const startOneWorld = oneWorldPerTest()

describe('keep-tests creation times, end to end', () => {
  it('orders an archived version by its own time, read in one list by the push, none by name', async () => {
    const w = await startOneWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.1.0' })
    // Seeded in this order, so created in this order; v0.5.0, the newest older one, is archived.
    seedOlderVersions(w, ['v0.2.0', 'v0.3.0', 'v0.4.0', 'v0.5.0'], ['v0.5.0'])
    const before = w.coder.requests.length
    const run = await w.run({ 'keep-tests': '2' })
    expect(run.exitCode).toBe(0)
    // This run's manifest and v0.5.0 are the two newest: an archived version is not "oldest".
    expect(run.outputs['pruned-manifests']!.split(',')).toEqual([
      manifestPathOf('v0.2.0'),
      manifestPathOf('v0.3.0'),
      manifestPathOf('v0.4.0')
    ])
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', manifestPathOf('v0.5.0'))).not.toBeNull()
    const paths = w.coder.requests.slice(before).map((request) => request.path)
    expect(paths.filter((path) => /\/versions\/v0\./.test(path))).toEqual([])
    const lists = paths.filter((path) => /\/templates\/[^/]+\/versions\?/.test(path))
    expect(lists.length).toBeGreaterThan(0)
    for (const list of lists) expect(list).toContain('include_archived=true')
    expectNoSecrets(w, run)
  })
})
