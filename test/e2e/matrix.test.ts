// End to end, issue 23: ten gates of ten templates at once against one world (one Coder, one API
// server, one GitOps repository and branch, one GitHub token) with GitHub's secondary limits
// enforced at GitHub's numbers. A correctness test: every gate promotes its own tested version; no
// timings are asserted. Both modes: in commit mode the ten gates race on one branch, and the
// time-bounded, jittered commit retry (src/gitops/change.ts) must carry every one of them; in
// pull-request mode each gate writes its own branch and GitHub merges. Timings are measured by
// `npm run bench -- --matrix N`.
import { describe, expect, it } from '@jest/globals'
import { existsSync } from 'node:fs'
import { BUNDLE } from '../sandbox/action-runner.js'
import { runMatrix, type MatrixMode } from '../sandbox/bench/matrix.js'

describe('a matrix release: ten gates at once on one branch', () => {
  // Pull-request mode is in matrix-pull-request.test.ts, so that jest runs the two side by side.
  it.each<MatrixMode>(['commit'])(
    '%s mode: all ten succeed and promote, under GitHub secondary limits',
    async (mode) => {
      if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run package`)
      const result = await runMatrix({ gates: 10, mode })
      const failed = result.gates.filter((gate) => !gate.ok)
      expect(failed.map((gate) => `${gate.template}: ${gate.detail}`)).toEqual([])
      expect(result.gates).toHaveLength(10)
      expect(result.peakContentPerMinute).toBeLessThanOrEqual(80)
    },
    600_000
  )
})
