// The verify step against the sandbox's Coder REST API and aggregated API: the rollback's guard
// refuses when another writer activated a version between the decision's read and the promote,
// and names that version; the rollback to a version whose import failed is impossible.
import { afterEach, describe, expect, it } from '@jest/globals'
import { CoderClient } from '../../src/coder/client.js'
import { loadKubeConfig } from '../../src/kube/config.js'
import type { CoderTemplateTest } from '../../src/objects/coder-k8s.js'
import { verifyLive, type VerifyInput } from '../../src/steps/verify.js'
import type { Tested } from '../../src/steps/wait.js'
import { type CoderSandbox, startCoderSandbox } from '../sandbox/coder/index.js'
import { type KubeSandbox, startKubeSandbox } from '../sandbox/kube/index.js'

const silent = {
  info() {},
  warning() {},
  debug() {},
  group: <T>(_t: string, b: () => Promise<T>) => b()
}

let coder: CoderSandbox
let kube: KubeSandbox
afterEach(async () => {
  await kube?.close()
  await coder?.close()
})

const idOf = (name: string) => coder.backend.findVersionByName('acme', 'docker', name)!.id
const activeName = () =>
  coder.backend.findVersionById(coder.backend.findTemplate('acme', 'docker')!.activeVersionId)?.name
const promoteRequests = () =>
  kube.requests.filter((r) => r.method === 'POST' && r.path.includes('/promote')).length

/** A live test of v0.9.0 that ended Failed at generation 1. */
function failedTest(): Tested {
  const test: CoderTemplateTest = {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTest',
    metadata: { name: 'docker-live-1-1', namespace: 'coder-tests', generation: 1 },
    spec: {
      controlPlaneRef: { name: 'coder' },
      template: 'acme.docker',
      version: { active: true }
    },
    status: {
      observedGeneration: 1,
      phase: 'Failed',
      reason: 'AgentStartError',
      message: 'The startup script exited 1.',
      templateVersionID: idOf('v0.9.0'),
      templateVersionName: 'v0.9.0'
    }
  }
  return {
    test,
    versionId: idOf('v0.9.0'),
    syncedAt: 0,
    timeline: [],
    last: null,
    notFoundSeen: false,
    workspace: null
  }
}

async function world(client?: (c: CoderClient) => CoderClient): Promise<VerifyInput> {
  coder = await startCoderSandbox({ defaultOrganization: 'acme' })
  kube = await startKubeSandbox({ coder: coder.backend, controller: false })
  coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
  coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
  coder.seedVersion({ template: 'docker', name: 'v1.1.0' })
  coder.seedVersion({ template: 'docker', name: 'v0.7.0', jobStatus: 'failed' })
  const plain = new CoderClient({ url: coder.url, token: coder.token })
  return {
    organization: 'acme',
    template: 'docker',
    namespace: 'coder-tests',
    starting: { id: idOf('v0.9.0'), name: 'v0.9.0', createdAt: '' },
    tested: failedTest(),
    rollbackTo: 'v0.8.0',
    promote: 'promote',
    coder: client ? client(plain) : plain,
    kc: loadKubeConfig({ kubeconfig: kube.kubeconfig(), context: '' }).kc
  }
}

const context = () => ({ signal: new AbortController().signal, log: silent, now: Date.now })

describe('verifyLive, the rollback', () => {
  it('is refused when another writer activates a version after the decision, naming it', async () => {
    let reads = 0
    // Another writer activates v1.1.0 right after the decision's read of the active version.
    const input = await world((plain) => {
      const template = plain.template.bind(plain)
      plain.template = async (organization, name) => {
        const answer = await template(organization, name)
        if (++reads === 1) coder.activateVersion({ template: 'docker', version: 'v1.1.0' })
        return answer
      }
      return plain
    })
    const result = await verifyLive(input, context())
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.facts?.result).toBe('Failed')
    expect(result.facts?.rollback).toMatchObject({ outcome: 'refused', target: { name: 'v0.8.0' } })
    expect(result.facts?.rollback?.detail).toContain(`v1.1.0 (${idOf('v1.1.0')})`)
    expect(result.failure.message).toContain('No rollback: the active version is v1.1.0')
    expect(promoteRequests()).toBe(0)
    expect(activeName()).toBe('v1.1.0')
  })

  it('is impossible to a version whose import failed, and names it', async () => {
    const input = await world()
    const result = await verifyLive({ ...input, rollbackTo: 'v0.7.0' }, context())
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.facts?.rollback).toEqual({
      outcome: 'impossible',
      detail: `the import of v0.7.0 (${idOf('v0.7.0')}) did not succeed (failed)`
    })
    expect(promoteRequests()).toBe(0)
    expect(activeName()).toBe('v0.9.0')
  })

  it('publishes that the rollback request went out before it goes, so a cancel keeps it', async () => {
    const input = await world()
    const published: unknown[] = []
    const result = await verifyLive(input, {
      ...context(),
      publish: (facts) => published.push({ ...facts, requests: promoteRequests() })
    })
    expect(!result.ok && result.facts?.result).toBe('RolledBack')
    expect(published).toEqual([
      expect.objectContaining({
        result: 'Failed',
        rollback: expect.objectContaining({
          outcome: 'sent',
          target: { id: idOf('v0.8.0'), name: 'v0.8.0' }
        }),
        requests: 0
      })
    ])
  })

  it('applies through the promote subresource while the failed version is active', async () => {
    const input = await world()
    const result = await verifyLive(input, context())
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.facts?.result).toBe('RolledBack')
    expect(promoteRequests()).toBe(1)
    expect(activeName()).toBe('v0.8.0')
  })
})
