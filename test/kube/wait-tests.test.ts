// The wait for a set of tests (test-presets) against the kube sandbox: ONE list and ONE watch of
// the collection for all of them, each test's own ending, and the deadlines per test.
import { describe, expect, it } from '@jest/globals'
import { loadKubeConfig } from '../../src/kube/config.js'
import { newWaitStats } from '../../src/kube/wait.js'
import { type SetWaitOptions, waitForTests } from '../../src/kube/wait-tests.js'
import { verdictOf } from '../../src/verdict/verdict.js'
import { startKubeSandbox, type KubeSandbox } from '../sandbox/kube/server.js'
import { FakeCoder, testManifest } from '../sandbox-tests/kube/helpers.js'
import { runningStatus, succeededStatus, until } from './helpers/kubeServer.js'

const NS = 'coder-tests'
const NAMES = ['docker-v1-small', 'docker-v1-large', 'docker-v1-xl']
const FAILED = {
  observedGeneration: 1,
  phase: 'Failed',
  reason: 'WorkspaceBuildFailed',
  message: 'no GPU',
  conditions: [{ type: 'Ready', status: 'False' }]
}

async function withKube(body: (kube: KubeSandbox) => Promise<void>): Promise<void> {
  const kube = await startKubeSandbox({ coder: new FakeCoder(), controller: false })
  try {
    await body(kube)
  } finally {
    await kube.close()
  }
}

function options(kube: KubeSandbox, extra: Partial<SetWaitOptions> = {}): SetWaitOptions {
  return {
    kc: loadKubeConfig({ kubeconfig: kube.kubeconfig(), context: '' }).kc,
    namespace: NS,
    names: NAMES,
    signal: new AbortController().signal,
    isFinal: (t) => verdictOf(t).state !== 'waiting',
    syncDeadline: Date.now() + 10_000,
    waitTimeoutMs: 10_000,
    backoff: { initialMs: 20, maxMs: 80 },
    minHealthyWatchMs: 0,
    ...extra
  }
}

const watchRequests = (kube: KubeSandbox) =>
  kube.requests.filter(
    (r) => r.path.includes('codertemplatetests') && /[?&]watch=true/.test(r.path)
  )

describe('waitForTests', () => {
  it('waits for three tests with one list and one watch, each with its own ending', async () => {
    await withKube(async (kube) => {
      const stats = newWaitStats()
      const seen: string[] = []
      const waiting = waitForTests(
        options(kube, {
          stats,
          onObserved: (name, t) => seen.push(`${name}:${t?.status?.phase ?? '-'}`)
        })
      )
      await until(() => stats.watches === 1)
      // Created after the list: the one watch sees them as ADDED, with an object of another test.
      for (const name of NAMES) kube.store.create(NS, testManifest(name))
      kube.store.create(NS, testManifest('someone-else'))
      kube.store.updateStatus(NS, 'docker-v1-small', runningStatus())
      kube.store.updateStatus(NS, 'docker-v1-small', succeededStatus())
      kube.store.updateStatus(NS, 'docker-v1-large', FAILED)
      kube.store.updateStatus(NS, 'docker-v1-xl', succeededStatus())
      const outcomes = await waiting
      expect(outcomes.map((o) => [o.name, o.ending, o.last?.status?.phase])).toEqual([
        ['docker-v1-small', 'final', 'Succeeded'],
        ['docker-v1-large', 'final', 'Failed'],
        ['docker-v1-xl', 'final', 'Succeeded']
      ])
      expect(stats).toMatchObject({ gets: 0, lists: 1, watches: 1, errors: 0 })
      expect(watchRequests(kube)).toHaveLength(1)
      expect(seen).toContain('docker-v1-small:Running')
      expect(seen.some((s) => s.startsWith('someone-else'))).toBe(false)
    })
  })

  it('returns at once after the list when every test is already final', async () => {
    await withKube(async (kube) => {
      for (const name of NAMES) {
        kube.store.create(NS, testManifest(name))
        kube.store.updateStatus(NS, name, succeededStatus())
      }
      const stats = newWaitStats()
      const outcomes = await waitForTests(options(kube, { stats }))
      expect(outcomes.every((o) => o.ending === 'final')).toBe(true)
      expect(stats).toMatchObject({ lists: 1, watches: 0 })
    })
  })

  it('ends each test at its own deadline: never seen is a sync timeout, seen and running a wait timeout', async () => {
    await withKube(async (kube) => {
      kube.store.create(NS, testManifest('docker-v1-small'))
      kube.store.updateStatus(NS, 'docker-v1-small', succeededStatus())
      kube.store.create(NS, testManifest('docker-v1-large'))
      kube.store.updateStatus(NS, 'docker-v1-large', runningStatus())
      const stats = newWaitStats()
      const outcomes = await waitForTests(
        options(kube, { stats, syncDeadline: Date.now() + 300, waitTimeoutMs: 400 })
      )
      expect(outcomes.map((o) => [o.name, o.ending])).toEqual([
        ['docker-v1-small', 'final'],
        ['docker-v1-large', 'wait-timeout'],
        ['docker-v1-xl', 'sync-timeout']
      ])
      // One watch for the whole wait, and one last list at the end for the tests not final.
      expect(stats).toMatchObject({ lists: 2, watches: 1 })
    })
  })

  it('a test deleted before it was final ends at once as deleted; the others are still watched', async () => {
    await withKube(async (kube) => {
      const stats = newWaitStats()
      const seen: string[] = []
      // An hour for each deadline: only the deletions and the final read can end this wait.
      const waiting = waitForTests(
        options(kube, {
          stats,
          syncDeadline: Date.now() + 3_600_000,
          waitTimeoutMs: 3_600_000,
          onObserved: (name, t) => seen.push(`${name}:${t?.status?.phase ?? '-'}`)
        })
      )
      await until(() => stats.watches === 1)
      kube.store.create(NS, testManifest('docker-v1-small'))
      kube.store.updateStatus(NS, 'docker-v1-small', runningStatus())
      // xl has a finalizer, as the controller adds one: a delete only marks it (deletionTimestamp).
      const xl = testManifest('docker-v1-xl') as { metadata: Record<string, unknown> }
      kube.store.create(NS, {
        ...xl,
        metadata: { ...xl.metadata, finalizers: ['example.com/hold'] }
      })
      kube.store.updateStatus(NS, 'docker-v1-xl', runningStatus())
      kube.store.create(NS, testManifest('docker-v1-large'))
      kube.store.updateStatus(NS, 'docker-v1-large', runningStatus())
      await until(() => seen.includes('docker-v1-large:Running'))
      kube.store.delete(NS, 'docker-v1-small')
      kube.store.delete(NS, 'docker-v1-xl')
      // Re-created after its deletion: ignored, the deletion stands. The one stream sends these
      // events before large's Succeeded, so the wait has seen them when it ends.
      kube.store.create(NS, testManifest('docker-v1-small'))
      kube.store.updateStatus(NS, 'docker-v1-small', succeededStatus())
      kube.store.updateStatus(NS, 'docker-v1-large', succeededStatus())
      const outcomes = await waiting
      expect(outcomes.map((o) => [o.name, o.ending, o.last?.status?.phase])).toEqual([
        ['docker-v1-small', 'deleted', 'Running'],
        ['docker-v1-large', 'final', 'Succeeded'],
        ['docker-v1-xl', 'deleted', 'Running']
      ])
      expect(outcomes[2]?.last?.metadata?.deletionTimestamp).toBeTruthy()
      expect(stats).toMatchObject({ lists: 1, watches: 1, errors: 0 })
      // Its deletion reported (null), then nothing of the re-created object.
      expect(seen.filter((s) => s.startsWith('docker-v1-small')).slice(-2)).toEqual([
        'docker-v1-small:Running',
        'docker-v1-small:-'
      ])
    })
  })

  it('rejects promptly on abort', async () => {
    await withKube(async (kube) => {
      const controller = new AbortController()
      const stats = newWaitStats()
      const waiting = waitForTests(options(kube, { stats, signal: controller.signal })).catch(
        (e: unknown) => e
      )
      await until(() => stats.watches === 1)
      controller.abort()
      expect(String(await waiting)).toMatch(/abort/i)
    })
  })
})
