// The promote step against the sandbox's Coder REST API and aggregated API (real protocols on
// 127.0.0.1): another writer acting during the pause before a re-send is never overwritten, and a
// cancel while a slow promote request is in flight keeps the fact that it was sent.
import { afterEach, describe, expect, it } from '@jest/globals'
import { CoderClient } from '../../src/coder/client.js'
import { loadKubeConfig } from '../../src/kube/config.js'
import { Journal, StepStopped } from '../../src/steps/journal.js'
import { promoteTested, type PromoteInput } from '../../src/steps/promote.js'
import type { StepContext } from '../../src/steps/step.js'
import { type CoderSandbox, startCoderSandbox } from '../sandbox/coder/index.js'
import { type PromoteFault, startKubeSandbox } from '../sandbox/kube/index.js'
import type { KubeSandbox } from '../sandbox/kube/index.js'
import { FakeClock } from '../timing/fake-clock.js'

const NS = 'coder-tests'
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

/** docker with v0.9.0 active, v0.8.0 (another writer's pick) and v1.0.0 (tested). */
async function world(signal: AbortSignal): Promise<PromoteInput> {
  coder = await startCoderSandbox({ defaultOrganization: 'acme' })
  kube = await startKubeSandbox({ coder: coder.backend, controller: false })
  coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
  coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
  coder.seedVersion({ template: 'docker', name: 'v1.0.0' })
  const facts = (name: string) => {
    const v = coder.backend.findVersionByName('acme', 'docker', name)!
    return { id: v.id, name: v.name, createdAt: v.createdAt }
  }
  return {
    promote: 'promote',
    allowRollback: false,
    namespace: NS,
    organization: 'acme',
    template: 'docker',
    tested: facts('v1.0.0'),
    starting: facts('v0.9.0'),
    coder: new CoderClient({ url: coder.url, token: coder.token, signal }),
    kc: loadKubeConfig({ kubeconfig: kube.kubeconfig(), context: '' }).kc
  }
}

const activeName = (): string | undefined => {
  const t = coder.backend.findTemplate('acme', 'docker')!
  return coder.backend.findVersionById(t.activeVersionId)?.name
}
const promoteRequests = (): number =>
  kube.requests.filter((r) => r.method === 'POST' && r.path.includes('/promote')).length

describe('promoteTested: another writer during the pause before a re-send', () => {
  it.each<[string, PromoteFault]>([
    ['a 429', { kind: 'status', code: 429 }],
    ['a 504 not attempted', { kind: '504-not-attempted' }]
  ])('after %s: Refused, naming the version, and nothing more is sent', async (_, fault) => {
    const signal = new AbortController().signal
    const input = await world(signal)
    const writer = () => coder.activateVersion({ template: 'docker', version: 'v0.8.0' })
    kube.faults.promote.push({ ...fault, afterAnswer: writer })
    const clock = new FakeClock()
    const context: StepContext = { signal, log: silent, ...clock }
    const result = await promoteTested(input, context)
    expect(clock.slept).toEqual([1000])
    const third = coder.backend.findVersionByName('acme', 'docker', 'v0.8.0')!
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.failure).toMatchObject({ kind: 'refused', status: 'refused' })
    expect(result.failure.message).toContain(`Another writer activated version ${third.id} while`)
    expect(result.facts).toMatchObject({ requestSent: true, refused: { id: third.id } })
    expect(promoteRequests()).toBe(1)
    expect(activeName()).toBe('v0.8.0')
  })

  it('a third version seen by the re-read after an unclear answer: Refused, the same text', async () => {
    const signal = new AbortController().signal
    const input = await world(signal)
    kube.faults.promote.push({ kind: 'activation-unclear', activeAfter: 'third' })
    const clock = new FakeClock()
    const result = await promoteTested(input, { signal, log: silent, ...clock })
    expect(result.ok).toBe(false)
    if (result.ok) return
    const active = coder.backend
      .listVersions('acme', 'docker')
      .find((v) => v.name === activeName())!
    expect(result.failure).toMatchObject({ kind: 'refused', status: 'refused' })
    expect(result.failure.message).toMatch(
      new RegExp(
        `^Another writer activated version ${active.id} while this run promoted v1\\.0\\.0 `
      )
    )
    expect(result.facts).toMatchObject({ requestSent: true, refused: { id: active.id } })
    expect(promoteRequests()).toBe(1)
    expect(clock.slept).toEqual([])
  })

  it('after a 429 with nobody else acting: reads, then sends again and promotes', async () => {
    const signal = new AbortController().signal
    const input = await world(signal)
    kube.faults.promote.push({ kind: 'status', code: 429 })
    const clock = new FakeClock()
    const result = await promoteTested(input, { signal, log: silent, ...clock })
    expect(result.ok && result.value.result).toBe('Promoted')
    expect(clock.slept).toEqual([1000])
    expect(promoteRequests()).toBe(2)
    expect(activeName()).toBe('v1.0.0')
  })
})

describe('promoteTested: a cancel while a slow promote request is in flight', () => {
  it('the Journal keeps requestSent, and the activation lands in Coder', async () => {
    const controller = new AbortController()
    const input = await world(controller.signal)
    kube.faults.promote.push({ kind: 'slow-answer', ms: 20_000 })
    // Cancel once Coder applied the activation, while the answer still waits.
    coder.events.once('activated', () => controller.abort())
    const journal = new Journal({ signal: controller.signal, log: silent, now: Date.now })
    await expect(journal.run('promote', (c) => promoteTested(input, c))).rejects.toBeInstanceOf(
      StepStopped
    )
    const result = journal.entry('promote')!.result
    expect(!result.ok && result.failure.status).toBe('cancelled')
    expect(!result.ok && result.facts).toEqual({ requestSent: true })
    expect(activeName()).toBe('v1.0.0')
    // One activation, by the aggregated API (the answer to it is still on its way).
    expect(coder.activations.map((a) => [a.versionId, a.by])).toEqual([
      [input.tested.id, 'coder-k8s-operator']
    ])
  })
})
