// End to end: the bundle built from src/ (test/e2e/bundle-setup.ts), run the way the GitHub runner
// runs it, against the sandbox world. Each test asserts the exit code, the outputs, the summary and
// what the world saw — and that no secret shows anywhere. Split over three files so that jest runs
// them side by side: this one, gate-reruns.test.ts and gate-inputs-promotion.test.ts.
import { describe, expect, it } from '@jest/globals'
import { expectCleanSuccess, expectNoSecrets, testedVersionOutputs } from './expect.js'
import { activeVersionName, manifestInGit, promoteRequests } from './world-reads.js'
import { oneWorldPerTest, whenLogged } from './world-per-test.js'
import { NAMESPACE, OWNER } from '../sandbox/world.js'

const newWorld = oneWorldPerTest()

describe('the gate, end to end', () => {
  it('pushes, commits, waits, verifies and promotes exactly the tested version', async () => {
    const w = await newWorld.withDocker()
    const previous = w.coder.backend.findTemplate(OWNER, 'docker')!.activeVersionId
    const run = await w.run()
    const pushed = expectCleanSuccess(w, run)
    expect(run.outputs).toEqual({
      ...testedVersionOutputs(w, pushed.id),
      phase: 'Succeeded',
      reason: 'Succeeded',
      message: expect.stringContaining(
        'was ready, and the workspace is deleted'
      ) as unknown as string,
      'promotion-result': 'Promoted',
      'previous-active-version-id': previous,
      'active-version-id': pushed.id,
      'pull-request-number': '',
      'pull-request-url': '',
      'pruned-manifests': '',
      'archived-versions': '',
      // With test-presets '': the one default test.
      'test-results': JSON.stringify([
        {
          name: 'docker-v1-0-0',
          preset: '',
          phase: 'Succeeded',
          reason: 'Succeeded',
          versionId: pushed.id
        }
      ]),
      'verification-result': '',
      'verified-version-id': '',
      'rolled-back-to-version-id': '',
      'deployment-id': '',
      // The sandbox sync loop applies 50 ms after the commit: a change landed, so never empty.
      'sync-seconds': expect.stringMatching(/^\d+\.\d$/) as unknown as string
    })
    expect(activeVersionName(w)).toBe('v1.0.0')
    expect(manifestInGit(w, 'docker-v1-0-0')).toMatchObject({
      spec: {
        template: 'acme.docker',
        version: { name: 'v1.0.0' },
        timeoutSeconds: 900,
        controlPlaneRef: { name: 'coder' }
      }
    })
    const promote = w.kube.requests.filter((r) => r.path.includes('/promote'))
    expect(promote).toHaveLength(1)
    expect(promote[0]!.path).toBe(
      `/apis/aggregation.coder.com/v1alpha1/namespaces/${NAMESPACE}/codertemplates/acme.docker/promote?timeout=30s`
    )
    expect(JSON.parse(promote[0]!.body!)).toMatchObject({ spec: { versionID: pushed.id } })
    expect(run.summary).toContain('✅ docker v1.0.0 passed its test and was promoted')
    expect(run.summary).toContain('Timeline of the test')
    expect(run.stdout).toContain('::notice')
    expectNoSecrets(w, run)
  })

  it('fails on a failed test, with reason, message and advice, and promotes nothing', async () => {
    const w = await newWorld.withDocker()
    w.kube.controller!.script('docker-v1-0-0', {
      failAt: {
        step: 'WaitingForAgents',
        reason: 'AgentStartError',
        message: 'The startup script exited 1.'
      }
    })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.outputs).toMatchObject({
      phase: 'Failed',
      reason: 'AgentStartError',
      'promotion-result': ''
    })
    expect(run.stdout).toContain('::error')
    expect(run.summary).toContain('AgentStartError')
    expect(run.summary).toContain('startup script failed')
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
    expectNoSecrets(w, run)
  })

  it('refuses a squatted test name with another spec', async () => {
    const w = await newWorld.withDocker()
    // Someone created our test name first, with a parameter of their own.
    w.kube.store.create(NAMESPACE, {
      apiVersion: 'coder.com/v1alpha1',
      kind: 'CoderTemplateTest',
      metadata: { name: 'docker-v1-0-0', namespace: NAMESPACE },
      spec: {
        controlPlaneRef: { name: 'coder' },
        template: 'acme.docker',
        version: { name: 'v1.0.0' },
        parameters: [{ name: 'image', value: 'evil' }]
      }
    })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.summary).toContain('spec.parameters: committed nothing, found')
    expect(run.stdout).toContain('does not prove version v1.0.0')
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
    expectNoSecrets(w, run)
  })

  it('refuses a test whose status names another version ID', async () => {
    const w = await newWorld.withDocker()
    const other = w.coder.backend.findTemplate(OWNER, 'docker')!.activeVersionId
    w.kube.controller!.script('docker-v1-0-0', { overrideVersionID: other })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.summary).toContain('status.templateVersionID')
    expect(promoteRequests(w)).toBe(0)
    expectNoSecrets(w, run)
  })

  it('waits while the status is of an older generation', async () => {
    const w = await newWorld.withDocker()
    let finalAt = 0
    w.kube.controller!.script('docker-v1-0-0', {
      staleGeneration: { mode: 'old-observed-generation', forMs: 1500 },
      onFinal: (info) => (finalAt = info.at)
    })
    const run = await w.run()
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    // The stale Succeeded was written first; the promotion waited for the fresh write.
    expect(w.kube.firstPromoteAt! - finalAt).toBeGreaterThanOrEqual(1500)
    expectNoSecrets(w, run)
  })

  it('waits through a controller that is down before the first status', async () => {
    const w = await newWorld.withDocker()
    w.kube.controller!.script('docker-v1-0-0', { downForMs: 1500 })
    const run = await w.run()
    expect(run.exitCode).toBe(0)
    expect(run.summary).toContain('(no status)')
    expectNoSecrets(w, run)
  })

  it('waits through a controller outage in the middle of the test, and promotes only after it', async () => {
    const w = await newWorld.withDocker()
    w.kube.controller!.script('docker-v1-0-0', { stepDelayMs: 100 })
    let recoveredAt = 0
    const outage = whenLogged('Running / WaitingForBuild', () => {
      w.kube.controller!.setDown(true)
      setTimeout(() => {
        expect(promoteRequests(w)).toBe(0)
        recoveredAt = Date.now()
        w.kube.controller!.setDown(false)
      }, 1500)
    })
    const run = await w.run({}, {}, outage)
    expect(recoveredAt).toBeGreaterThan(0)
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    expect(w.kube.firstPromoteAt!).toBeGreaterThan(recoveredAt)
    expectNoSecrets(w, run)
  })

  it('re-reads and re-watches when watch streams drop', async () => {
    const w = await newWorld.withDocker()
    w.kube.controller!.script('docker-v1-0-0', { stepDelayMs: 300 })
    let dropped = 0
    const timer = setInterval(() => (dropped += w.kube.dropWatches()), 400)
    const run = await w.run().finally(() => clearInterval(timer))
    expect(dropped).toBeGreaterThan(0)
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    const watches = w.kube.requests.filter((r) => r.path.includes('watch=')).length
    expect(watches).toBeGreaterThan(1)
    expectNoSecrets(w, run)
  })

  it('tests without promoting with promote: false', async () => {
    const w = await newWorld.withDocker()
    const previous = w.coder.backend.findTemplate(OWNER, 'docker')!.activeVersionId
    const run = await w.run(
      { promote: 'false' },
      {
        eventName: 'pull_request',
        ref: 'refs/pull/7/merge',
        payload: {
          number: 7,
          pull_request: {
            number: 7,
            title: 'Try Go',
            head: { sha: 'abcdef1234567890abcdef1234567890abcdef12' }
          }
        }
      }
    )
    expect(run.exitCode).toBe(0)
    expect(run.outputs).toMatchObject({
      'version-name': 'pr-7-abcdef1',
      'promotion-result': 'Skipped',
      'active-version-id': previous,
      'previous-active-version-id': previous
    })
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
    expect(run.summary).toContain('promotion skipped')
    expectNoSecrets(w, run)
  })

  it('previews with promote: dry-run and changes nothing', async () => {
    const w = await newWorld.withDocker()
    const run = await w.run({ promote: 'dry-run' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('WouldPromote')
    expect(w.kube.requests.find((r) => r.path.includes('/promote'))!.path).toContain('dryRun=All')
    expect(activeVersionName(w)).toBe('v0.9.0')
    expectNoSecrets(w, run)
  })
})
