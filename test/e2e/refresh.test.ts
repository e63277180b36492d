// gitops-refresh end to end: the bundle against a world whose sync loop polls Git every 10 minutes
// (Argo CD's default is 3). With the nudge the test appears long before the next poll, and
// sync-seconds says how long it took; a patch the preflight finds forbidden stops the run before any
// side effect.
import { describe, expect, it } from '@jest/globals'
import { expectCleanSuccess, expectNoSecrets } from './expect.js'
import { manifestInGit } from './world-reads.js'
import { oneWorldPerTest } from './world-per-test.js'
import { GITOPS_REPO, OWNER } from '../sandbox/world.js'
import type { World } from '../sandbox/world.js'

const newWorld = oneWorldPerTest()
const POLL_MS = 600_000

function allowEngines(w: World): void {
  w.kube.rbac.allow({
    apiGroups: ['argoproj.io'],
    resources: ['applications'],
    verbs: ['get', 'patch']
  })
  w.kube.rbac.allow({
    apiGroups: ['kustomize.toolkit.fluxcd.io', 'source.toolkit.fluxcd.io'],
    resources: ['kustomizations', 'gitrepositories'],
    verbs: ['get', 'patch']
  })
}

/** The test appeared well before the poll: sync-seconds is far below the poll interval. */
function expectNudged(run: { outputs: Record<string, string>; summary: string }): void {
  const seconds = run.outputs['sync-seconds'] ?? ''
  expect(seconds).toMatch(/^\d+\.\d$/)
  expect(Number(seconds)).toBeLessThan(POLL_MS / 1000 / 10)
  expect(run.summary).toContain('(sync-seconds)')
}

describe('gitops-refresh, end to end', () => {
  it('Argo CD with a 10-minute poll: the Application is refreshed, the test appears at once', async () => {
    const w = await newWorld.withDocker({
      syncPollMs: POLL_MS,
      syncEngine: { kind: 'argocd', namespace: 'argocd', application: 'coder-tests' }
    })
    allowEngines(w)
    const run = await w.run({ 'gitops-refresh': 'argocd:argocd/coder-tests' })
    expectCleanSuccess(w, run)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    expectNudged(run)
    expect(w.kube.engines.patches).toEqual([
      {
        plural: 'applications',
        key: 'argocd/coder-tests',
        fieldManager: 'coder-template-gate',
        contentType: 'application/merge-patch+json'
      }
    ])
    // The sandbox's Argo CD removes the annotation after the refresh.
    const app = w.kube.engines.get('applications', 'argocd', 'coder-tests')!
    expect(app.metadata.annotations?.['argocd.argoproj.io/refresh']).toBeUndefined()
    expectNoSecrets(w, run)
  })

  it('mode: verify refreshes the Application after its commit too', async () => {
    const w = await newWorld.withDocker({
      syncEngine: { kind: 'argocd', namespace: 'argocd', application: 'coder-tests' }
    })
    allowEngines(w)
    const run = await w.run({ mode: 'verify', 'gitops-refresh': 'argocd:argocd/coder-tests' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['verification-result']).toBe('Passed')
    expect(w.kube.engines.patches.map((p) => `${p.plural} ${p.key} ${p.fieldManager}`)).toEqual([
      'applications argocd/coder-tests coder-template-gate'
    ])
    expect(run.summary).toContain('asked 1 of 1 object(s) to reconcile')
  })

  it('Flux with a 10-minute interval: the GitRepository, then the Kustomization', async () => {
    const w = await newWorld.withDocker({
      syncPollMs: POLL_MS,
      syncEngine: {
        kind: 'flux',
        namespace: 'flux-system',
        kustomization: 'coder-tests',
        source: 'gitops'
      }
    })
    allowEngines(w)
    const run = await w.run({ 'gitops-refresh': 'flux:flux-system/coder-tests' })
    expectCleanSuccess(w, run)
    expectNudged(run)
    expect(w.kube.engines.patches.map((p) => `${p.plural} ${p.key} ${p.fieldManager}`)).toEqual([
      'gitrepositories flux-system/gitops coder-template-gate',
      'kustomizations flux-system/coder-tests coder-template-gate'
    ])
    const ks = w.kube.engines.get('kustomizations', 'flux-system', 'coder-tests')!
    const requestedAt = ks.metadata.annotations?.['reconcile.fluxcd.io/requestedAt'] ?? ''
    expect(new Date(requestedAt).toISOString()).toBe(requestedAt)
  })

  it('pull-request mode: the nudge comes after the merge, never for the pull request branch', async () => {
    const w = await newWorld.withDocker({
      syncPollMs: POLL_MS,
      syncEngine: { kind: 'argocd', namespace: 'argocd', application: 'coder-tests' },
      gitopsRepoSettings: { mergeabilityDelayMs: 20 }
    })
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    allowEngines(w)
    let mergedAt = 0
    let patchedAt = 0
    w.github.onCommit((commit) => {
      if (commit.repo === GITOPS_REPO && commit.branch === 'main') mergedAt ||= Date.now()
    })
    w.kube.engines.events.on('patched', () => (patchedAt ||= Date.now()))
    const run = await w.run({
      'gitops-mode': 'pull-request',
      'pull-request-merge': 'immediate',
      'gitops-refresh': 'argocd:argocd/coder-tests'
    })
    expectCleanSuccess(w, run)
    expect(mergedAt).toBeGreaterThan(0)
    expect(patchedAt).toBeGreaterThanOrEqual(mergedAt)
    expect(w.kube.engines.patches).toHaveLength(1)
    expectNudged(run)
  })

  it('a forbidden patch is found by the preflight: nothing is pushed or committed', async () => {
    const w = await newWorld.withDocker({
      syncPollMs: POLL_MS,
      syncEngine: { kind: 'argocd', namespace: 'argocd', application: 'coder-tests' }
    })
    allowEngines(w)
    w.kube.rbac.deny({ group: 'argoproj.io', resource: 'applications', verb: 'patch' })
    const run = await w.run({ 'gitops-refresh': 'argocd:argocd/coder-tests' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(
      'gitops-refresh: patch applications.argoproj.io \\"coder-tests\\" in namespace argocd is denied'.replace(
        /\\"/g,
        '"'
      )
    )
    expect(w.coder.backend.findVersionByName(OWNER, 'docker', 'v1.0.0')).toBeNull()
    expect(manifestInGit(w, 'docker-v1-0-0')).toBeNull()
    expect(w.kube.engines.patches).toEqual([])
    expect(run.outputs['sync-seconds']).toBe('')
  })
})
