// Auth, discovery, list and watch semantics of the sandbox API server over real HTTP.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { startKubeSandbox } from '../../sandbox/kube/server.js'
import type { KubeSandbox } from '../../sandbox/kube/server.js'
import { ALLOW_ALL_RULES } from '../../sandbox/kube/rbac.js'
import { FakeCoder, call, testManifest, testsPath, watch } from './helpers.js'

describe('kube sandbox: auth and discovery', () => {
  let kube: KubeSandbox
  beforeAll(async () => {
    kube = await startKubeSandbox({ coder: new FakeCoder(), controller: false })
  })
  afterAll(async () => kube.close())

  it('answers 401 Unauthorized without the bearer token or with a wrong one', async () => {
    for (const authorization of [null, 'Bearer wrong', `Basic ${kube.token}`]) {
      const response = await call(
        kube,
        'GET',
        '/apis',
        undefined,
        authorization ? { Authorization: authorization } : {},
        null
      )
      expect(response.status).toBe(401)
      expect(response.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401
      })
    }
  })

  it('lists both groups and their resources with the documented verbs', async () => {
    const groups = await call(kube, 'GET', '/apis')
    expect(groups.body.kind).toBe('APIGroupList')
    expect(groups.body.groups.map((g: { name: string }) => g.name)).toEqual([
      'authorization.k8s.io',
      'coder.com',
      'aggregation.coder.com'
    ])
    const tests = await call(kube, 'GET', '/apis/coder.com/v1alpha1')
    expect(tests.body.kind).toBe('APIResourceList')
    const names = tests.body.resources.map((r: { name: string }) => r.name)
    expect(names).toEqual(['codertemplatetests', 'codertemplatetests/status'])
    const aggregated = await call(kube, 'GET', '/apis/aggregation.coder.com/v1alpha1')
    const promote = aggregated.body.resources.find(
      (r: { name: string }) => r.name === 'codertemplates/promote'
    )
    expect(promote).toMatchObject({
      verbs: ['create'],
      kind: 'CoderTemplateVersionPromotion',
      namespaced: true
    })
    const versions = aggregated.body.resources.find(
      (r: { name: string }) => r.name === 'codertemplateversions'
    )
    expect(versions.verbs).toEqual(['get', 'list'])
  })

  it('leaves out a group on request (coder-k8s not installed)', async () => {
    const bare = await startKubeSandbox({
      coder: new FakeCoder(),
      controller: false,
      serveTestGroup: false,
      serveAggregationGroup: false
    })
    try {
      const groups = await call(bare, 'GET', '/apis')
      // Built-in groups stay (authorization.k8s.io); the coder-k8s groups are gone.
      expect(groups.body.groups.map((g: { name: string }) => g.name)).toEqual([
        'authorization.k8s.io'
      ])
      expect((await call(bare, 'GET', '/apis/coder.com/v1alpha1')).status).toBe(404)
      expect((await call(bare, 'GET', '/apis/aggregation.coder.com/v1alpha1')).status).toBe(404)
      expect((await call(bare, 'GET', testsPath('ns'))).status).toBe(404)
    } finally {
      await bare.close()
    }
  })

  it('records every request with method, path and query, status and time', async () => {
    const before = kube.requests.length
    await call(kube, 'GET', testsPath('ns', 'missing') + '?x=1')
    const recorded = kube.requests.slice(before)
    expect(recorded).toHaveLength(1)
    expect(recorded[0]).toMatchObject({
      method: 'GET',
      path: testsPath('ns', 'missing') + '?x=1',
      status: 404
    })
    expect(typeof recorded[0].at).toBe('number')
  })
})

describe('kube sandbox: list and watch', () => {
  let kube: KubeSandbox
  beforeAll(async () => {
    kube = await startKubeSandbox({
      coder: new FakeCoder(),
      controller: false,
      eventHistoryLimit: 5,
      bookmarkIntervalMs: 30,
      // These tests play the writer (Argo CD, the controller), not the gate's least-privilege Role.
      rbac: { rules: ALLOW_ALL_RULES }
    })
  })
  afterAll(async () => kube.close())

  it('lists with fieldSelector and labelSelector, and a list resourceVersion', async () => {
    await call(kube, 'POST', testsPath('list'), {
      ...testManifest('a'),
      metadata: { name: 'a', labels: { team: 'x' } }
    })
    await call(kube, 'POST', testsPath('list'), testManifest('b'))
    await call(kube, 'POST', testsPath('other'), testManifest('a'))
    const all = await call(kube, 'GET', testsPath('list'))
    expect(all.body.kind).toBe('CoderTemplateTestList')
    expect(all.body.items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual([
      'a',
      'b'
    ])
    expect(all.body.metadata.resourceVersion).toMatch(/^\d+$/)
    const byName = await call(kube, 'GET', testsPath('list') + '?fieldSelector=metadata.name%3Db')
    expect(byName.body.items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual([
      'b'
    ])
    const byLabel = await call(kube, 'GET', testsPath('list') + '?labelSelector=team%3Dx')
    expect(byLabel.body.items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual([
      'a'
    ])
    const everywhere = await call(kube, 'GET', '/apis/coder.com/v1alpha1/codertemplatetests')
    expect(everywhere.body.items).toHaveLength(3)
    const badField = await call(kube, 'GET', testsPath('list') + '?fieldSelector=status.phase%3DX')
    expect(badField.status).toBe(400)
    expect(badField.body.message).toBe('field label not supported: status.phase')
  })

  it('writes status through the /status subresource, ignoring status on the main resource', async () => {
    const created = await call(kube, 'POST', testsPath('st'), testManifest('s'))
    const status = { phase: 'Running', reason: 'WaitingForBuild', observedGeneration: 1 }
    const put = await call(kube, 'PUT', testsPath('st', 's') + '/status', {
      ...created.body,
      status
    })
    expect(put.status).toBe(200)
    expect(put.body.status).toEqual(status)
    expect(Number(put.body.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.body.metadata.resourceVersion)
    )
    const stale = await call(kube, 'PUT', testsPath('st', 's') + '/status', {
      ...created.body,
      status
    })
    expect(stale.status).toBe(409)
    expect(stale.body.reason).toBe('Conflict')
    const main = await call(kube, 'PUT', testsPath('st', 's'), {
      ...put.body,
      status: { phase: 'Succeeded' }
    })
    expect(main.status).toBe(200)
    expect(main.body.status).toEqual(status)
  })

  it('starts a watch without resourceVersion with ADDED for the current objects, then streams changes', async () => {
    const path = testsPath('w1') + '?watch=1&fieldSelector=metadata.name%3Dt1'
    await call(kube, 'POST', testsPath('w1'), testManifest('t1'))
    await call(kube, 'POST', testsPath('w1'), testManifest('t2'))
    const patchLabel = (name: string) =>
      call(
        kube,
        'PATCH',
        testsPath('w1', name),
        { metadata: { labels: { changed: 'yes' } } },
        { 'Content-Type': 'application/merge-patch+json' }
      )
    let patched = false
    const pending = watch(kube, path, (events) => {
      if (events.length === 1 && !patched) {
        // Change the other object first: the field selector must hide it.
        patched = true
        void patchLabel('t2').then(() => patchLabel('t1'))
      }
      return events.length >= 2
    })
    const { events } = await pending
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 't1'],
      ['MODIFIED', 't1']
    ])
    expect(events[1].object.metadata.labels).toEqual({ changed: 'yes' })
    expect(Number(events[1].object.metadata.resourceVersion)).toBeGreaterThan(
      Number(events[0].object.metadata.resourceVersion)
    )
  })

  it('resumes after a resourceVersion with only the later events (watch=true)', async () => {
    const created = await call(kube, 'POST', testsPath('w2'), testManifest('r'))
    const rv = created.body.metadata.resourceVersion
    await call(
      kube,
      'PATCH',
      testsPath('w2', 'r'),
      { metadata: { labels: { n: '1' } } },
      { 'Content-Type': 'application/merge-patch+json' }
    )
    const { events } = await watch(
      kube,
      testsPath('w2') + `?watch=true&resourceVersion=${rv}`,
      (e) => e.length >= 1
    )
    expect(events).toHaveLength(1)
    expect(events[0].type).toBe('MODIFIED')
    expect(events[0].object.metadata.labels).toEqual({ n: '1' })
  })

  it('ends the stream cleanly after timeoutSeconds', async () => {
    const started = Date.now()
    const { serverEnded, events } = await watch(
      kube,
      testsPath('w3') + '?watch=1&timeoutSeconds=1',
      () => false,
      5000
    )
    expect(serverEnded).toBe(true)
    expect(events).toEqual([])
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
  })

  it('sends BOOKMARK events with the current resourceVersion when allowed', async () => {
    const { events } = await watch(
      kube,
      testsPath('w4') + '?watch=1&allowWatchBookmarks=true',
      (e) => e.length >= 2
    )
    expect(events.map((e) => e.type)).toEqual(['BOOKMARK', 'BOOKMARK'])
    expect(events[0].object).toEqual({
      kind: 'CoderTemplateTest',
      apiVersion: 'coder.com/v1alpha1',
      metadata: { resourceVersion: expect.stringMatching(/^\d+$/) }
    })
    const none = await watch(kube, testsPath('w4') + '?watch=1&timeoutSeconds=1', () => false)
    expect(none.events).toEqual([])
  })

  it('answers 410 Gone (ERROR event, Expired) for a resourceVersion older than the event window', async () => {
    const first = await call(kube, 'POST', testsPath('w5'), testManifest('old'))
    const oldRv = Number(first.body.metadata.resourceVersion)
    for (let i = 0; i < 7; i++)
      await call(
        kube,
        'PATCH',
        testsPath('w5', 'old'),
        { metadata: { labels: { n: String(i) } } },
        { 'Content-Type': 'application/merge-patch+json' }
      )
    const { events, serverEnded } = await watch(
      kube,
      testsPath('w5') + `?watch=1&resourceVersion=${oldRv}`
    )
    expect(serverEnded).toBe(true)
    expect(events).toHaveLength(1)
    expect(events[0].type).toBe('ERROR')
    expect(events[0].object).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Expired',
      code: 410
    })
    expect(events[0].object.message).toMatch(
      new RegExp(`^too old resource version: ${oldRv} \\(\\d+\\)$`)
    )
    // The newest resourceVersion is still fine.
    const current = await call(kube, 'GET', testsPath('w5', 'old'))
    const resumed = await watch(
      kube,
      testsPath('w5') +
        `?watch=1&timeoutSeconds=1&resourceVersion=${current.body.metadata.resourceVersion}`
    )
    expect(resumed.events).toEqual([])
    expect(resumed.serverEnded).toBe(true)
  })
})
