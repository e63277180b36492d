// The quiet wait, measured with time scaled: waitForTest (the gate's own wait, in-process) against
// the kube sandbox, for a test that never becomes final. Every time constant of both sides is
// divided by `scale` (watch timeoutSeconds, the client's inactivity limit, bookmarks, the healthy-
// watch floor, the backoff), so the requests counted per scaled minute are those of a real minute;
// only the network and CPU are not scaled (they only make the count smaller, never larger).
import { startCoderSandbox } from '../coder/index.js'
import { startKubeSandbox } from '../kube/index.js'
import type { KubeSandbox } from '../kube/index.js'
import { loadKubeConfig } from '../../../src/kube/config.js'
import { WaitTimeoutError, newWaitStats, waitForTest } from '../../../src/kube/wait.js'
import { DEFAULT_WATCH_TIMEOUT_SECONDS, inactivityLimitMs } from '../../../src/kube/watch-stream.js'
import { buildTestManifest } from '../../../src/objects/manifest.js'

const NAMESPACE = 'coder-tests'
const NAME = 'quiet-docker-v1'

export interface QuietWait {
  /** Bookmark interval in (scaled) seconds; 0: the server sends none. */
  bookmarkSeconds: number
  minutes: number
  requests: number
  perMinute: number
  /** After the first minute (the first GET, LIST and watch belong to it). */
  perMinuteAfterFirst: number
  watches: number
}

/** The test the wait watches; no controller gives it a status. */
function seedQuietTest(kube: KubeSandbox): void {
  kube.store.create(
    NAMESPACE,
    buildTestManifest({
      testName: NAME,
      namespace: NAMESPACE,
      controlPlane: 'coder',
      organization: 'acme',
      template: 'docker',
      version: 'v1',
      parameters: [],
      timeoutSeconds: 900
    })
  )
}

export async function measureQuietWait(options: {
  bookmarkSeconds: number
  /** Scaled minutes of waiting. */
  minutes: number
  /** Real ms per scaled second = 1000 / scale. */
  scale: number
}): Promise<QuietWait> {
  const secondMs = 1000 / options.scale
  const coder = await startCoderSandbox({ defaultOrganization: 'acme' })
  const kube = await startKubeSandbox({
    coder: coder.backend,
    controller: false,
    bookmarkIntervalMs: options.bookmarkSeconds * secondMs,
    watchSecondMs: secondMs
  })
  try {
    seedQuietTest(kube)
    const { kc } = loadKubeConfig({ kubeconfig: kube.kubeconfig(), context: '' })
    const started = Date.now()
    const waitMs = options.minutes * 60 * secondMs
    const stats = newWaitStats()
    await waitForTest({
      kc,
      namespace: NAMESPACE,
      name: NAME,
      signal: new AbortController().signal,
      isFinal: () => false,
      syncDeadline: started + waitMs,
      waitTimeoutMs: waitMs,
      // The gate's defaults (watch-stream.ts, wait.ts), scaled.
      watchTimeoutSeconds: DEFAULT_WATCH_TIMEOUT_SECONDS,
      watchInactivityMs: inactivityLimitMs(DEFAULT_WATCH_TIMEOUT_SECONDS) / options.scale,
      minHealthyWatchMs: 1000 / options.scale,
      backoff: { initialMs: 500 / options.scale, maxMs: 10_000 / options.scale },
      stats
    }).catch((error: unknown) => {
      if (!(error instanceof WaitTimeoutError)) throw error
    })
    const minuteMs = 60 * secondMs
    const ofTest = kube.requests.filter((r) => r.path.includes('/codertemplatetests'))
    const afterFirst = ofTest.filter((r) => r.at >= started + minuteMs)
    return {
      bookmarkSeconds: options.bookmarkSeconds,
      minutes: options.minutes,
      requests: ofTest.length,
      perMinute: ofTest.length / options.minutes,
      perMinuteAfterFirst: afterFirst.length / Math.max(1, options.minutes - 1),
      watches: stats.watches
    }
  } finally {
    await Promise.all([kube.close(), coder.close()])
  }
}
