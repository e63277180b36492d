// `npm run bench`: figures of the real bundle (`node dist/index.js`) against the sandbox world, as
// one table (measure, value, unit, compared with) and the ratios. Final-status-to-promote latency
// of the gate vs a plain 5 s poll loop, API requests per minute of a quiet wait, start-up time and
// the size of dist/; with BENCH_COMPARE_BUNDLE, start-up and size of that bundle too, measured in
// the same run (interleaved). A benchmark, not a test: nothing here asserts speed; it fails only
// when a run does not do what it must. Fresh worlds per run, so each world's first promote is that run's.
// Parts: bench/config.ts (BENCH_* settings), bench/runs.ts (gate and poll-loop runs),
// bench/quiet-run.ts, bench/startup.ts, bench/report.ts; --matrix: bench/matrix-report.ts.
import { buildBareBundle } from './bench/bare-bundle.js'
import {
  GATE_RUNS,
  MERGE_MINUTES,
  POLL_RUNS,
  QUIET_SCALE,
  QUIET_SCALED_MINUTES,
  QUIET_WAIT_SECONDS,
  STARTUP_RUNS
} from './bench/config.js'
import { matrixMain } from './bench/matrix-report.js'
import { measureMergeWait } from './bench/merge-wait.js'
import { measureNudge, NUDGE_RUNS } from './bench/nudge.js'
import { nudgeReport } from './bench/report.js'
import { measureQuietWait } from './bench/quiet-wait.js'
import { quietRun } from './bench/quiet-run.js'
import { presetWaitFigures, presetWaitRows } from './bench/presets-wait.js'
import { benchReport } from './bench/report.js'
import { gateRun, pollRun } from './bench/runs.js'
import type { GateRun } from './bench/runs.js'
import { startupPairs } from './bench/startup.js'

/**
 * Another bundle (e.g. an older dist/index.js) whose start-up and size are measured alongside.
 * Default: a bare bundle of @actions/core and @actions/github built with the same ncc in this run.
 */
let COMPARE_BUNDLE = process.env.BENCH_COMPARE_BUNDLE ?? ''
let COMPARE_LABEL = process.env.BENCH_COMPARE_LABEL ?? COMPARE_BUNDLE

/** --nudge: only the gitops-refresh row (commit to test object, 60 s poll, without and with). */
async function nudgeMain(): Promise<void> {
  process.stderr.write(`bench: ${NUDGE_RUNS} + ${NUDGE_RUNS} nudge runs (in parallel)...\n`)
  process.stdout.write(nudgeReport(await measureNudge()))
}

async function main(): Promise<void> {
  if (process.argv.includes('--presets')) return presetsMain()
  const matrixAt = process.argv.indexOf('--matrix')
  if (matrixAt >= 0) {
    const gates = Number(process.argv[matrixAt + 1] ?? '')
    return matrixMain(Number.isInteger(gates) && gates > 0 ? gates : 50)
  }
  if (process.argv.includes('--nudge')) return nudgeMain()
  const benchStarted = Date.now()
  process.stderr.write(`bench: ${GATE_RUNS} gate runs...\n`)
  const gateRuns: GateRun[] = []
  for (let i = 0; i < GATE_RUNS; i++) gateRuns.push(await gateRun(i))

  process.stderr.write(`bench: ${POLL_RUNS} poll-loop runs (in parallel, one world each)...\n`)
  const pollLatencies = await Promise.all(Array.from({ length: POLL_RUNS }, (_, i) => pollRun(i)))

  process.stderr.write(
    `bench: two quiet waits of ${QUIET_WAIT_SECONDS} s, three scaled ones, a ${MERGE_MINUTES} min merge wait, ${NUDGE_RUNS} + ${NUDGE_RUNS} nudge runs (in parallel)...\n`
  )
  const nudgeMeasured = measureNudge()
  const [quiet60, quiet10, merge, ...scaled] = await Promise.all([
    quietRun(60),
    quietRun(10),
    measureMergeWait(MERGE_MINUTES),
    ...[60, 10, 0].map((bookmarkSeconds) =>
      measureQuietWait({ bookmarkSeconds, minutes: QUIET_SCALED_MINUTES, scale: QUIET_SCALE })
    )
  ])

  if (!COMPARE_BUNDLE) {
    process.stderr.write('bench: building a bare @actions/core + @actions/github bundle...\n')
    COMPARE_BUNDLE = buildBareBundle()
    COMPARE_LABEL = 'bare @actions/core + @actions/github (same ncc)'
  }

  process.stderr.write('bench: the preset wait, 1 test and 5 tests...\n')
  const presets = await presetWaitFigures()

  process.stderr.write(`bench: ${STARTUP_RUNS} start-ups per bundle (interleaved)...\n`)
  const startups = await startupPairs(COMPARE_BUNDLE)
  process.stdout.write(
    benchReport({
      benchStarted,
      gateRuns,
      pollLatencies,
      quiet60: quiet60!,
      quiet10: quiet10!,
      merge,
      scaled,
      nudge: await nudgeMeasured,
      startups,
      compareBundle: COMPARE_BUNDLE,
      compareLabel: COMPARE_LABEL,
      presets
    })
  )
}

/** `npm run bench -- --presets`: the preset wait's rows alone. */
async function presetsMain(): Promise<void> {
  const figures = await presetWaitFigures()
  for (const row of presetWaitRows(figures)) process.stdout.write(`| ${row.join(' | ')} |\n`)
  for (const f of figures)
    process.stdout.write(
      `  ${f.scenario}, ${f.tests} tests: ${f.requests} requests, ${f.watches} watches, ${f.ms} ms\n`
    )
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  }
)
