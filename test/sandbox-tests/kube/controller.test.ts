// The in-process CoderTemplateTest controller, observed through a real watch over HTTP:
// the documented lifecycle, waits, failures, deadline and scripting.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { startKubeSandbox } from '../../sandbox/kube/server.js'
import type { KubeSandbox } from '../../sandbox/kube/server.js'
import { ALLOW_ALL_RULES } from '../../sandbox/kube/rbac.js'
import type { FinalStatusInfo } from '../../sandbox/kube/controller.js'
import { FakeCoder, call, eventually, testManifest, testsPath, watch } from './helpers.js'
import type { WatchEvent } from './helpers.js'

const isFinal = (e: WatchEvent): boolean =>
  ['Succeeded', 'Failed'].includes(e.object?.status?.phase)
const untilFinal = (events: WatchEvent[]): boolean => events.some(isFinal)
const conditionOf = (
  object: { status?: { conditions?: { type: string; status: string }[] } },
  type: string
) => object.status?.conditions?.find((c) => c.type === type)

async function runTest(
  kube: KubeSandbox,
  ns: string,
  name: string,
  spec: Record<string, unknown> = {},
  until: (events: WatchEvent[]) => boolean = untilFinal
): Promise<WatchEvent[]> {
  const created = await call(kube, 'POST', testsPath(ns), testManifest(name, spec))
  expect(created.status).toBe(201)
  const { events } = await watch(
    kube,
    `${testsPath(ns)}?watch=1&fieldSelector=metadata.name%3D${name}&resourceVersion=${Number(created.body.metadata.resourceVersion) - 1}`,
    until
  )
  return events
}

describe('CoderTemplateTest controller', () => {
  const coder = new FakeCoder()
  const docker = coder.addTemplate('docker')
  const v1 = coder.addVersion(docker, 'v1')
  let kube: KubeSandbox
  beforeAll(async () => {
    kube = await startKubeSandbox({
      coder,
      controller: { stepDelayMs: 5, pollIntervalMs: 5, secondMs: 5, cleanupDelayMs: 5 },
      // These tests create and delete tests over HTTP, as Argo CD would: every verb.
      rbac: { rules: ALLOW_ALL_RULES }
    })
  })
  afterAll(async () => kube.close())

  it('moves a test through the documented lifecycle to Succeeded', async () => {
    const finals: FinalStatusInfo[] = []
    const off = kube.controller!.onFinal((info) => finals.push(info))
    const events = await runTest(kube, 'life', 'ok')
    off()
    expect(events[0].type).toBe('ADDED')
    expect(events[0].object.status).toBeUndefined()
    // Reconcile 1: the finalizer only, no status.
    expect(events[1].type).toBe('MODIFIED')
    expect(events[1].object.metadata.finalizers).toEqual(['coder.com/template-test-cleanup'])
    expect(events[1].object.status).toBeUndefined()
    // Reconcile 2: Pending/Initializing.
    const init = events[2].object
    expect(init.status).toMatchObject({
      phase: 'Pending',
      reason: 'Initializing',
      message: 'The controller started the test.',
      observedGeneration: 1
    })
    expect(init.status.startTime).toMatch(/Z$/)
    expect(conditionOf(init, 'Ready')).toMatchObject({ status: 'False', observedGeneration: 1 })
    expect(conditionOf(init, 'Reconciling')).toMatchObject({ status: 'True' })
    expect(conditionOf(init, 'Stalled')).toMatchObject({ status: 'False' })
    const path = events.slice(2).map((e) => `${e.object.status.phase}/${e.object.status.reason}`)
    expect(path).toEqual([
      'Pending/Initializing',
      'Running/CreatingWorkspace',
      'Running/WaitingForBuild',
      'Running/WaitingForAgents',
      'Running/AgentsReady',
      'Running/DeletingWorkspace',
      'Succeeded/Succeeded'
    ])
    // resourceVersion strictly increases with every event.
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion))
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs)
    expect(new Set(rvs).size).toBe(rvs.length)
    const done = events[events.length - 1].object
    const workspace = `ktt-${done.metadata.uid.replace(/-/g, '').slice(0, 28)}`
    expect(done.status).toMatchObject({
      phase: 'Succeeded',
      reason: 'Succeeded',
      message: `Every agent of workspace ${workspace} was ready, and the workspace is deleted.`,
      observedGeneration: 1,
      templateVersionID: v1.id,
      templateVersionName: 'v1',
      workspaceName: workspace,
      templateID: docker.id
    })
    expect(done.status.completionTime).toMatch(/Z$/)
    for (const [type, status, reason] of [
      ['Ready', 'True', 'Succeeded'],
      ['Reconciling', 'False', 'Succeeded'],
      ['Stalled', 'False', 'Succeeded'],
      ['WorkspaceDeleted', 'True', 'Deleted']
    ])
      expect(conditionOf(done, type)).toMatchObject({ status, reason, observedGeneration: 1 })
    expect(finals).toHaveLength(1)
    expect(finals[0]).toMatchObject({ name: 'ok', phase: 'Succeeded', templateVersionID: v1.id })
    expect(typeof finals[0].at).toBe('number')
  })

  it('waits with TemplateNotFound / TemplateVersionNotFound / TemplateVersionImporting, then runs', async () => {
    const names: string[] = []
    const created = await call(
      kube,
      'POST',
      testsPath('wait'),
      testManifest('late', { template: 'acme.later', version: { name: 'v9' } })
    )
    const rv = Number(created.body.metadata.resourceVersion) - 1
    const watching = watch(kube, `${testsPath('wait')}?watch=1&resourceVersion=${rv}`, (events) => {
      const reasons = events.map((e) => e.object.status?.reason)
      const last = reasons[reasons.length - 1]
      if (last && !names.includes(last)) names.push(last)
      if (last === 'TemplateNotFound' && !coder.findTemplate('acme', 'later')) {
        const later = coder.addTemplate('later')
        coder.addVersion(later, 'v0')
      }
      if (last === 'TemplateVersionNotFound' && !coder.findVersionByName('acme', 'later', 'v9'))
        coder.addVersion(coder.findTemplate('acme', 'later')!, 'v9', 'running')
      if (last === 'TemplateVersionImporting')
        coder.findVersionByName('acme', 'later', 'v9')!.jobStatus = 'succeeded'
      return events.some(isFinal)
    })
    const { events } = await watching
    expect(names.slice(0, 4)).toEqual([
      'Initializing',
      'TemplateNotFound',
      'TemplateVersionNotFound',
      'TemplateVersionImporting'
    ])
    const waits = events.filter((e) => e.object.status?.reason === 'TemplateNotFound')
    expect(waits[0].object.status.phase).toBe('Pending')
    expect(conditionOf(waits[0].object, 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'TemplateNotFound'
    })
    expect(events[events.length - 1].object.status.phase).toBe('Succeeded')
  })

  it('fails with TemplateVersionImportFailed and WorkspaceDeleted=True/NotCreated', async () => {
    coder.addVersion(docker, 'broken', 'failed')
    const events = await runTest(kube, 'fail', 'broken', { version: { name: 'broken' } })
    const done = events[events.length - 1].object
    expect(done.status).toMatchObject({ phase: 'Failed', reason: 'TemplateVersionImportFailed' })
    expect(conditionOf(done, 'Ready')).toMatchObject({ status: 'False' })
    expect(conditionOf(done, 'Stalled')).toMatchObject({ status: 'True' })
    expect(conditionOf(done, 'Reconciling')).toMatchObject({ status: 'False' })
    expect(conditionOf(done, 'WorkspaceDeleted')).toMatchObject({
      status: 'True',
      reason: 'NotCreated'
    })
  })

  it('scripts AgentStartError: Failed, then cleanup sets WorkspaceDeleted=True/Deleted without changing the phase', async () => {
    kube.controller!.script('agents', {
      failAt: { step: 'WaitingForAgents', reason: 'AgentStartError' }
    })
    const events = await runTest(kube, 'fail', 'agents', {}, (e) =>
      e.some((x) => conditionOf(x.object, 'WorkspaceDeleted')?.status === 'True')
    )
    const final = events.find(isFinal)!.object
    expect(final.status).toMatchObject({ phase: 'Failed', reason: 'AgentStartError' })
    expect(conditionOf(final, 'WorkspaceDeleted')).toMatchObject({
      status: 'False',
      reason: 'CleanupPending'
    })
    const cleaned = events[events.length - 1].object
    expect(cleaned.status.phase).toBe('Failed')
    expect(conditionOf(cleaned, 'WorkspaceDeleted')).toMatchObject({
      status: 'True',
      reason: 'Deleted'
    })
  })

  it('scripts CreateRejected with WorkspaceDeleted=True/NotCreated', async () => {
    kube.controller!.script('rejected', {
      failAt: {
        step: 'CreatingWorkspace',
        reason: 'CreateRejected',
        message: 'parameter "x" is invalid'
      }
    })
    const events = await runTest(kube, 'fail', 'rejected')
    const done = events[events.length - 1].object
    expect(done.status).toMatchObject({
      phase: 'Failed',
      reason: 'CreateRejected',
      message: 'parameter "x" is invalid'
    })
    expect(conditionOf(done, 'WorkspaceDeleted')).toMatchObject({
      status: 'True',
      reason: 'NotCreated'
    })
  })

  it('writes a scripted failure message verbatim, workflow-command lines included', async () => {
    // CreateRejected carries Coder's answer, so anyone who controls it controls the text.
    const message = '::error::owned\n::set-output name=x::y\n::add-mask::\nlast line'
    kube.controller!.script('commands', {
      failAt: { step: 'CreatingWorkspace', reason: 'CreateRejected', message }
    })
    const events = await runTest(kube, 'fail', 'commands')
    const done = events[events.length - 1].object
    expect(done.status.message).toBe(message)
    expect(conditionOf(done, 'Ready')).toMatchObject({ message })
    // The stored object over a plain GET says the same.
    const read = await call(kube, 'GET', testsPath('fail', 'commands'))
    expect(read.body.status.message).toBe(message)
  })

  it('cuts a long failure message to 256 bytes at a character boundary (§1.3)', async () => {
    // 250 ASCII bytes, then 3-byte characters: the cut must fall between two of them.
    const message = '::error::' + 'x'.repeat(241) + '€'.repeat(10)
    kube.controller!.script('long', {
      failAt: { step: 'WaitingForBuild', reason: 'BuildFailed', message }
    })
    const events = await runTest(kube, 'fail', 'long')
    const stored: string = events.find(isFinal)!.object.status.message
    expect(Buffer.byteLength(stored, 'utf8')).toBe(256)
    expect(stored).toBe(message.slice(0, 252))
    expect(stored.endsWith('€€')).toBe(true)
  })

  it('fails with DeadlineExceeded and the documented message when a wait passes startTime + timeoutSeconds', async () => {
    // secondMs 5: timeoutSeconds 60 is 300 ms here; the template never appears.
    const events = await runTest(kube, 'deadline', 'slow', {
      template: 'acme.never',
      timeoutSeconds: 60
    })
    const done = events[events.length - 1].object
    expect(done.status.phase).toBe('Failed')
    expect(done.status.reason).toBe('DeadlineExceeded')
    expect(done.status.message).toMatch(
      /^The test did not finish within 60s\. Last wait: TemplateNotFound: /
    )
  })

  it('records overrideVersionID instead of the resolved version, and calls the script hook at the final write', async () => {
    const hooked: FinalStatusInfo[] = []
    const emitted: FinalStatusInfo[] = []
    const onEvent = (info: FinalStatusInfo): void => {
      if (info.name === 'override') emitted.push(info)
    }
    kube.events.on('final-status', onEvent)
    kube.controller!.script('override', {
      overrideVersionID: '11111111-2222-3333-4444-555555555555',
      onFinal: (info) => hooked.push(info)
    })
    const events = await runTest(kube, 'scripted', 'override')
    expect(events[events.length - 1].object.status).toMatchObject({
      phase: 'Succeeded',
      templateVersionID: '11111111-2222-3333-4444-555555555555',
      templateVersionName: 'v1'
    })
    kube.events.off('final-status', onEvent)
    expect(hooked).toHaveLength(1)
    expect(hooked[0]).toMatchObject({ name: 'override', phase: 'Succeeded' })
    expect(emitted).toEqual(hooked)
    const completion = Date.parse(events[events.length - 1].object.status.completionTime)
    // completionTime has second precision; the hook runs in the same second or later.
    expect(hooked[0].at - completion).toBeGreaterThanOrEqual(0)
  })

  it('writes a stale observedGeneration, then a fresh one after forMs', async () => {
    kube.controller!.script('stale', {
      staleGeneration: { mode: 'old-observed-generation', forMs: 30 }
    })
    const events = await runTest(kube, 'scripted', 'stale', {}, (e) =>
      e.some(
        (x) => isFinal(x) && x.object.status.observedGeneration === x.object.metadata.generation
      )
    )
    const final = events.find(isFinal)!.object
    expect(final.status.observedGeneration).toBe(0)
    expect(final.metadata.generation).toBe(1)
    const fresh = events[events.length - 1].object
    expect(fresh.status.observedGeneration).toBe(1)
    expect(conditionOf(fresh, 'Ready')).toMatchObject({ status: 'True', observedGeneration: 1 })
  })

  it('bumps the generation after the final write (bump-generation)', async () => {
    kube.controller!.script('bumped', { staleGeneration: { mode: 'bump-generation' } })
    const events = await runTest(kube, 'scripted', 'bumped', {}, (e) =>
      e.some((x) => x.object.metadata.generation === 2)
    )
    const last = events[events.length - 1].object
    expect(last.status.phase).toBe('Succeeded')
    expect(last.status.observedGeneration).toBe(1)
    expect(last.metadata.generation).toBe(2)
  })

  it('writes no status while down (downForMs), then runs', async () => {
    kube.controller!.script('down', { downForMs: 150 })
    await call(kube, 'POST', testsPath('scripted'), testManifest('down'))
    await new Promise((r) => setTimeout(r, 80))
    const early = await call(kube, 'GET', testsPath('scripted', 'down'))
    expect(early.body.status).toBeUndefined()
    expect(early.body.metadata.finalizers).toBeUndefined()
    await eventually(() => kube.store.get('scripted', 'down')?.status?.phase === 'Succeeded')
  })

  it('on delete sets deletionTimestamp, bumps generation, then releases the finalizer and removes the object', async () => {
    await runTest(kube, 'del', 'gone')
    const deleted = await call(kube, 'DELETE', testsPath('del', 'gone'))
    expect(deleted.status).toBe(200)
    expect(deleted.body.metadata.deletionTimestamp).toBeDefined()
    expect(deleted.body.metadata.generation).toBe(2)
    await eventually(() => kube.store.get('del', 'gone') === undefined)
    expect((await call(kube, 'GET', testsPath('del', 'gone'))).status).toBe(404)
  })

  it('deletes a finished test ttlSecondsAfterFinished after it finished', async () => {
    await runTest(kube, 'ttl', 'short', { ttlSecondsAfterFinished: 10 })
    expect(kube.store.get('ttl', 'short')?.status?.phase).toBe('Succeeded')
    await eventually(() => kube.store.get('ttl', 'short') === undefined)
  })

  it('runs no controller when disabled: the test keeps no status', async () => {
    const idle = await startKubeSandbox({
      coder,
      controller: false,
      rbac: { rules: ALLOW_ALL_RULES }
    })
    try {
      await call(idle, 'POST', testsPath('n'), testManifest('idle'))
      await new Promise((r) => setTimeout(r, 50))
      expect((await call(idle, 'GET', testsPath('n', 'idle'))).body.status).toBeUndefined()
    } finally {
      await idle.close()
    }
  })
})

describe('CoderTemplateTest controller, version.active (§1.2)', () => {
  const coder = new FakeCoder()
  const docker = coder.addTemplate('docker')
  const v1 = coder.addVersion(docker, 'v1')
  const v2 = coder.addVersion(docker, 'v2')
  let kube: KubeSandbox
  beforeAll(async () => {
    kube = await startKubeSandbox({
      coder,
      controller: { stepDelayMs: 5, pollIntervalMs: 5, secondMs: 5, cleanupDelayMs: 5 },
      rbac: { rules: ALLOW_ALL_RULES }
    })
  })
  afterAll(async () => kube.close())

  it('resolves the version active at reconcile time and pins it, whatever is promoted later', async () => {
    coder.activate(docker.id, v2.id)
    // Slow enough that another writer promotes v1 after the test resolved v2, before it ends.
    kube.controller!.script('live', { stepDelays: { CreatingWorkspace: 50 } })
    const resolved = runTest(kube, 'active', 'live', { version: { active: true } })
    await eventually(() => {
      const seen = kube.store.get('active', 'live')
      return seen?.status?.templateVersionID ? seen : undefined
    })
    coder.activate(docker.id, v1.id)
    const events = await resolved
    const final = events.find(isFinal)!.object
    expect(final.status).toMatchObject({
      phase: 'Succeeded',
      templateVersionID: v2.id,
      templateVersionName: 'v2'
    })
  })
})
