// End to end, the commit at its edges: keep-tests decides again at the head it commits onto, so a
// file someone else put at a pruned path during the commit is kept and said, never removed.
import { describe, expect, it } from '@jest/globals'
import { GITOPS_REPO, OWNER } from '../sandbox/world.js'
import { expectNoSecrets } from './expect.js'
import { oneWorldPerTest } from './world-per-test.js'
import { manifestPathOf, seedOlderVersions } from './older-versions.js'

const startOneWorld = oneWorldPerTest()

describe('the commit at its edges, end to end', () => {
  it('a file replaced at a pruned path during the commit is kept, left out of pruned-manifests and said', async () => {
    const w = await startOneWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.1.0' })
    seedOlderVersions(w, ['v0.2.0', 'v0.3.0', 'v0.4.0'])
    const replaced = manifestPathOf('v0.2.0')
    const theirs = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-the-gates\n'
    // Another writer replaces a file keep-tests chose, just before the gate's first commit (its
    // only GraphQL request in commit mode: createCommitOnBranch).
    let raced = false
    const stop = w.github.beforeRequest((method, path) => {
      if (raced || method !== 'POST' || path !== '/graphql') return
      raced = true
      w.github.writeFile(OWNER, GITOPS_REPO, 'main', replaced, theirs, 'not the gate')
    })
    const run = await w.run({ 'keep-tests': '2' }).finally(() => stop())
    expect(raced).toBe(true)
    expect(run.exitCode).toBe(0)
    // v0.2.0 and v0.3.0 were chosen; only the one still the gate's blob went.
    expect(run.outputs['pruned-manifests']).toBe(manifestPathOf('v0.3.0'))
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', replaced)).toBe(theirs)
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', manifestPathOf('v0.3.0'))).toBeNull()
    expect(run.stdout).toContain(
      `${replaced} was not removed: another file was put at that path after keep-tests chose it`
    )
    expect(run.summary).toContain('Kept by keep-tests')
    expect(run.summary).toContain(replaced)
    expectNoSecrets(w, run)
  })
})
