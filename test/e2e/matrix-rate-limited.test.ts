// End to end: gates racing on one branch while GitHub's content-creating limit refuses
// some of their commits. A refused commit is not sent again as it was (its pinned head is stale by
// then): the gate waits as GitHub asked, reads the head again and commits on it
// (src/gitops/github/client/commit-rate-limit.ts). Every gate must still promote. The limit is 4 content requests a
// "minute" on a clock four times faster (a minute is 15 s; retry-after in real seconds), so that
// refusals are met within seconds. A correctness test: no timings are asserted.
import { describe, expect, it } from '@jest/globals'
import { existsSync } from 'node:fs'
import { BUNDLE } from '../sandbox/action-runner.js'
import { runMatrix } from '../sandbox/bench/matrix.js'

const TIGHT_LIMIT = { contentPerMinute: 4, secondMs: 250, clientSecondMs: 1000 }

describe('gates on one branch under a tight content-creating limit', () => {
  it('meet refusals, wait, judge again at the new head, and all promote', async () => {
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run package`)
    const result = await runMatrix({ gates: 6, mode: 'commit', secondaryLimits: TIGHT_LIMIT })
    const failed = result.gates.filter((gate) => !gate.ok)
    expect(failed.map((gate) => `${gate.template}: ${gate.detail}`)).toEqual([])
    expect(result.gates).toHaveLength(6)
    // The case is only meaningful when GitHub refused commits and the gates paused for it.
    expect(result.contentRefused).toBeGreaterThan(0)
    const pauses = result.gates.reduce((sum, gate) => sum + (gate.commitRateLimitPauses ?? 0), 0)
    expect(pauses).toBeGreaterThan(0)
    expect(result.peakContentPerMinute).toBeLessThanOrEqual(TIGHT_LIMIT.contentPerMinute)
  }, 600_000)
})
