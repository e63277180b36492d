import { afterEach, describe, expect, it } from '@jest/globals'
import type { CoderTemplateTest } from '../../src/objects/coder-k8s.js'
import { loadKubeConfig } from '../../src/kube/config.js'
import { verdictOf } from '../../src/verdict/verdict.js'
import {
  TestDeletedError,
  WaitTimeoutError,
  isAbortError,
  newWaitStats,
  waitForTest
} from '../../src/kube/wait.js'
import type { WaitOptions, WaitStats } from '../../src/kube/wait.js'
import {
  kubeConfigFor,
  runningStatus,
  succeededStatus,
  testObject,
  until
} from './helpers/kubeServer.js'
import type { WatchStream } from './helpers/kubeServer.js'
import { WORLD_NAMESPACE, WORLD_TEST_NAME, startTestWorld } from './helpers/testWorld.js'
import type { TestWorld } from './helpers/testWorld.js'
import { startKubeSandbox, type KubeSandbox } from '../sandbox/kube/server.js'
import { FakeCoder, testManifest } from '../sandbox-tests/kube/helpers.js'
import { FakeClock } from '../timing/fake-clock.js'

const FAILED_STATUS = {
  observedGeneration: 1,
  phase: 'Failed',
  reason: 'AgentStartError',
  message: 'startup script failed',
  conditions: [{ type: 'Ready', status: 'False' }]
}
// Long enough that a test relying on it would hit the jest timeout instead of passing.
const NEVER_MS = 10 * 60 * 1000

let world: TestWorld | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

interface Run {
  promise: Promise<CoderTemplateTest>
  observed: (string | null)[]
  stats: WaitStats
  controller: AbortController
}

function run(w: TestWorld, overrides: Partial<WaitOptions> = {}): Run {
  const observed: (string | null)[] = []
  const stats = newWaitStats()
  const controller = new AbortController()
  const promise = waitForTest({
    kc: kubeConfigFor(w.server),
    namespace: WORLD_NAMESPACE,
    name: WORLD_TEST_NAME,
    signal: controller.signal,
    isFinal: (t) => verdictOf(t).state !== 'waiting',
    onObserved: (t) => observed.push(t === null ? null : (t.status?.phase ?? '(none)')),
    syncDeadline: Date.now() + 5000,
    waitTimeoutMs: 5000,
    backoff: { initialMs: 20, maxMs: 80 },
    minHealthyWatchMs: 0,
    watchInactivityMs: NEVER_MS,
    stats,
    ...overrides
  })
  return { promise, observed, stats, controller }
}

/** The wait's time, pauses and read deadlines, all on one fake clock. */
const clockOptions = (clock: FakeClock): Partial<WaitOptions> => ({
  now: clock.now,
  sleep: clock.sleep,
  timeout: clock.timeout
})

const latestWatch = (w: TestWorld): WatchStream => {
  const last = w.watches[w.watches.length - 1]
  if (!last) throw new Error('no watch yet')
  return last.stream
}

describe('waitForTest', () => {
  it('returns at once when the first GET is final, without watching', async () => {
    world = await startTestWorld(() => undefined)
    world.write(succeededStatus())
    const r = run(world)
    const test = await r.promise
    expect(test.status?.phase).toBe('Succeeded')
    expect(r.observed).toEqual(['Succeeded'])
    expect(world.watches).toHaveLength(0)
    expect(world.gets()).toHaveLength(1)
    expect(world.gets()[0]?.authorized).toBe(true)
  })

  it('returns a final object read once even when the sync deadline has already passed', async () => {
    world = await startTestWorld(() => undefined)
    world.write(succeededStatus())
    const r = run(world, { syncDeadline: Date.now() - 1000 })
    expect((await r.promise).status?.phase).toBe('Succeeded')
  })

  it('fails at a passed sync deadline after one read when the object is absent', async () => {
    world = await startTestWorld(() => undefined)
    const r = run(world, { syncDeadline: Date.now() - 1000 })
    await expect(r.promise).rejects.toMatchObject({ kind: 'sync', last: null })
    expect(world.gets()).toHaveLength(1)
    expect(world.watches).toHaveLength(0)
  })

  it('stops retrying a failing read at the deadline', async () => {
    world = await startTestWorld(() => undefined)
    world.failGet = () => ({ status: 500, reason: 'InternalError', message: 'down' })
    // The backoff on a fake clock: the deadline passes with no real wait.
    const clock = new FakeClock(1_000_000)
    const r = run(world, { ...clockOptions(clock), syncDeadline: clock.now() + 300 })
    await expect(r.promise).rejects.toMatchObject({ kind: 'sync' })
    // A read before each pause; the last pause ends at the deadline.
    expect(world.gets().length).toBe(clock.slept.length)
    // Doubling from 20 ms to the 80 ms cap, ±25 %, the last pause cut at the deadline.
    expect(clock.slept[0]).toBeGreaterThanOrEqual(15)
    expect(clock.slept[0]).toBeLessThanOrEqual(25)
    expect(Math.max(...clock.slept)).toBeLessThanOrEqual(100)
    expect(clock.slept.reduce((sum, ms) => sum + ms, 0)).toBe(300)
  }, 10000)

  it('watches one object from the GET resourceVersion and returns the final event', async () => {
    world = await startTestWorld((stream, _req, w) => {
      setTimeout(() => stream.send('MODIFIED', w.write(runningStatus('WaitingForBuild'))), 10)
      setTimeout(() => stream.send('MODIFIED', w.write(FAILED_STATUS)), 30)
    })
    const initial = world.write(runningStatus('CreatingWorkspace'))
    const r = run(world, { watchTimeoutSeconds: 120 })
    const test = await r.promise
    expect(test.status?.reason).toBe('AgentStartError')
    expect(r.observed).toEqual(['Running', 'Running', 'Failed'])

    const query = world.watches[0]?.request.query
    expect(query?.get('watch')).toBe('true')
    expect(query?.get('fieldSelector')).toBe(`metadata.name=${WORLD_TEST_NAME}`)
    expect(query?.get('resourceVersion')).toBe(initial.metadata.resourceVersion)
    expect(query?.get('allowWatchBookmarks')).toBe('true')
    expect(query?.get('timeoutSeconds')).toBe('120')
    expect(world.watches[0]?.request.authorized).toBe(true)
    // the watch is closed once the answer is known
    await world.watches[0]?.stream.closed
  })

  it('remembers bookmarks without reporting them, and ignores other objects', async () => {
    world = await startTestWorld((stream, _req, w) => {
      stream.bookmark('500')
      stream.send('MODIFIED', testObject('someone-else', '501', succeededStatus(), WORLD_NAMESPACE))
      setTimeout(() => stream.send('MODIFIED', w.write(succeededStatus())), 20)
    })
    world.write(runningStatus())
    const r = run(world)
    await r.promise
    expect(r.observed).toEqual(['Running', 'Succeeded'])
    expect(r.stats.bookmarks).toBe(1)
    expect(r.stats.events).toBe(1)
  })

  it('treats NotFound as waiting: LIST for the collection resourceVersion, then sees the creation as ADDED', async () => {
    world = await startTestWorld((stream, _req, w) => {
      setTimeout(() => stream.send('ADDED', w.write(undefined)), 10)
      setTimeout(() => stream.send('MODIFIED', w.write(runningStatus())), 20)
      setTimeout(() => stream.send('MODIFIED', w.write(succeededStatus())), 30)
    })
    const r = run(world)
    await r.promise
    expect(r.observed).toEqual([null, '(none)', 'Running', 'Succeeded'])
    expect(world.lists()).toHaveLength(1)
    expect(world.lists()[0]?.query.get('fieldSelector')).toBe(`metadata.name=${WORLD_TEST_NAME}`)
    expect(world.watches[0]?.request.query.get('resourceVersion')).toBe('10')
  })

  it('a deletion ends the wait at once, naming it and where it likely came from', async () => {
    world = await startTestWorld((stream, _req, w) => {
      setTimeout(() => stream.send('DELETED', w.remove()), 10)
    })
    world.write(runningStatus())
    const clock = new FakeClock()
    // A wait timeout of an hour on a fake clock: only the deletion can end this wait.
    const r = run(world, {
      waitTimeoutMs: 3_600_000,
      syncDeadline: clock.now() + 3_600_000,
      now: clock.now
    })
    const error = await r.promise.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TestDeletedError)
    expect((error as TestDeletedError).message).toMatch(
      /was deleted \(or is being deleted\) before it was final\. Most likely its manifest was removed from Git and the GitOps engine pruned the object/
    )
    expect((error as TestDeletedError).last?.status?.phase).toBe('Running')
    expect(r.observed).toEqual(['Running', null])
    expect(world.watches).toHaveLength(1)
  })

  it('re-lists and re-watches after 410 Gone sent as an ERROR event', async () => {
    world = await startTestWorld((stream, _req, w) => {
      if (w.watches.length === 1) {
        // the object changes while the client is away; then the watch expires
        w.write(runningStatus('WaitingForAgents'))
        stream.gone()
      } else {
        setTimeout(() => stream.send('MODIFIED', w.write(succeededStatus())), 10)
      }
    })
    world.write(runningStatus('WaitingForBuild'))
    const r = run(world)
    await r.promise
    expect(r.stats.gone).toBe(1)
    expect(world.watches).toHaveLength(2)
    // after Gone: a LIST (not the object's old resourceVersion) gives the resourceVersion to watch from
    expect(world.gets()).toHaveLength(1)
    expect(world.lists()).toHaveLength(1)
    expect(world.watches[1]?.request.query.get('resourceVersion')).toBe('12')
    expect(r.observed).toEqual(['Running', 'Running', 'Succeeded'])
  })

  it('re-lists and re-watches after an HTTP 410 answer to the watch', async () => {
    world = await startTestWorld((stream, _req, w) => {
      setTimeout(() => stream.send('MODIFIED', w.write(succeededStatus())), 10)
    })
    let refused = false
    world.failWatch = () => {
      if (refused) return undefined
      refused = true
      return { status: 410, reason: 'Expired', message: 'too old resource version' }
    }
    world.write(runningStatus())
    const r = run(world)
    await r.promise
    expect(r.stats.gone).toBe(1)
    expect(world.lists()).toHaveLength(1)
  })

  it('re-reads and re-watches after the stream is dropped mid-stream', async () => {
    world = await startTestWorld((stream, _req, w) => {
      if (w.watches.length === 1) {
        stream.send('MODIFIED', w.write(runningStatus('WaitingForAgents')))
        setTimeout(() => {
          w.write(succeededStatus()) // changes while the client is disconnected
          stream.destroy()
        }, 10)
      }
    })
    world.write(runningStatus('WaitingForBuild'))
    const r = run(world)
    const test = await r.promise
    expect(test.status?.phase).toBe('Succeeded')
    expect(world.gets()).toHaveLength(2) // the re-read found the final state
    expect(r.stats.errors + r.stats.cleanEnds).toBeGreaterThanOrEqual(1)
    expect(r.observed).toEqual(['Running', 'Running', 'Succeeded'])
  })

  it('re-watches without a GET after the server ends the stream cleanly', async () => {
    world = await startTestWorld((stream, _req, w) => {
      if (w.watches.length === 1) setTimeout(() => stream.end(), 10)
      else setTimeout(() => stream.send('MODIFIED', w.write(succeededStatus())), 10)
    })
    world.write(runningStatus())
    const r = run(world)
    await r.promise
    expect(r.stats.cleanEnds).toBe(1)
    expect(world.watches).toHaveLength(2)
    expect(world.gets()).toHaveLength(1)
  })

  it('ends a quiet watch at the inactivity limit, counts it, and resumes with no GET', async () => {
    world = await startTestWorld((stream, _req, w) => {
      // The resumed watch replays the change made after the quiet one's resourceVersion.
      if (w.watches.length === 2)
        setTimeout(() => stream.send('MODIFIED', w.write(succeededStatus())), 10)
    })
    world.write(runningStatus())
    const r = run(world, { watchInactivityMs: 100 })
    const test = await r.promise
    expect(test.status?.phase).toBe('Succeeded')
    expect(r.stats.inactivityTimeouts).toBe(1)
    expect(world.gets()).toHaveLength(1)
    await world.watches[0]?.stream.closed
  })

  it('backs off after failed reads and recovers', async () => {
    world = await startTestWorld(() => undefined)
    let failures = 0
    world.failGet = () => {
      if (failures >= 3) return undefined
      failures++
      return { status: 500, reason: 'InternalError', message: 'etcdserver: request timed out' }
    }
    world.write(succeededStatus())
    const clock = new FakeClock(1_000_000)
    const r = run(world, { ...clockOptions(clock), syncDeadline: clock.now() + 5000 })
    await r.promise
    expect(r.stats.errors).toBe(3)
    expect(world.gets()).toHaveLength(4)
    // One pause per failure: 20, 40, 80 ms, each ±25 %.
    expect(clock.slept).toHaveLength(3)
    clock.slept.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(0.75 * 20 * 2 ** i)
      expect(ms).toBeLessThanOrEqual(1.25 * 20 * 2 ** i)
    })
  })

  it('gives up on a read that hangs past the request timeout and reads again', async () => {
    world = await startTestWorld(() => undefined)
    let hung = false
    world.failGet = () => {
      if (hung) return undefined
      hung = true
      return { status: 0, reason: '', message: '' }
    }
    world.write(succeededStatus())
    const r = run(world, { requestTimeoutMs: 100 })
    expect((await r.promise).status?.phase).toBe('Succeeded')
    expect(r.stats.errors).toBe(1)
    expect(world.gets()).toHaveLength(2)
  }, 10000)

  it('never hammers a server that closes every watch at once', async () => {
    world = await startTestWorld((stream) => stream.end())
    world.write(runningStatus())
    const r = run(world, {
      minHealthyWatchMs: 1000,
      backoff: { initialMs: 100, maxMs: 100 },
      waitTimeoutMs: 700
    })
    const error = await r.promise.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WaitTimeoutError)
    // about one cycle per 100 ms backoff; without the backoff this would be hundreds
    expect(world.watches.length).toBeGreaterThanOrEqual(2)
    expect(world.watches.length).toBeLessThan(15)
  })

  it('fails at the sync deadline when the object never appears', async () => {
    world = await startTestWorld(() => undefined) // the watch stays quiet
    const r = run(world, { syncDeadline: Date.now() + 200 })
    const error = await r.promise.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WaitTimeoutError)
    expect((error as WaitTimeoutError).kind).toBe('sync')
    expect((error as WaitTimeoutError).last).toBeNull()
    expect((error as Error).message).toContain('did not appear before the sync deadline')
    await world.watches[0]?.stream.closed
  }, 10000)

  it('wakes up at the wait deadline while the watch is quiet', async () => {
    world = await startTestWorld(() => undefined)
    world.write(runningStatus('WaitingForAgents'))
    const r = run(world, { waitTimeoutMs: 200 })
    const error = await r.promise.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WaitTimeoutError)
    expect((error as WaitTimeoutError).kind).toBe('wait')
    expect((error as WaitTimeoutError).last?.status?.reason).toBe('WaitingForAgents')
    expect(world.watches).toHaveLength(1)
    await world.watches[0]?.stream.closed
  }, 10000)

  it('reads once more at the wait deadline: returns a final state a dropped watch never sent', async () => {
    world = await startTestWorld(() => undefined) // the connection dropped silently: no events
    world.write(runningStatus())
    const r = run(world, { waitTimeoutMs: 200 })
    setTimeout(() => world?.write(succeededStatus()), 50)
    const test = await r.promise
    expect(test.status?.phase).toBe('Succeeded')
    expect(r.observed.at(-1)).toBe('Succeeded')
    expect(world.gets()).toHaveLength(2)
    await world.watches[0]?.stream.closed
  }, 10000)

  it('switches from the sync deadline to the wait deadline once the object is seen', async () => {
    world = await startTestWorld((stream, _req, w) => {
      setTimeout(() => stream.send('ADDED', w.write(runningStatus())), 10)
      setTimeout(() => stream.send('MODIFIED', w.write(succeededStatus())), 1_500)
    })
    // The object shows well before the sync deadline even on a loaded machine, the final status after it.
    const r = run(world, { syncDeadline: Date.now() + 1_000, waitTimeoutMs: 5000 })
    const test = await r.promise
    expect(test.status?.phase).toBe('Succeeded')
  }, 10000)

  it('rejects promptly on abort and closes the watch connection', async () => {
    world = await startTestWorld(() => undefined)
    world.write(runningStatus())
    const r = run(world)
    await until(() => world !== undefined && world.watches.length === 1)
    r.controller.abort()
    const error = await r.promise.catch((e: unknown) => e)
    expect(isAbortError(error)).toBe(true)
    await latestWatch(world).closed // the server sees the client close the stream
  }, 10000)

  it('rejects an abort during the backoff sleep', async () => {
    world = await startTestWorld(() => undefined)
    world.failGet = () => ({ status: 500, reason: 'InternalError', message: 'down' })
    const r = run(world, { backoff: { initialMs: NEVER_MS, maxMs: NEVER_MS } })
    await until(() => world !== undefined && world.gets().length === 1)
    r.controller.abort()
    expect(isAbortError(await r.promise.catch((e: unknown) => e))).toBe(true)
  }, 10000)

  it('fails at once with an RBAC hint when reading the test is forbidden', async () => {
    world = await startTestWorld(() => undefined)
    world.failGet = () => ({
      status: 403,
      reason: 'Forbidden',
      message: 'codertemplatetests.coder.com "docker-v1" is forbidden'
    })
    const r = run(world)
    await expect(r.promise).rejects.toThrow(
      /may not read CoderTemplateTest coder\/docker-v1 \(403 Forbidden: .*is forbidden\); grant get, list and watch/
    )
    expect(world.gets()).toHaveLength(1)
  })

  it('fails at once when the watch is forbidden', async () => {
    world = await startTestWorld(() => undefined)
    world.failWatch = () => ({ status: 403, reason: 'Forbidden', message: 'cannot watch' })
    world.write(runningStatus())
    const r = run(world)
    await expect(r.promise).rejects.toThrow(/may not watch CoderTemplateTest coder\/docker-v1/)
    expect(world.watches).toHaveLength(0)
  })
})

/** A wait for the world's test that never ends on its own (never final, no deadline near). */
function endlessWait(
  kube: KubeSandbox,
  signal: AbortSignal,
  stats: WaitStats,
  overrides: Partial<WaitOptions>
): Promise<unknown> {
  return waitForTest({
    kc: loadKubeConfig({ kubeconfig: kube.kubeconfig(), context: '' }).kc,
    namespace: WORLD_NAMESPACE,
    name: WORLD_TEST_NAME,
    signal,
    isFinal: () => false,
    syncDeadline: Date.now() + NEVER_MS,
    waitTimeoutMs: NEVER_MS,
    stats,
    ...overrides
  }).catch((e: unknown) => e)
}

/** The watch requests as the server recorded them, in order: the resourceVersion each started from. */
const watchedFromVersions = (kube: KubeSandbox): (string | null)[] =>
  kube.requests
    .filter((r) => /[?&]watch=true/.test(r.path))
    .map((r) => new URL(r.path, kube.url).searchParams.get('resourceVersion'))

describe('waitForTest against the kube sandbox (bookmarks, a short event window)', () => {
  it('resumes an idle wait from the bookmark resourceVersion: no 410, no re-list, no re-read', async () => {
    const kube = await startKubeSandbox({
      coder: new FakeCoder(),
      controller: false,
      eventHistoryLimit: 3,
      bookmarkIntervalMs: 50
    })
    const controller = new AbortController()
    const stats = newWaitStats()
    try {
      const created = kube.store.create(WORLD_NAMESPACE, testManifest(WORLD_TEST_NAME))
      // the server ends each watch cleanly after 1 s
      const waiting = endlessWait(kube, controller.signal, stats, { watchTimeoutSeconds: 1 })
      await until(() => stats.watches === 1 && stats.bookmarks >= 1)
      // Writes elsewhere push the test's own resourceVersion out of the event window: a watch from
      // it would now get 410 Gone, and only the bookmarks carry a newer resourceVersion.
      for (let i = 0; i < 5; i++) kube.store.create('other', testManifest(`filler-${i}`))
      const afterWrites = Number(kube.store.currentResourceVersion)
      const watchedFrom = (): number[] => watchedFromVersions(kube).map(Number)
      await until(() => watchedFrom().length >= 3, 10000)
      controller.abort()
      expect(isAbortError(await waiting)).toBe(true)

      expect(stats).toMatchObject({ gets: 1, lists: 0, gone: 0, errors: 0 })
      expect(stats.cleanEnds).toBeGreaterThanOrEqual(2)
      const [first, second, third] = watchedFrom()
      expect(first).toBe(Number(created.metadata.resourceVersion))
      expect(second).toBeGreaterThanOrEqual(afterWrites)
      expect(third).toBeGreaterThanOrEqual(second ?? Infinity)
    } finally {
      controller.abort()
      await kube.close()
    }
  }, 15000)

  it('without bookmarks, resumes each quiet watch the server ends from the object: no GET, no LIST', async () => {
    const kube = await startKubeSandbox({
      coder: new FakeCoder(),
      controller: false,
      bookmarkIntervalMs: 0, // none
      maxWatchSeconds: 1,
      watchSecondMs: 100 // the server ends each watch after 100 ms, whatever the client asks
    })
    const controller = new AbortController()
    const stats = newWaitStats()
    try {
      const created = kube.store.create(WORLD_NAMESPACE, testManifest(WORLD_TEST_NAME))
      const waiting = endlessWait(kube, controller.signal, stats, { minHealthyWatchMs: 50 })
      await until(() => stats.watches >= 4, 10000)
      controller.abort()
      expect(isAbortError(await waiting)).toBe(true)
      expect(stats).toMatchObject({ gets: 1, lists: 0, bookmarks: 0, errors: 0 })
      expect(new Set(watchedFromVersions(kube))).toEqual(
        new Set([created.metadata.resourceVersion])
      )
    } finally {
      controller.abort()
      await kube.close()
    }
  }, 15000)
})
