// End to end: mode: verify on the bundle. A new test of the active version (`version.active`),
// the same wait and one-read checks as the gate, the decision from the version that ran and a final
// read of the active version, and the guarded rollback. Nothing is pushed.
import { describe, expect, it } from '@jest/globals'
import { expectNoSecrets } from './expect.js'
import { activeVersionName, manifestInGit, promoteRequests } from './world-reads.js'
import { oneWorldPerTest, whenLogged } from './world-per-test.js'
import { buildTestManifest, renderManifest } from '../../src/objects/manifest.js'
import { GITOPS_PATH, GITOPS_REPO, NAMESPACE, OWNER, type World } from '../sandbox/world.js'

const newWorld = oneWorldPerTest()
/** The live test of run 4242, attempt 1 (the runner's defaults in test/sandbox/action-runner.ts). */
const LIVE = 'docker-live-4242-1'

const idOf = (w: World, name: string) =>
  w.coder.backend.findVersionByName(OWNER, 'docker', name)!.id

function failLive(w: World): void {
  w.kube.controller!.script(LIVE, {
    failAt: {
      step: 'WaitingForAgents',
      reason: 'AgentStartError',
      message: 'The startup script exited 1.'
    }
  })
}

describe('mode: verify, end to end', () => {
  it('a live version that passes: Passed, no push, one new active-version test', async () => {
    const w = await newWorld.withDocker()
    const active = idOf(w, 'v0.9.0')
    const run = await w.run({ mode: 'verify' })
    expect(run.stderr).toBe('')
    expect(run.exitCode).toBe(0)
    expect(run.outputs).toMatchObject({
      'verification-result': 'Passed',
      'verified-version-id': active,
      'rolled-back-to-version-id': '',
      'version-name': 'v0.9.0',
      'version-id': active,
      'test-name': LIVE,
      'manifest-path': `${GITOPS_PATH}/${LIVE}.yaml`,
      'promotion-result': '',
      'previous-active-version-id': active,
      'active-version-id': active,
      'deployment-id': ''
    })
    expect(manifestInGit(w, LIVE)).toMatchObject({
      spec: { template: 'acme.docker', version: { active: true } }
    })
    expect(w.coder.cliInvocations).toHaveLength(0)
    // No CLI download either: the preflight reads only.
    expect(w.coder.requests.some((r) => r.path.startsWith('/bin/'))).toBe(false)
    expect(promoteRequests(w)).toBe(0)
    expect(run.summary).toContain('the live version passed its test')
    expect(run.summary).toContain('Verification result')
    expectNoSecrets(w, run)
  })

  it('gitops-mode: pull-request: the live test reaches gitops-branch through the gate’s pull request, then Passed', async () => {
    const w = await newWorld.withDocker({
      gitopsRepoSettings: { allowAutoMerge: true, mergeabilityDelayMs: 20, autoMergeDelayMs: 20 }
    })
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    const run = await w.run({
      mode: 'verify',
      'gitops-mode': 'pull-request',
      'pull-request-merge': 'immediate'
    })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['verification-result']).toBe('Passed')
    const [pr] = w.github.pullRequests(OWNER, GITOPS_REPO)
    expect(pr).toMatchObject({ merged: true, title: 'Verify the active version of acme.docker' })
    expect(run.outputs['pull-request-url']).toContain(`/pull/${pr!.number}`)
    expect(manifestInGit(w, LIVE)).toMatchObject({ spec: { version: { active: true } } })
    expect(promoteRequests(w)).toBe(0)
  })

  it('a live version that fails is rolled back, behind the guard', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
    failLive(w)
    const run = await w.run({ mode: 'verify', 'rollback-to': 'v0.8.0' })
    expect(run.exitCode).toBe(1)
    expect(run.outputs).toMatchObject({
      'verification-result': 'RolledBack',
      'verified-version-id': idOf(w, 'v0.9.0'),
      'rolled-back-to-version-id': idOf(w, 'v0.8.0'),
      'active-version-id': idOf(w, 'v0.8.0'),
      'promotion-result': 'Promoted',
      phase: 'Failed',
      reason: 'AgentStartError'
    })
    expect(activeVersionName(w)).toBe('v0.8.0')
    expect(promoteRequests(w)).toBe(1)
    expect(run.summary).toContain('was rolled back to v0.8.0')
    expect(run.summary).toContain('guard: v0.9.0 was still active')
    expectNoSecrets(w, run)
  })

  it('promote: false: the rollback is skipped, and no promote request (not even a dry run) is sent', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
    failLive(w)
    const run = await w.run({ mode: 'verify', promote: 'false', 'rollback-to': 'v0.8.0' })
    expect(run.exitCode).toBe(1)
    expect(run.outputs).toMatchObject({
      'verification-result': 'Failed',
      'rolled-back-to-version-id': '',
      'promotion-result': 'Skipped',
      'active-version-id': idOf(w, 'v0.9.0')
    })
    expect(run.summary).toContain('promote: false, nothing sent')
    expect(promoteRequests(w)).toBe(0)
  })

  it('refuses a rollback to an archived version, naming it; Failed', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0', archived: true })
    failLive(w)
    const run = await w.run({ mode: 'verify', 'rollback-to': 'v0.8.0' })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['verification-result']).toBe('Failed')
    expect(run.outputs['rolled-back-to-version-id']).toBe('')
    expect(run.outputs['promotion-result']).toBe('')
    expect(run.summary).toContain(`v0.8.0 (${idOf(w, 'v0.8.0')}) is archived`)
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
  })

  it("another writer's promotion during the live test: Inconclusive, exit 0, no rollback", async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
    w.coder.seedVersion({ template: 'docker', name: 'v1.1.0' })
    w.kube.controller!.script(LIVE, {
      failAt: { step: 'WaitingForAgents', reason: 'AgentStartError' },
      // Another writer promotes v1.1.0 once the test of v0.9.0 has ended.
      onFinal: () => w.coder.activateVersion({ template: 'docker', version: 'v1.1.0' })
    })
    const run = await w.run({ mode: 'verify', 'rollback-to': 'v0.8.0' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs).toMatchObject({
      'verification-result': 'Inconclusive',
      'verified-version-id': idOf(w, 'v0.9.0'),
      'rolled-back-to-version-id': '',
      'active-version-id': idOf(w, 'v1.1.0')
    })
    expect(run.stdout).toMatch(
      /::warning::The live verification is inconclusive: the test ran v0\.9\.0 .* and v1\.1\.0 .* is active now/
    )
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v1.1.0')
  })

  it('the live version fails and someone else puts the rollback target live: Inconclusive, not RolledBack, nothing sent', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
    w.kube.controller!.script(LIVE, {
      failAt: { step: 'WaitingForAgents', reason: 'AgentStartError' },
      onFinal: () => w.coder.activateVersion({ template: 'docker', version: 'v0.8.0' })
    })
    const run = await w.run({ mode: 'verify', 'rollback-to': 'v0.8.0' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs).toMatchObject({
      'verification-result': 'Inconclusive',
      'verified-version-id': idOf(w, 'v0.9.0'),
      'active-version-id': idOf(w, 'v0.8.0'),
      'rolled-back-to-version-id': ''
    })
    expect(run.stdout).toMatch(
      /::warning::The live verification is inconclusive: the test ran v0\.9\.0 .* and v0\.8\.0 .* is active now/
    )
    expect(promoteRequests(w)).toBe(0)
  })

  it('the test ran a version another writer promoted, then the target went live: Inconclusive, never RolledBack', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
    w.coder.seedVersion({ template: 'docker', name: 'v1.1.0' })
    let release = (): void => undefined
    w.kube.controller!.script(LIVE, {
      holdUntil: new Promise<void>((resolve) => (release = resolve)),
      failAt: { step: 'WaitingForAgents', reason: 'AgentStartError' },
      // Someone puts the rollback target live by hand once v1.1.0 failed.
      onFinal: () => w.coder.activateVersion({ template: 'docker', version: 'v0.8.0' })
    })
    // While the gate waits, another writer promotes v1.1.0; the controller then resolves it.
    const other = whenLogged('waiting for the controller', () => {
      w.coder.activateVersion({ template: 'docker', version: 'v1.1.0' })
      release()
    })
    const run = await w.run({ mode: 'verify', 'rollback-to': 'v0.8.0' }, {}, other)
    expect(other.firedAt).toBeGreaterThan(0)
    expect(run.exitCode).toBe(0)
    expect(run.outputs).toMatchObject({
      'verification-result': 'Inconclusive',
      'verified-version-id': idOf(w, 'v1.1.0'),
      'previous-active-version-id': idOf(w, 'v0.9.0'),
      'active-version-id': idOf(w, 'v0.8.0'),
      'rolled-back-to-version-id': '',
      'promotion-result': ''
    })
    expect(run.stdout).toMatch(
      /::warning::The live verification is inconclusive: the test ran v1\.1\.0 .* but v0\.9\.0 .* was active when the run started/
    )
    expect(run.summary).not.toContain('rolled back')
    expect(promoteRequests(w)).toBe(0)
  })

  it("keep-tests prunes this template's older live tests in the same commit, never a version's test", async () => {
    const w = await newWorld.withDocker()
    const write = (name: string, version: string | { active: true }) =>
      w.github.writeFile(
        OWNER,
        GITOPS_REPO,
        'main',
        `${GITOPS_PATH}/${name}.yaml`,
        renderManifest(
          buildTestManifest({
            testName: name,
            namespace: NAMESPACE,
            controlPlane: 'coder',
            organization: OWNER,
            template: 'docker',
            version,
            parameters: [],
            timeoutSeconds: 900
          })
        )
      )
    write('docker-live-99-1', { active: true })
    write('docker-live-1000-1', { active: true })
    write('docker-v0-9-0', 'v0.9.0')
    const run = await w.run({ mode: 'verify', 'keep-tests': '2' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['pruned-manifests']).toBe(`${GITOPS_PATH}/docker-live-99-1.yaml`)
    expect(manifestInGit(w, 'docker-live-1000-1')).not.toBeNull()
    expect(manifestInGit(w, 'docker-v0-9-0')).not.toBeNull()
    expect(manifestInGit(w, LIVE)).not.toBeNull()
  })

  it('a second run of the same attempt changes nothing: the same test, no new commit or promotion', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
    failLive(w)
    const first = await w.run({ mode: 'verify', 'rollback-to': 'v0.8.0' })
    expect(first.outputs['verification-result']).toBe('RolledBack')
    const commits = w.github.commits(OWNER, 'gitops', 'main').length
    const again = await w.run({ mode: 'verify', 'rollback-to': 'v0.8.0' })
    // The same test ran v0.9.0, but v0.8.0 was live when this run started: nothing proves who
    // made it so, so the run claims no rollback.
    expect(again.exitCode).toBe(0)
    expect(again.outputs['verification-result']).toBe('Inconclusive')
    expect(again.outputs['rolled-back-to-version-id']).toBe('')
    expect(w.github.commits(OWNER, 'gitops', 'main')).toHaveLength(commits)
    expect(promoteRequests(w)).toBe(1)
    expect(activeVersionName(w)).toBe('v0.8.0')
  })
})

describe('mode: verify, cancelled', () => {
  it('a cancel during the live test never rolls back, and the summary is written', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
    // The controller holds the test until the run is gone; it would fail it after.
    w.kube.controller!.script(LIVE, {
      holdUntil: new Promise(() => undefined),
      failAt: { step: 'WaitingForAgents', reason: 'AgentStartError' }
    })
    const cancel = whenLogged('waiting for the controller', (child) => child.kill('SIGINT'))
    const run = await w.run({ mode: 'verify', 'rollback-to': 'v0.8.0' }, {}, cancel)
    expect(cancel.firedAt).toBeGreaterThan(0)
    expect(run.exitCode).not.toBe(0)
    expect(run.outputs['verification-result']).toBe('')
    expect(run.outputs['rolled-back-to-version-id']).toBe('')
    expect(run.summary).toContain('cancelled')
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
  })
})

describe('competing writers, end to end', () => {
  const HEX = [
    '0123456789abcdef0123',
    'fedcba98765432100123',
    'aaaaaaaaaabbbbbbbbbb',
    '00000000001111111111'
  ]

  it('the gate warns in the log and the summary, naming the newest three, and still promotes', async () => {
    const w = await newWorld.withDocker()
    for (const hex of HEX) w.coder.seedVersion({ template: 'docker', name: `k8s-${hex}` })
    const run = await w.run()
    expect(run.exitCode).toBe(0)
    const warning = run.stdout
      .split('\n')
      .find((line) => line.startsWith('::warning::Template docker has 4 versions named k8s-'))
    expect(warning).toBeDefined()
    // Seeded in this order, so the last three are the newest.
    for (const hex of HEX.slice(1)) expect(warning).toContain(`k8s-${hex}`)
    expect(warning).not.toContain(`k8s-${HEX[0]}`)
    expect(run.summary).toContain('made by a coder-k8s CoderTemplate spec.files writer')
    expect(run.outputs['promotion-result']).toBe('Promoted')
  })

  it('mode: verify warns too', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: `k8s-${HEX[0]}-1` })
    const run = await w.run({ mode: 'verify' })
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toContain(`::warning::Template docker has 1 version named k8s-<hex>`)
    expect(run.summary).toContain(`k8s-${HEX[0]}-1`)
  })
})
