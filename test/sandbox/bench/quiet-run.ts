// Requests per minute of the real bundle's quiet wait (the test never gets a final status).
import type { RecordedRequest } from '../contracts.js'
import { testNameFor } from '../../../src/settings/naming.js'
import { QUIET_WAIT_SECONDS, TEMPLATE } from './config.js'
import { fail, withWorld } from './runs.js'

export interface QuietRun {
  bookmarkSeconds: number
  windowSeconds: number
  gets: number
  lists: number
  watches: number
  other: number
  total: number
  perMinute: number
  /** After the first read and watch: only what keeping the wait alive costs. */
  steadyRequests: number
  steadySeconds: number
  steadyPerMinute: number
}

const DISCOVERY_PATH = /^\/(api|apis|version)(\/[^/?]+){0,2}(\?|$)/

export async function quietRun(bookmarkSeconds: number): Promise<QuietRun> {
  return withWorld({ kube: { bookmarkIntervalMs: bookmarkSeconds * 1000 } }, async (world) => {
    const version = 'v2.0.0'
    // The controller never reconciles within the window: the test stays without a status.
    world.kube.controller!.script(testNameFor(TEMPLATE, version), { downForMs: 3_600_000 })
    let spawnedAt = 0
    const run = await world.run(
      { version, 'wait-timeout-seconds': String(QUIET_WAIT_SECONDS) },
      {},
      { onStart: () => (spawnedAt = Date.now()), timeoutMs: (QUIET_WAIT_SECONDS + 120) * 1000 }
    )
    if (!/was not final within/.test(run.stdout + run.summary))
      fail(`quiet run (${bookmarkSeconds} s bookmarks)`, `did not end by the wait timeout`)
    const exitedAt = spawnedAt + run.durationMs
    const testRequests = world.kube.requests.filter((r) => r.path.includes('/codertemplatetests'))
    const windowStart = testRequests[0]?.at ?? fail('quiet run', 'no request for the test')
    const waiting = world.kube.requests.filter(
      (r) =>
        r.at >= windowStart &&
        r.at <= exitedAt &&
        !DISCOVERY_PATH.test(r.path) &&
        !r.path.includes('/promote')
    )
    const isWatch = (r: RecordedRequest): boolean => /[?&]watch=(true|1)/.test(r.path)
    const tests = waiting.filter((r) => r.path.includes('/codertemplatetests'))
    const gets = tests.filter((r) => !isWatch(r) && /codertemplatetests\/[^/?]+/.test(r.path))
    const watches = tests.filter(isWatch)
    const lists = tests.filter((r) => !isWatch(r) && !/codertemplatetests\/[^/?]+/.test(r.path))
    const windowSeconds = (exitedAt - windowStart) / 1000
    const firstWatch = watches[0] ?? fail('quiet run', 'no watch')
    const steady = waiting.filter((r) => r.at > firstWatch.at)
    const steadySeconds = (exitedAt - firstWatch.at) / 1000
    return {
      bookmarkSeconds,
      windowSeconds,
      gets: gets.length,
      lists: lists.length,
      watches: watches.length,
      other: waiting.length - tests.length,
      total: waiting.length,
      perMinute: (waiting.length * 60) / windowSeconds,
      steadyRequests: steady.length,
      steadySeconds,
      steadyPerMinute: (steady.length * 60) / steadySeconds
    }
  })
}
