// The matrix e2e case of one mode: ten gates of ten templates at once against one world
// under GitHub's secondary limits; every gate must promote. One file per mode, so that jest runs
// the two side by side. A correctness test: no timings are asserted.
import { expect, it } from '@jest/globals'
import { existsSync } from 'node:fs'
import { BUNDLE } from '../sandbox/action-runner.js'
import { runMatrix, type MatrixMode } from '../sandbox/bench/matrix.js'

export function matrixCase(mode: MatrixMode): void {
  it(`${mode} mode: all ten succeed and promote, under GitHub secondary limits`, async () => {
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run package`)
    const result = await runMatrix({ gates: 10, mode })
    const failed = result.gates.filter((gate) => !gate.ok)
    expect(failed.map((gate) => `${gate.template}: ${gate.detail}`)).toEqual([])
    expect(result.gates).toHaveLength(10)
    expect(result.peakContentPerMinute).toBeLessThanOrEqual(80)
  }, 600_000)
}
