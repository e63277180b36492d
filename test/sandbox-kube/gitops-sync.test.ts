// The GitOps sync loop: commits under the watched folder are applied after the delay; same spec is
// left alone; a changed spec is a sync error with the API server's immutable-spec message.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { stringify } from 'yaml'
import { startKubeSandbox } from '../sandbox/kube/server.js'
import type { KubeSandbox } from '../sandbox/kube/server.js'
import { startGitOpsSync } from '../sandbox/gitops-sync.js'
import type { GitOpsSync } from '../sandbox/gitops-sync.js'
import type { GitCommit } from '../sandbox/contracts.js'
import { FakeCoder, testManifest } from './helpers.js'

let sha = 0
function commit(changes: Record<string, string | null>, branch = 'main'): GitCommit {
  sha += 1
  return {
    owner: 'org',
    repo: 'gitops',
    branch,
    sha: sha.toString(16).padStart(40, '0'),
    changes: new Map(Object.entries(changes))
  }
}

describe('GitOps sync loop', () => {
  const listeners = new Set<(c: GitCommit) => void>()
  const push = (c: GitCommit): void => listeners.forEach((l) => l(c))
  let kube: KubeSandbox
  let sync: GitOpsSync
  beforeAll(async () => {
    kube = await startKubeSandbox({ coder: new FakeCoder(), controller: false })
    sync = startGitOpsSync({
      subscribe: (listener) => {
        listeners.add(listener)
        return () => listeners.delete(listener)
      },
      kube,
      path: 'coder-template-tests',
      delayMs: 40,
      namespaceDefault: 'coder',
      branch: 'main'
    })
  })
  afterAll(async () => {
    sync.stop()
    await kube.close()
  })

  it('applies a committed manifest only after the delay, in the default namespace', async () => {
    push(commit({ 'coder-template-tests/docker-v1.yaml': stringify(testManifest('docker-v1')) }))
    expect(kube.store.get('coder', 'docker-v1')).toBeUndefined()
    await sync.idle()
    const created = kube.store.get('coder', 'docker-v1')
    expect(created?.spec.timeoutSeconds).toBe(900)
    expect(sync.applied.at(-1)).toMatchObject({
      file: 'coder-template-tests/docker-v1.yaml',
      namespace: 'coder',
      name: 'docker-v1',
      action: 'created'
    })
  })

  it('ignores files outside the folder, non-YAML files and other branches', async () => {
    push(commit({ 'elsewhere/x.yaml': stringify(testManifest('outside')) }))
    push(commit({ 'coder-template-tests/readme.md': 'hello' }))
    push(
      commit({ 'coder-template-tests/other.yaml': stringify(testManifest('other-branch')) }, 'dev')
    )
    await sync.idle()
    expect(kube.store.get('coder', 'outside')).toBeUndefined()
    expect(kube.store.get('coder', 'other-branch')).toBeUndefined()
  })

  it('re-applies the same spec (default written out or not) as unchanged', async () => {
    const before = kube.store.get('coder', 'docker-v1')!.metadata.resourceVersion
    push(
      commit({
        'coder-template-tests/docker-v1.yaml': stringify(
          testManifest('docker-v1', { timeoutSeconds: 900 })
        )
      })
    )
    await sync.idle()
    expect(kube.store.get('coder', 'docker-v1')!.metadata.resourceVersion).toBe(before)
    expect(sync.applied.at(-1)).toMatchObject({ name: 'docker-v1', action: 'unchanged' })
    expect(sync.syncErrors).toEqual([])
  })

  it('records a changed spec as a sync error with the immutable-spec message and changes nothing', async () => {
    push(
      commit({
        'coder-template-tests/docker-v1.yaml': stringify(
          testManifest('docker-v1', { version: { name: 'v2' } })
        )
      })
    )
    await sync.idle()
    expect(kube.store.get('coder', 'docker-v1')!.spec.version).toEqual({ name: 'v1' })
    expect(sync.syncErrors).toHaveLength(1)
    expect(sync.syncErrors[0]).toMatchObject({ name: 'docker-v1', namespace: 'coder' })
    expect(sync.syncErrors[0].message).toContain(
      'spec is immutable, create a new CoderTemplateTest'
    )
  })

  it('applies the whole folder each sync: a deleted object comes back; invalid manifests are errors', async () => {
    kube.store.delete('coder', 'docker-v1')
    expect(kube.store.get('coder', 'docker-v1')).toBeUndefined()
    const errorsBefore = sync.syncErrors.length
    push(
      commit({
        'coder-template-tests/docker-v1.yaml': stringify(testManifest('docker-v1')),
        'coder-template-tests/bad.yaml': stringify(testManifest('bad', { template: 'new.x' })),
        'coder-template-tests/ns.yml': stringify({
          ...testManifest('elsewhere'),
          metadata: { name: 'elsewhere', namespace: 'team' }
        })
      })
    )
    await sync.idle()
    expect(kube.store.get('coder', 'docker-v1')).toBeDefined()
    expect(kube.store.get('team', 'elsewhere')).toBeDefined()
    const errors = sync.syncErrors.slice(errorsBefore)
    expect(errors).toHaveLength(1)
    expect(errors[0].message).toContain('organization and template names must not be new or create')
  })
})
