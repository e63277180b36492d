// The bench's report: one table (measure, value, unit, compared with) and the ratios.
import os from 'node:os'
import path from 'node:path'
import { BUNDLE } from '../action-runner.js'
import { POLL_INTERVAL_MS, QUIET_SCALE } from './config.js'
import type { measureMergeWait } from './merge-wait.js'
import type { measureQuietWait } from './quiet-wait.js'
import type { QuietRun } from './quiet-run.js'
import { type PresetWait, presetWaitRows } from './presets-wait.js'
import type { GateRun } from './runs.js'
import { NUDGE_POLL_MS, type NudgeFigures } from './nudge.js'
import { bundleBytes } from './startup.js'
import { median, summary } from './stats.js'

export interface BenchFigures {
  benchStarted: number
  gateRuns: GateRun[]
  pollLatencies: number[]
  quiet60: QuietRun
  quiet10: QuietRun
  merge: Awaited<ReturnType<typeof measureMergeWait>>
  scaled: Awaited<ReturnType<typeof measureQuietWait>>[]
  startups: { current: number[]; compared: number[] }
  nudge: NudgeFigures
  compareBundle: string
  compareLabel: string
  presets: PresetWait[]
}

type Row = [measure: string, value: string, unit: string, comparedWith: string]
type Summary = ReturnType<typeof summary>

function table(rows: Row[]): string[] {
  const all: Row[] = [['measure', 'value', 'unit', 'compared with'], ...rows]
  const width = (col: number): number => Math.max(...all.map((row) => row[col]!.length))
  const format = (row: Row): string =>
    `| ${row.map((cell, col) => (col === 1 ? cell.padStart(width(col)) : cell.padEnd(width(col)))).join(' | ')} |`
  const rule = `|${[0, 1, 2, 3].map((col) => `${col === 1 ? '-' : ':'}${'-'.repeat(width(col))}${col === 1 ? ':' : '-'}`).join('|')}|`
  return [format(all[0]!), rule, ...rows.map(format)]
}

const round = (value: number): string => String(Math.round(value))
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`

function latencyRows(gate: Summary, poll: Summary, total: Summary): Row[] {
  return [
    [
      'final status -> promote, median',
      round(gate.median),
      'ms',
      `5 s poll loop: ${round(poll.median)} ms`
    ],
    ['final status -> promote, p95', round(gate.p95), 'ms', `5 s poll loop: ${round(poll.p95)} ms`],
    [
      'whole gate run, median',
      round(total.median),
      'ms',
      `${gate.n} runs, p95 ${round(total.p95)} ms`
    ]
  ]
}

/** gitops-refresh: commit to test object, a 60 s sandbox poll, without and with the nudge. */
function nudgeRows(n: NudgeFigures): Row[] {
  const off = summary(n.without)
  const on = summary(n.with)
  const poll = `${NUDGE_POLL_MS / 1000} s poll`
  return [
    [
      'commit to test object, median, gitops-refresh',
      round(on.median),
      'ms',
      `without the nudge (${poll}): ${round(off.median)} ms; ${on.n} + ${off.n} runs`
    ],
    [
      'commit to test object, max, gitops-refresh',
      round(on.max),
      'ms',
      `without the nudge: max ${round(off.max)} ms, min ${round(off.min)} ms`
    ],
    ['sync-seconds outputs, gitops-refresh', n.syncSeconds.join(' '), 's', '']
  ]
}

/** The report of `npm run bench -- --nudge`: the nudge rows only. */
export function nudgeReport(n: NudgeFigures): string {
  const cpus = os.cpus()
  return (
    [
      `coder-template-gate bench --nudge: Node ${process.version}, ${cpus.length} CPU, load ${os.loadavg()[0]!.toFixed(1)}; ${path.relative(process.cwd(), BUNDLE)}; real time (no faster clock), all runs side by side.`,
      '',
      ...table(nudgeRows(n)),
      '',
      `Ratio: commit to test object, without / with the nudge (median): ${ratio(median(n.without), median(n.with))}`,
      `Each run (ms): without ${n.without.join(', ')}; with ${n.with.join(', ')}.`
    ].join('\n') + '\n'
  )
}

function quietRows(f: BenchFigures, pollPerMinute: number): Row[] {
  const { quiet60, quiet10, scaled, merge } = f
  return [
    [
      'quiet wait, 60 s bookmarks',
      quiet60.perMinute.toFixed(1),
      'requests/min',
      `5 s poll loop: ${pollPerMinute.toFixed(1)}`
    ],
    [
      'quiet wait, 10 s bookmarks',
      quiet10.perMinute.toFixed(1),
      'requests/min',
      `5 s poll loop: ${pollPerMinute.toFixed(1)}`
    ],
    ...scaled.map((q): Row => [
      `quiet wait, ${q.bookmarkSeconds ? `${q.bookmarkSeconds} s bookmarks` : 'no bookmarks'}, scaled`,
      q.perMinute.toFixed(2),
      'requests/min',
      `${q.minutes} min at ${QUIET_SCALE}x; after the first minute ${q.perMinuteAfterFirst.toFixed(2)}/min`
    ]),
    [
      'manual merge wait, first minute',
      String(merge.firstMinute),
      'requests',
      `measured over ${merge.minutes} min real time (${merge.notModified} answered 304)`
    ],
    [
      'manual merge wait, after the first minute',
      merge.afterFirstPerMinute.toFixed(1),
      'requests/min',
      'the pause is at its 30 s cap from about 66 s on, so this holds to minute 10'
    ]
  ]
}

interface StartupFigures {
  startup: Summary
  oldStartup: Summary | null
  size: number
  oldSize: number
  other: string
}

function startupRows(s: StartupFigures, compareBundle: string): Row[] {
  const { startup, oldStartup, size, oldSize, other } = s
  return [
    [
      'start-up (spawn -> first request), median',
      round(startup.median),
      'ms',
      oldStartup ? `${other}: ${round(oldStartup.median)} ms` : ''
    ],
    [
      'start-up, p95',
      round(startup.p95),
      'ms',
      oldStartup ? `${other}: ${round(oldStartup.p95)} ms` : ''
    ],
    [
      'dist/ size',
      size.toLocaleString('en-US'),
      'bytes',
      compareBundle ? `${other}: ${oldSize.toLocaleString('en-US')} bytes` : ''
    ]
  ]
}

export function benchReport(f: BenchFigures): string {
  const cpus = os.cpus()
  const gate = summary(f.gateRuns.map((r) => r.latencyMs))
  const poll = summary(f.pollLatencies)
  const total = summary(f.gateRuns.map((r) => r.totalMs))
  const startup: StartupFigures = {
    startup: summary(f.startups.current),
    oldStartup: f.compareBundle ? summary(f.startups.compared) : null,
    size: bundleBytes(BUNDLE),
    oldSize: f.compareBundle ? bundleBytes(f.compareBundle) : 0,
    other: f.compareLabel || 'the other bundle'
  }
  const pollPerMinute = 60_000 / POLL_INTERVAL_MS
  const rows: Row[] = [
    ...latencyRows(gate, poll, total),
    ...quietRows(f, pollPerMinute),
    ...presetWaitRows(f.presets),
    ...nudgeRows(f.nudge),
    ...startupRows(startup, f.compareBundle)
  ]
  const { oldStartup, size, oldSize, other } = startup
  const out = [
    `coder-template-gate bench: Node ${process.version}, ${cpus.length} CPU (${cpus[0]?.model.trim() ?? 'unknown'}), load ${os.loadavg()[0]!.toFixed(1)}; ${path.relative(process.cwd(), BUNDLE)} as a child process per run.`,
    '',
    ...table(rows),
    '',
    'Ratios:',
    `  promote latency, poll loop / gate (median): ${ratio(poll.median, gate.median)}`,
    `  requests per minute, poll loop / gate (60 s bookmarks): ${ratio(pollPerMinute, f.quiet60.perMinute)}`,
    `  commit to test object, without / with gitops-refresh (median): ${ratio(median(f.nudge.without), median(f.nudge.with))}`
  ]
  if (oldStartup) {
    out.push(
      `  start-up, this bundle / ${other} (median): ${ratio(startup.startup.median, oldStartup.median)}`
    )
    out.push(`  dist/ size, this bundle / ${other}: ${ratio(size, oldSize)}`)
  }
  out.push('', `Bench runtime: ${((Date.now() - f.benchStarted) / 1000).toFixed(0)} s.`)
  return out.join('\n') + '\n'
}
