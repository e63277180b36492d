// End to end: deployment-environment on the bundle. A release records its promotion as a GitHub
// deployment of the workflow's commit; a nightly verification finds `previous` from two recorded
// releases and rolls back to it; a token that may not write deployments gives one warning.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { expectNoSecrets } from './expect.js'
import { activeVersionName } from './world-reads.js'
import { oneWorldPerTest } from './world-per-test.js'
import { HEAD_SHA, OWNER, TEMPLATES_REPO, type World } from '../sandbox/world.js'

const newWorld = oneWorldPerTest()
const ENVIRONMENT = 'coder-docker'

async function releaseWorld(): Promise<World> {
  const w = await newWorld.withDocker()
  // The workflow's own repository, where the deployments go.
  w.github.createRepo(OWNER, TEMPLATES_REPO, { defaultBranch: 'main' })
  return w
}

const idOf = (w: World, name: string) =>
  w.coder.backend.findVersionByName(OWNER, 'docker', name)!.id
const deployments = (w: World) => w.github.deployments(OWNER, TEMPLATES_REPO)
const lastState = (d: { statuses: { state: string }[] }) => d.statuses.at(-1)!.state

describe('deployment-environment, end to end', () => {
  it('a release records its promotion: the commit, the payload, in_progress then success', async () => {
    const w = await releaseWorld()
    const previous = idOf(w, 'v0.9.0')
    const run = await w.run({ 'deployment-environment': ENVIRONMENT })
    expect(run.exitCode).toBe(0)
    const [deployment] = deployments(w)
    expect(deployments(w)).toHaveLength(1)
    expect(deployment).toMatchObject({
      sha: HEAD_SHA,
      environment: ENVIRONMENT,
      payload: {
        template: 'docker',
        organization: 'acme',
        versionId: idOf(w, 'v1.0.0'),
        versionName: 'v1.0.0',
        previousVersionId: previous,
        testNames: ['docker-v1-0-0']
      }
    })
    expect(deployment!.statuses.map((s) => s.state)).toEqual(['in_progress', 'success'])
    expect(run.outputs['deployment-id']).toBe(String(deployment!.id))
    expect(run.summary).toContain('GitHub deployment')
    // A second run of the same release promotes nothing (AlreadyActive) and records nothing.
    const again = await w.run({ 'deployment-environment': ENVIRONMENT })
    expect(again.outputs['promotion-result']).toBe('AlreadyActive')
    expect(deployments(w)).toHaveLength(1)
    expectNoSecrets(w, run)
  })

  it('a release with test-presets records the name of every preset test', async () => {
    const w = await releaseWorld()
    writeFileSync(
      path.join(w.workspace, 'docker', 'coder-presets.json'),
      JSON.stringify([
        { name: 'small', parameters: { cpu: '2' } },
        { name: 'Large GPU', parameters: { gpu: 'true' } }
      ])
    )
    const run = await w.run({ 'deployment-environment': ENVIRONMENT, 'test-presets': 'all' })
    expect(run.exitCode).toBe(0)
    expect(deployments(w)).toHaveLength(1)
    expect(deployments(w)[0]!.payload).toMatchObject({
      testNames: ['docker-v1-0-0-large-gpu', 'docker-v1-0-0-small']
    })
  })

  it('rollback-to: previous, found from two recorded releases', async () => {
    const w = await releaseWorld()
    const env = { 'deployment-environment': ENVIRONMENT }
    expect((await w.run(env)).exitCode).toBe(0)
    expect((await w.run(env, { ref: 'refs/tags/v1.1.0' })).exitCode).toBe(0)
    expect(activeVersionName(w)).toBe('v1.1.0')
    // The first release is inactive now: GitHub's auto_inactive after the second success.
    expect(deployments(w).map(lastState)).toEqual(['inactive', 'success'])
    w.kube.controller!.script('docker-live-4242-1', {
      failAt: { step: 'WaitingForAgents', reason: 'AgentStartError' }
    })
    const run = await w.run({ ...env, mode: 'verify', 'rollback-to': 'previous' })
    expect(run.exitCode).toBe(1)
    expect(run.outputs).toMatchObject({
      'verification-result': 'RolledBack',
      'verified-version-id': idOf(w, 'v1.1.0'),
      'rolled-back-to-version-id': idOf(w, 'v1.0.0')
    })
    expect(activeVersionName(w)).toBe('v1.0.0')
    const all = deployments(w)
    // The verification (failure) and the rollback (success), which retires the second release.
    expect(all.map(lastState)).toEqual(['inactive', 'inactive', 'failure', 'success'])
    expect(all[2]!.payload).toMatchObject({ versionId: idOf(w, 'v1.1.0') })
    expect(all[3]!.payload).toMatchObject({
      versionId: idOf(w, 'v1.0.0'),
      previousVersionId: idOf(w, 'v1.1.0'),
      testNames: ['docker-live-4242-1']
    })
    expect(run.outputs['deployment-id']).toBe(String(all[3]!.id))
  })

  it('a token whose account may only read: the preflight says so once, nothing is tried', async () => {
    const w = await releaseWorld()
    const token = 'ghs_read_only_account_token'
    w.github.addToken(token, { role: 'read' })
    const before = w.github.requests.length
    const run = await w.run({ 'deployment-environment': ENVIRONMENT, 'github-token': token })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    const warnings = run.stdout.split('\n').filter((l) => l.includes('deployment'))
    expect(warnings.filter((l) => l.startsWith('::warning::'))).toHaveLength(1)
    expect(run.stdout).toContain('cannot record deployments')
    const writes = w.github.requests.slice(before).filter((r) => r.path.includes('/deployments'))
    expect(writes).toEqual([])
  })

  it('a token that may not write deployments: one warning, the release still succeeds', async () => {
    const w = await releaseWorld()
    const token = 'ghs_no_deployments_token'
    w.github.addToken(token, { deployments: 'read' })
    const run = await w.run({ 'deployment-environment': ENVIRONMENT, 'github-token': token })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    expect(run.outputs['deployment-id']).toBe('')
    const warnings = run.stdout.split('\n').filter((l) => l.includes('Could not record'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^::warning::.*deployments: write/)
    const shown = run.everything.split('\n').filter((l) => !l.startsWith('::add-mask::'))
    expect(shown.join('\n')).not.toContain(token)
    expect(run.stdout).toContain(`::add-mask::${token}`)
  })
})
