// gitops-refresh against the Kubernetes sandbox: the preflight's plan (each object exists, patch
// allowed, a Flux source first), the merge patches of both engines, and what the sandbox engines do
// with them (test/sandbox/gitops-nudge.ts): a patched object syncs at once, Argo CD drops its
// annotation, Flux records lastHandledReconcileAt.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import type { KubeConfig } from '@kubernetes/client-node'
import { loadKubeConfig } from '../../src/kube/config.js'
import {
  APPLICATION,
  GIT_REPOSITORY,
  KUSTOMIZATION,
  patchForRefresh,
  planRefresh
} from '../../src/kube/refresh.js'
import { refreshEngines } from '../../src/steps/refresh.js'
import { startGitOpsSync, type GitOpsSync } from '../sandbox/gitops-sync.js'
import type { GitCommit } from '../sandbox/contracts.js'
import { startKubeSandbox } from '../sandbox/kube/server.js'
import type { KubeSandbox } from '../sandbox/kube/server.js'
import { FakeCoder } from '../sandbox-tests/kube/helpers.js'

const ENGINE_RULES = [
  { apiGroups: ['argoproj.io'], resources: ['applications'], verbs: ['get', 'patch'] },
  {
    apiGroups: ['kustomize.toolkit.fluxcd.io', 'source.toolkit.fluxcd.io'],
    resources: ['kustomizations', 'gitrepositories'],
    verbs: ['get', 'patch']
  }
]
const MANIFEST = `apiVersion: coder.com/v1alpha1
kind: CoderTemplateTest
metadata: {name: t1, namespace: coder}
spec: {controlPlaneRef: {name: coder}, template: acme.docker, version: {name: v1}}
`

let kube: KubeSandbox
let kc: KubeConfig
let syncs: GitOpsSync[] = []
let listeners: ((commit: GitCommit) => void)[] = []
const commit = (sha: string): void => {
  const change: GitCommit = {
    owner: 'o',
    repo: 'gitops',
    branch: 'main',
    sha,
    changes: new Map([['tests/t1.yaml', MANIFEST]])
  }
  for (const listener of listeners) listener(change)
}
const loop = (engine: Parameters<typeof startGitOpsSync>[0]['engine']): GitOpsSync => {
  const sync = startGitOpsSync({
    subscribe: (listener) => {
      listeners.push(listener)
      return () => (listeners = listeners.filter((l) => l !== listener))
    },
    kube,
    path: 'tests',
    delayMs: 0,
    pollIntervalMs: 3_600_000,
    engine
  })
  syncs.push(sync)
  return sync
}
const context = (signal = new AbortController().signal) => {
  const warnings: string[] = []
  return {
    warnings,
    context: {
      signal,
      now: () => Date.parse('2026-12-04T10:00:00Z'),
      log: {
        info: () => {},
        debug: () => {},
        warning: (text: string) => warnings.push(text),
        group: <T>(_t: string, body: () => Promise<T>) => body()
      }
    }
  }
}

beforeAll(async () => {
  kube = await startKubeSandbox({ coder: new FakeCoder('acme'), controller: false })
  kc = loadKubeConfig({ kubeconfig: kube.kubeconfig(), context: '' }).kc
})
afterAll(() => kube.close())
beforeEach(() => {
  for (const sync of syncs) sync.stop()
  syncs = []
  kube.rbac.reset()
  for (const rule of ENGINE_RULES) kube.rbac.allow(rule)
})

describe('planRefresh (the preflight)', () => {
  it('an Argo CD Application that exists and may be patched', async () => {
    kube.engines.put('applications', 'argocd', 'tests')
    const plan = await planRefresh({ kc }, [
      { engine: 'argocd', namespace: 'argocd', name: 'tests' }
    ])
    expect(plan).toEqual({
      objects: [{ ...APPLICATION, namespace: 'argocd', name: 'tests' }],
      problems: [],
      notes: []
    })
  })

  it('a Flux Kustomization: its sourceRef GitRepository first, in the sourceRef namespace', async () => {
    kube.engines.put('gitrepositories', 'sources', 'repo')
    kube.engines.put('kustomizations', 'flux-system', 'tests', {
      sourceRef: { kind: 'GitRepository', name: 'repo', namespace: 'sources' }
    })
    const plan = await planRefresh({ kc }, [
      { engine: 'flux', namespace: 'flux-system', name: 'tests' }
    ])
    expect(plan.problems).toEqual([])
    expect(plan.objects).toEqual([
      { ...GIT_REPOSITORY, namespace: 'sources', name: 'repo' },
      { ...KUSTOMIZATION, namespace: 'flux-system', name: 'tests' }
    ])
  })

  it('an OCIRepository source: only the Kustomization, with a note', async () => {
    kube.engines.put('kustomizations', 'flux-system', 'oci', {
      sourceRef: { kind: 'OCIRepository', name: 'x' }
    })
    const plan = await planRefresh({ kc }, [
      { engine: 'flux', namespace: 'flux-system', name: 'oci' }
    ])
    expect(plan.objects.map((o) => o.kind)).toEqual(['Kustomization'])
    expect(plan.notes[0]).toContain('not a GitRepository')
  })

  it('a missing object names the object and the verb', async () => {
    const plan = await planRefresh({ kc }, [
      { engine: 'argocd', namespace: 'argocd', name: 'nope' }
    ])
    expect(plan.objects).toEqual([])
    expect(plan.problems).toEqual([
      expect.stringContaining(
        'gitops-refresh: Application argocd/nope (applications.argoproj.io) does not exist (get answered 404'
      )
    ])
  })

  it('a missing GitRepository of a Kustomization is a problem', async () => {
    kube.engines.put('kustomizations', 'flux-system', 'orphan', {
      sourceRef: { kind: 'GitRepository', name: 'gone' }
    })
    const plan = await planRefresh({ kc }, [
      { engine: 'flux', namespace: 'flux-system', name: 'orphan' }
    ])
    expect(plan.problems).toEqual([
      expect.stringContaining(
        'GitRepository flux-system/gone (gitrepositories.source.toolkit.fluxcd.io) does not exist'
      )
    ])
  })

  it('a denied patch names the verb and the object; a denied get too', async () => {
    kube.engines.put('applications', 'argocd', 'tests')
    kube.rbac.deny({ group: 'argoproj.io', resource: 'applications', verb: 'patch' })
    const denied = await planRefresh({ kc }, [
      { engine: 'argocd', namespace: 'argocd', name: 'tests' }
    ])
    expect(denied.problems).toEqual([
      expect.stringContaining(
        'gitops-refresh: patch applications.argoproj.io "tests" in namespace argocd is denied'
      )
    ])
    kube.rbac.deny({ group: 'argoproj.io', resource: 'applications', verb: 'get' })
    const unread = await planRefresh({ kc }, [
      { engine: 'argocd', namespace: 'argocd', name: 'tests' }
    ])
    expect(unread.problems).toEqual([expect.stringContaining('get is denied')])
  })
})

describe('the patches', () => {
  it('Argo CD: refresh: normal by merge patch and field manager; the sandbox syncs at once and drops it', async () => {
    const sync = loop({ kind: 'argocd', namespace: 'argo', application: 'app' })
    commit('sha-a')
    expect(kube.store.get('coder', 't1')).toBeUndefined() // the poll is an hour away
    const app = { ...APPLICATION, namespace: 'argo', name: 'app' }
    await patchForRefresh({ kc }, app, new Date())
    await sync.idle()
    expect(sync.syncErrors).toEqual([])
    expect(kube.store.get('coder', 't1')).toBeDefined()
    expect(kube.engines.patches.at(-1)).toEqual({
      plural: 'applications',
      key: 'argo/app',
      fieldManager: 'coder-template-gate',
      contentType: 'application/merge-patch+json'
    })
    const after = kube.engines.get('applications', 'argo', 'app')!
    expect(after.metadata.annotations?.['argocd.argoproj.io/refresh']).toBeUndefined()
    expect(after.metadata.managedFields?.at(-1)?.manager).toBe('coder-template-gate')
    kube.store.delete('coder', 't1')
  })

  it('Flux: requestedAt on the source, then the Kustomization; it syncs at once', async () => {
    const sync = loop({ kind: 'flux', namespace: 'flux', kustomization: 'ks', source: 'repo' })
    commit('sha-f')
    const plan = await planRefresh({ kc }, [{ engine: 'flux', namespace: 'flux', name: 'ks' }])
    const { context: ctx, warnings } = context()
    const result = await refreshEngines({ kc, objects: plan.objects }, ctx)
    await sync.idle()
    expect(result.ok && result.value.nudged).toEqual([
      'GitRepository flux/repo (gitrepositories.source.toolkit.fluxcd.io)',
      'Kustomization flux/ks (kustomizations.kustomize.toolkit.fluxcd.io)'
    ])
    expect(warnings).toEqual([])
    expect(sync.syncErrors).toEqual([])
    expect(kube.store.get('coder', 't1')).toBeDefined()
    for (const plural of ['gitrepositories', 'kustomizations'] as const) {
      const object = kube.engines.get(plural, 'flux', plural === 'gitrepositories' ? 'repo' : 'ks')!
      expect(object.metadata.annotations?.['reconcile.fluxcd.io/requestedAt']).toBe(
        '2026-12-04T10:00:00.000Z'
      )
      expect(object.status?.lastHandledReconcileAt).toBe('2026-12-04T10:00:00.000Z')
    }
    kube.store.delete('coder', 't1')
  })

  it('a Kustomization nudged without its source applies nothing new (the sandbox model)', async () => {
    const sync = loop({ kind: 'flux', namespace: 'flux2', kustomization: 'ks', source: 'repo' })
    commit('sha-g')
    await patchForRefresh({ kc }, { ...KUSTOMIZATION, namespace: 'flux2', name: 'ks' }, new Date())
    await sync.idle()
    expect(kube.store.get('coder', 't1')).toBeUndefined()
  })

  it('a refused patch is a warning, never a failure', async () => {
    kube.engines.put('applications', 'argocd', 'refused')
    kube.rbac.deny({ group: 'argoproj.io', resource: 'applications', verb: 'patch' })
    const { context: ctx, warnings } = context()
    const result = await refreshEngines(
      { kc, objects: [{ ...APPLICATION, namespace: 'argocd', name: 'refused' }] },
      ctx
    )
    expect(result.ok).toBe(true)
    expect(result.ok && result.value).toEqual({ nudged: [], warnings })
    expect(warnings).toEqual([
      expect.stringContaining(
        'patching Application argocd/refused (applications.argoproj.io) answered 403'
      )
    ])
  })

  it('a cancel stops the nudge', async () => {
    const controller = new AbortController()
    controller.abort()
    const { context: ctx } = context(controller.signal)
    const result = await refreshEngines(
      { kc, objects: [{ ...APPLICATION, namespace: 'argocd', name: 'tests' }] },
      ctx
    )
    expect(!result.ok && result.failure.status).toBe('cancelled')
  })
})
