// End to end: test-presets on the bundle. One test per preset of the pushed version (the sandbox
// reads the presets from coder-presets.json in the template directory, as Coder reads its
// coder_workspace_preset blocks at the import), all manifests in one commit, one watch for all,
// and the promote only when every test passed.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import YAML from 'yaml'
import { expectNoSecrets } from './expect.js'
import { activeVersionName, promoteRequests } from './world-reads.js'
import { oneWorldPerTest, whenLogged } from './world-per-test.js'
import { GITOPS_PATH, GITOPS_REPO, NAMESPACE, OWNER, type World } from '../sandbox/world.js'

const newWorld = oneWorldPerTest()

const PRESETS = [
  { name: 'small', parameters: { cpu: '2', image: 'base' } },
  { name: 'Large GPU', parameters: { cpu: '16', gpu: 'true' } }
]
const SMALL = 'docker-v1-0-0-small'
const LARGE = 'docker-v1-0-0-large-gpu'

function withPresets(w: World, presets = PRESETS): void {
  writeFileSync(path.join(w.workspace, 'docker', 'coder-presets.json'), JSON.stringify(presets))
}

const commits = (w: World) => w.github.commits(OWNER, GITOPS_REPO, 'main')
const results = (run: { outputs: Record<string, string> }) =>
  JSON.parse(run.outputs['test-results'] ?? 'null') as Record<string, string>[]
const watchesOfTests = (w: World, since = 0) =>
  w.kube.requests
    .slice(since)
    .filter((r) => r.path.includes('/codertemplatetests') && /[?&]watch=true/.test(r.path))

describe('test-presets, end to end', () => {
  it('two presets that pass: one commit of both manifests, one watch, promoted', async () => {
    const w = await newWorld.withDocker()
    withPresets(w)
    const before = commits(w).length
    const run = await w.run({ 'test-presets': 'all', 'test-parameters': 'cpu=4' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    expect(activeVersionName(w)).toBe('v1.0.0')
    const version = w.coder.backend.findVersionByName('acme', 'docker', 'v1.0.0')!
    // `all` orders the presets by name: "Large GPU" before "small".
    expect(results(run)).toEqual([
      {
        name: LARGE,
        preset: 'Large GPU',
        phase: 'Succeeded',
        reason: 'Succeeded',
        versionId: version.id
      },
      {
        name: SMALL,
        preset: 'small',
        phase: 'Succeeded',
        reason: 'Succeeded',
        versionId: version.id
      }
    ])
    // Both manifests in one commit; the preset's parameters, then test-parameters on top.
    expect(commits(w)).toHaveLength(before + 1)
    const changes = commits(w).at(-1)!.changes
    expect([...changes.keys()].sort()).toEqual([
      `${GITOPS_PATH}/${LARGE}.yaml`,
      `${GITOPS_PATH}/${SMALL}.yaml`
    ])
    const small = YAML.parse(changes.get(`${GITOPS_PATH}/${SMALL}.yaml`)!)
    expect(small.spec.parameters).toEqual([
      { name: 'cpu', value: '4' },
      { name: 'image', value: 'base' }
    ])
    // One watch of the collection for both tests, not one each.
    expect(watchesOfTests(w).length).toBe(1)
    expect(run.summary).toContain('<th>Preset</th><th>Test</th><th>Phase</th><th>Reason</th>')
    expect(run.summary).toContain(`<td>Large GPU</td><td>${LARGE}</td><td>Succeeded</td>`)
    expect(run.summary).toContain('section Tests (one per preset)')
    expectNoSecrets(w, run)

    // A re-run reuses the identical manifests: no commit, no new test, no second promote.
    const tests = w.kube.store.list(NAMESPACE).length
    const again = await w.run({ 'test-presets': 'all', 'test-parameters': 'cpu=4' })
    expect(again.exitCode).toBe(0)
    expect(again.outputs['commit-sha']).toBe('')
    expect(again.outputs['promotion-result']).toBe('AlreadyActive')
    expect(commits(w)).toHaveLength(before + 1)
    expect(w.kube.store.list(NAMESPACE)).toHaveLength(tests)
    expect(promoteRequests(w)).toBe(1)
  })

  it('one preset fails: no promote, and the error names it', async () => {
    const w = await newWorld.withDocker({
      kube: {
        controller: {
          stepDelayMs: 20,
          scripts: {
            [LARGE]: {
              failAt: {
                step: 'WaitingForAgents',
                reason: 'AgentStartError',
                message: 'no GPU driver'
              }
            }
          }
        }
      }
    })
    withPresets(w)
    const run = await w.run({ 'test-presets': 'small, Large GPU' })
    expect(run.exitCode).toBe(1)
    expect(run.outputs['promotion-result']).toBe('')
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
    expect(run.stdout).toContain(
      `preset "Large GPU" (${LARGE}) Failed / AgentStartError: no GPU driver`
    )
    expect(results(run).map((r) => [r.preset, r.phase, r.reason])).toEqual([
      ['small', 'Succeeded', 'Succeeded'],
      ['Large GPU', 'Failed', 'AgentStartError']
    ])
    expect(run.summary).toContain(
      `<td>Large GPU</td><td>${LARGE}</td><td>Failed</td><td>AgentStartError</td>`
    )
  })

  it('a preset test deleted during the wait: that test ends at once, named, no promote', async () => {
    const w = await newWorld.withDocker({ syncPrune: true })
    withPresets(w)
    // The large test stays running: only its deletion can end this wait before its timeout.
    w.kube.controller!.script(LARGE, { stepDelays: { WaitingForAgents: 600_000 } })
    const prune = whenLogged('WaitingForAgents', () => {
      w.github.writeFile(
        OWNER,
        GITOPS_REPO,
        'main',
        `${GITOPS_PATH}/${LARGE}.yaml`,
        null,
        'Remove a test by hand'
      )
    })
    const run = await w.run({ 'test-presets': 'all', 'wait-timeout-seconds': '120' }, {}, prune)
    expect(prune.firedAt).toBeGreaterThan(0)
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(`preset "Large GPU" (${LARGE}) was deleted`)
    expect(run.stdout).toContain('removed from Git and the GitOps engine pruned the object')
    expect(run.summary).not.toContain('wait-timeout-seconds')
    expect(results(run).find((r) => r.preset === 'small')?.phase).toBe('Succeeded')
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
  })

  it('one preset test squatted with another spec: integrity failure, no promote, the others judged too', async () => {
    const w = await newWorld.withDocker()
    withPresets(w)
    // Someone created the large preset's test name first, with a parameter of their own.
    w.kube.store.create(NAMESPACE, {
      apiVersion: 'coder.com/v1alpha1',
      kind: 'CoderTemplateTest',
      metadata: { name: LARGE, namespace: NAMESPACE },
      spec: {
        controlPlaneRef: { name: 'coder' },
        template: 'acme.docker',
        version: { name: 'v1.0.0' },
        parameters: [{ name: 'image', value: 'evil' }]
      }
    })
    const run = await w.run({ 'test-presets': 'all' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(`preset "Large GPU" (${LARGE}) does not prove this version`)
    expect(run.summary).toContain(`${LARGE}: spec.parameters`)
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
    expect(results(run).find((r) => r.preset === 'small')).toMatchObject({ phase: 'Succeeded' })
    expectNoSecrets(w, run)
  })

  it('an unknown preset name: fails before the commit, naming it and the version’s presets', async () => {
    const w = await newWorld.withDocker()
    withPresets(w)
    const before = commits(w).length
    const run = await w.run({ 'test-presets': 'small\nxl' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(
      'test-presets names the preset "xl" that version v1.0.0 lacks; its presets are "small", "Large GPU".'
    )
    expect(commits(w)).toHaveLength(before)
    expect(w.kube.store.list(NAMESPACE)).toHaveLength(0)
    expect(promoteRequests(w)).toBe(0)
    expect(run.outputs['test-results']).toBe('[]')
  })

  it('all on a version without presets: the one default test, and it says so', async () => {
    const w = await newWorld.withDocker()
    const run = await w.run({ 'test-presets': 'all' })
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toContain('test-presets is "all" but the version has no presets')
    expect(results(run)).toEqual([
      expect.objectContaining({ name: 'docker-v1-0-0', preset: '', phase: 'Succeeded' })
    ])
  })

  it('mode: promote after a test job with presets: finds and checks every test, then promotes', async () => {
    const w = await newWorld.withDocker()
    withPresets(w)
    const test = await w.run({ mode: 'test', 'test-presets': 'all' })
    expect(test.exitCode).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
    const commitsBefore = commits(w).length
    const since = w.kube.requests.length
    const run = await w.run({
      mode: 'promote',
      'test-presets': 'all',
      'expected-active-version-id': test.outputs['previous-active-version-id']!
    })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    expect(activeVersionName(w)).toBe('v1.0.0')
    expect(commits(w)).toHaveLength(commitsBefore)
    expect(results(run).map((r) => [r.name, r.phase])).toEqual([
      [LARGE, 'Succeeded'],
      [SMALL, 'Succeeded']
    ])
    expect(watchesOfTests(w, since).length).toBeLessThanOrEqual(1)
  })

  it('mode: promote refuses when a preset test of the version is missing from Git', async () => {
    const w = await newWorld.withDocker()
    withPresets(w)
    const test = await w.run({ mode: 'test', 'test-presets': 'small' })
    expect(test.exitCode).toBe(0)
    const run = await w.run({ mode: 'promote', 'test-presets': 'all' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(`${GITOPS_PATH}/${LARGE}.yaml does not exist`)
    expect(promoteRequests(w)).toBe(0)
  })

  it('gitops-mode: pull-request: one pull request with every preset manifest, merged, promoted', async () => {
    const w = await newWorld({
      gitopsRepoSettings: { allowAutoMerge: true, mergeabilityDelayMs: 20, autoMergeDelayMs: 20 }
    })
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    withPresets(w)
    const run = await w.run({
      'test-presets': 'all',
      'gitops-mode': 'pull-request',
      'pull-request-merge': 'immediate'
    })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    const pulls = w.github.pullRequests(OWNER, GITOPS_REPO)
    expect(pulls).toHaveLength(1)
    expect(pulls[0]).toMatchObject({ head: 'coder-template-gate/docker-v1-0-0', merged: true })
    expect(pulls[0]!.body).toContain(LARGE)
    expect(pulls[0]!.body).toContain(SMALL)
    for (const name of [LARGE, SMALL])
      expect(
        w.github.readFile(OWNER, GITOPS_REPO, 'main', `${GITOPS_PATH}/${name}.yaml`)
      ).not.toBeNull()
  })
})
