// End to end, as gate.test.ts: re-runs, a moved tag, a concurrent writer, Git holding another
// manifest, the timeouts, SIGINT and the tool cache.
import { describe, expect, it } from '@jest/globals'
import { expectNoSecrets } from './expect.js'
import { activeVersionName, manifestInGit, promoteRequests } from './world-reads.js'
import { oneWorldPerTest, whenLogged } from './world-per-test.js'
import { GITOPS_PATH, GITOPS_REPO, NAMESPACE, OWNER, type WorldOptions } from '../sandbox/world.js'

const newWorld = oneWorldPerTest()

interface TimeoutCase {
  what: string
  world: WorldOptions
  /** How long the controller answers nothing; 0: not scripted. */
  controllerDownForMs: number
  inputs: Record<string, string>
  /** Texts the log and the summary must show. */
  logged: string[]
  summarised: string[]
}

describe('the gate, end to end: re-runs, conflicts, timeouts and cancels', () => {
  it('gives the same end state on a re-run: no new version, commit, test or promotion', async () => {
    const w = await newWorld.withDocker()
    const first = await w.run()
    expect(first.exitCode).toBe(0)
    const versions = w.coder.backend.listVersions(OWNER, 'docker').length
    const commits = w.github.commits(OWNER, GITOPS_REPO, 'main').length
    const tests = w.kube.store.list(NAMESPACE).length
    // Another workflow run of the same commit: a new run URL, the same inputs.
    const second = await w.run({}, { runId: '4243' })
    expect(second.exitCode).toBe(0)
    expect(second.stdout).toContain('already pushed')
    expect(second.outputs['commit-sha']).toBe('')
    expect(second.outputs['promotion-result']).toBe('AlreadyActive')
    expect(second.outputs['version-id']).toBe(first.outputs['version-id'])
    expect(w.coder.backend.listVersions(OWNER, 'docker')).toHaveLength(versions)
    expect(w.github.commits(OWNER, GITOPS_REPO, 'main')).toHaveLength(commits)
    expect(w.kube.store.list(NAMESPACE)).toHaveLength(tests)
    expect(activeVersionName(w)).toBe('v1.0.0')
    expectNoSecrets(w, second)
  })

  it('refuses a version of our name that this commit did not push (a moved tag, a manual push)', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v1.0.0', message: 'pushed by hand' })
    const commits = w.github.commits(OWNER, GITOPS_REPO, 'main').length
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('this commit did not push it')
    expect(w.github.commits(OWNER, GITOPS_REPO, 'main')).toHaveLength(commits)
    expect(promoteRequests(w)).toBe(0)
    expectNoSecrets(w, run)
  })

  it('retries the commit after a concurrent writer moved the branch', async () => {
    const w = await newWorld.withDocker()
    w.github.injectConflicts(2, 409)
    const run = await w.run()
    expect(run.exitCode).toBe(0)
    expect(manifestInGit(w, 'docker-v1-0-0')).not.toBeNull()
    expectNoSecrets(w, run)
  })

  it('fails when Git holds a different manifest under the test name, and leaves it unchanged', async () => {
    const w = await newWorld.withDocker()
    const first = await w.run({ version: 'V2.0_rc1' })
    expect(first.exitCode).toBe(0)
    const before = w.github.readFile(
      OWNER,
      GITOPS_REPO,
      'main',
      `${GITOPS_PATH}/docker-v2-0-rc1.yaml`
    )
    // v2-0-rc1 maps to the same test name as V2.0_rc1.
    const run = await w.run({ version: 'v2-0-rc1' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('already exists on branch main')
    expect(run.stdout).toContain('spec is immutable')
    expect(run.summary).toContain('<tr><td>commit</td><td>failed</td>')
    expect(run.summary).toContain('<tr><td>sync</td><td>not run</td>')
    expect(
      w.github.readFile(OWNER, GITOPS_REPO, 'main', `${GITOPS_PATH}/docker-v2-0-rc1.yaml`)
    ).toBe(before)
    expect(activeVersionName(w)).toBe('V2.0_rc1')
    expectNoSecrets(w, run)
  })

  it.each<TimeoutCase>([
    {
      what: 'with the last phase when the controller never finishes',
      world: {},
      controllerDownForMs: 60_000,
      inputs: { 'wait-timeout-seconds': '2' },
      logged: ['was not final within 2 s'],
      summarised: ['timed out', '<tr><td>test</td><td>timed out</td>']
    },
    {
      what: 'when GitOps never creates the test',
      world: { noSync: true },
      controllerDownForMs: 0,
      inputs: { 'sync-timeout-seconds': '2' },
      logged: ['did not appear in the cluster within 2 s', 'does not exist yet'],
      summarised: []
    }
  ])('times out $what', async ({ world, controllerDownForMs, inputs, logged, summarised }) => {
    const w = await newWorld.withDocker(world)
    if (controllerDownForMs)
      w.kube.controller!.script('docker-v1-0-0', { downForMs: controllerDownForMs })
    const run = await w.run(inputs)
    expect(run.exitCode).toBe(1)
    for (const text of logged) expect(run.stdout).toContain(text)
    for (const text of summarised) expect(run.summary).toContain(text)
    expect(promoteRequests(w)).toBe(0)
    expectNoSecrets(w, run)
  })

  it('stops promptly on SIGINT while waiting, writes the summary and promotes nothing', async () => {
    const w = await newWorld.withDocker()
    w.kube.controller!.script('docker-v1-0-0', { downForMs: 60_000 })
    const cancel = whenLogged('waiting for the controller', (child) => child.kill('SIGINT'))
    const run = await w.run({}, {}, cancel)
    expect(cancel.firedAt).toBeGreaterThan(0)
    expect(run.exitCode).not.toBe(0)
    expect(run.signal).toBeNull()
    expect(run.summary).toContain('cancelled; nothing was promoted')
    expect(run.summary).toContain('<tr><td>test</td><td>cancelled</td>')
    expect(promoteRequests(w)).toBe(0)
    expectNoSecrets(w, run)
  })

  it('downloads the deployment CLI once and takes it from the tool cache after', async () => {
    const w = await newWorld.withDocker()
    const toolCache = (await import('node:fs')).mkdtempSync(
      `${(await import('node:os')).tmpdir()}/gate-tools-`
    )
    const first = await w.run({ 'coder-cli': '' }, { toolCache })
    expect(first.exitCode).toBe(0)
    const second = await w.run({ 'coder-cli': '', version: 'v1.0.1' }, { toolCache })
    expect(second.exitCode).toBe(0)
    expect(w.coder.requests.filter((r) => r.path.startsWith('/bin/coder-')).length).toBe(1)
    expectNoSecrets(w, second)
  })
})
