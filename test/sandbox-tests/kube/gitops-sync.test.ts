// The GitOps sync loop: commits under the watched folder are applied after the delay; same spec is
// left alone; a changed spec is a sync error with the API server's immutable-spec message; only the
// synced branch counts; removed manifests are pruned only when prune is on.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { stringify } from 'yaml'
import { startGitHubSandbox } from '../../sandbox/github/index.js'
import type { GitHubSandbox } from '../../sandbox/github/index.js'
import { startKubeSandbox } from '../../sandbox/kube/server.js'
import type { KubeSandbox } from '../../sandbox/kube/server.js'
import { startGitOpsSync } from '../../sandbox/gitops-sync.js'
import type { GitOpsSync } from '../../sandbox/gitops-sync.js'
import type { GitCommit } from '../../sandbox/contracts.js'
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

/** A sync of its own on a fresh listener set and cluster. */
async function isolatedSync(extra: Partial<Parameters<typeof startGitOpsSync>[0]> = {}) {
  const listeners = new Set<(c: GitCommit) => void>()
  const kube = await startKubeSandbox({ coder: new FakeCoder(), controller: false })
  const sync = startGitOpsSync({
    subscribe: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    kube,
    path: 'coder-template-tests',
    delayMs: 5,
    namespaceDefault: 'coder',
    ...extra
  })
  return {
    kube,
    sync,
    push: (c: GitCommit): void => listeners.forEach((l) => l(c)),
    close: async () => {
      sync.stop()
      await kube.close()
    }
  }
}

describe('GitOps sync loop: branches and pruning', () => {
  it('follows only main when no branch is given, and only the given repository', async () => {
    const world = await isolatedSync({ repository: 'org/gitops' })
    try {
      const manifest = (name: string) => ({
        [`coder-template-tests/${name}.yaml`]: stringify(testManifest(name))
      })
      world.push(commit(manifest('on-pr-branch'), 'coder-template-gate/on-pr-branch'))
      world.push({ ...commit(manifest('other-repo')), repo: 'elsewhere' })
      world.push(commit(manifest('on-main')))
      await world.sync.idle()
      expect(world.kube.store.get('coder', 'on-main')).toBeDefined()
      expect(world.kube.store.get('coder', 'on-pr-branch')).toBeUndefined()
      expect(world.kube.store.get('coder', 'other-repo')).toBeUndefined()
    } finally {
      await world.close()
    }
  })

  it('without prune, deleting a manifest leaves its object in the cluster', async () => {
    const world = await isolatedSync()
    try {
      const file = 'coder-template-tests/kept.yaml'
      world.push(commit({ [file]: stringify(testManifest('kept')) }))
      await world.sync.idle()
      world.push(commit({ [file]: null }))
      await world.sync.idle()
      expect(world.kube.store.get('coder', 'kept')).toBeDefined()
      expect(world.sync.applied.map((a) => a.action)).toEqual(['created'])
    } finally {
      await world.close()
    }
  })

  it('with prune, deleting a manifest deletes its object, and leaves what it never applied', async () => {
    const world = await isolatedSync({ prune: true })
    try {
      // An object someone created by hand: not the sync's, never pruned.
      world.kube.store.create('coder', testManifest('by-hand'))
      world.push(
        commit({
          'coder-template-tests/old.yaml': stringify(testManifest('old')),
          'coder-template-tests/new.yaml': stringify(testManifest('new'))
        })
      )
      await world.sync.idle()
      world.push(commit({ 'coder-template-tests/old.yaml': null }))
      await world.sync.idle()
      expect(world.kube.store.get('coder', 'old')).toBeUndefined()
      expect(world.kube.store.get('coder', 'new')).toBeDefined()
      expect(world.kube.store.get('coder', 'by-hand')).toBeDefined()
      expect(world.sync.applied.filter((a) => a.action === 'pruned')).toEqual([
        expect.objectContaining({
          name: 'old',
          namespace: 'coder',
          file: 'coder-template-tests/old.yaml'
        })
      ])
    } finally {
      await world.close()
    }
  })

  it('with prune, a folder that does not parse prunes nothing', async () => {
    const world = await isolatedSync({ prune: true })
    try {
      world.push(commit({ 'coder-template-tests/a.yaml': stringify(testManifest('a')) }))
      await world.sync.idle()
      world.push(
        commit({ 'coder-template-tests/a.yaml': null, 'coder-template-tests/bad.yaml': 'a: [' })
      )
      await world.sync.idle()
      expect(world.kube.store.get('coder', 'a')).toBeDefined()
      expect(world.sync.syncErrors).toHaveLength(1)
    } finally {
      await world.close()
    }
  })
})

describe('GitOps sync loop on the GitHub sandbox', () => {
  let github: GitHubSandbox
  beforeAll(async () => {
    github = await startGitHubSandbox()
  })
  afterAll(async () => {
    await github.close()
  })

  it('applies a pull request’s manifest only once it is merged into main; prunes after removal', async () => {
    github.createRepo('org', 'gitops', { defaultBranch: 'main' })
    const world = await isolatedSync({
      subscribe: (listener) => github.onCommit(listener),
      repository: 'org/gitops',
      prune: true
    })
    try {
      const file = 'coder-template-tests/docker-v2.yaml'
      github.createBranch('org', 'gitops', 'coder-template-gate/docker-v2')
      github.writeFile(
        'org',
        'gitops',
        'coder-template-gate/docker-v2',
        file,
        stringify(testManifest('docker-v2'))
      )
      const number = github.openPullRequest('org', 'gitops', {
        head: 'coder-template-gate/docker-v2'
      })
      await world.sync.idle()
      expect(world.kube.store.get('coder', 'docker-v2')).toBeUndefined()

      github.mergePullRequest('org', 'gitops', number, { login: 'alice', method: 'squash' })
      await world.sync.idle()
      expect(world.kube.store.get('coder', 'docker-v2')).toBeDefined()
      expect(world.sync.applied.at(-1)).toMatchObject({
        sha: github.branchHead('org', 'gitops', 'main'),
        name: 'docker-v2',
        action: 'created'
      })

      github.writeFile('org', 'gitops', 'main', file, null)
      await world.sync.idle()
      expect(world.kube.store.get('coder', 'docker-v2')).toBeUndefined()
    } finally {
      await world.close()
    }
  })
})
