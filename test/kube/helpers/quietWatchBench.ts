// Measures the request rate of waitForTest against a quiet watch (no events, no bookmarks) with
// the gate's own inactivity limit (above the watch's timeoutSeconds; watch-stream.ts).
// Run: node_modules/.bin/node --import tsx test/kube/helpers/quietWatchBench.ts [durationMs]
import { pathToFileURL } from 'node:url'
import { WaitTimeoutError, newWaitStats, waitForTest } from '../../../src/kube/wait.js'
import type { WaitStats } from '../../../src/kube/wait.js'
import { kubeConfigFor, runningStatus } from './kubeServer.js'
import { WORLD_NAMESPACE, WORLD_TEST_NAME, startTestWorld } from './testWorld.js'

export interface QuietWatchFigures {
  seconds: number
  stats: WaitStats
  requests: number
  requestsPerMinute: number
}

export async function measureQuietWatch(durationMs: number): Promise<QuietWatchFigures> {
  const world = await startTestWorld(() => undefined)
  world.write(runningStatus())
  const stats = newWaitStats()
  const started = Date.now()
  try {
    await waitForTest({
      kc: kubeConfigFor(world.server),
      namespace: WORLD_NAMESPACE,
      name: WORLD_TEST_NAME,
      signal: new AbortController().signal,
      isFinal: () => false,
      syncDeadline: started + durationMs,
      waitTimeoutMs: durationMs,
      stats
    })
  } catch (err) {
    if (!(err instanceof WaitTimeoutError)) throw err
  } finally {
    await world.close()
  }
  const seconds = (Date.now() - started) / 1000
  const requests = stats.gets + stats.lists + stats.watches
  return { seconds, stats, requests, requestsPerMinute: +((requests * 60) / seconds).toFixed(2) }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  measureQuietWatch(Number(process.argv[2] ?? 95000)).then(
    (figures) => console.log(JSON.stringify(figures)),
    (err: unknown) => {
      console.error(err)
      process.exitCode = 1
    }
  )
}
