// `npm run bench -- --matrix N`: N gates at once in commit mode, then in pull-request mode, one
// table. GitHub's secondary limits at GitHub's numbers (80 content-generating requests a minute,
// 500 an hour, 100 concurrent); each test stays without a status for BENCH_MATRIX_WAIT_SECONDS
// (default 60), so the API server's requests during the waits are measured over real waits.
import { runMatrix, type MatrixMode, type MatrixResult } from './matrix.js'
import { GITHUB_SECONDARY_LIMITS } from '../github/index.js'

const WAIT_SECONDS = Number(process.env.BENCH_MATRIX_WAIT_SECONDS ?? 60)
// BENCH_MATRIX_MODES=commit (or pull-request) runs one mode only, e.g. to bound a long N=50 run.
const MODES = (process.env.BENCH_MATRIX_MODES ?? 'commit,pull-request')
  .split(',')
  .filter((mode): mode is MatrixMode => mode === 'commit' || mode === 'pull-request')

function nearestRank(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0
}

const HEADER = [
  'mode',
  'N',
  'wall s',
  'p50 s',
  'p95 s',
  'failed',
  'GitHub requests',
  'peak content/min',
  'refused by limits',
  'API req/min in waits',
  'API req/min overall',
  'lost commit races'
]

function row(result: MatrixResult): string[] {
  const durations = result.gates.filter((g) => g.ok).map((g) => g.durationMs / 1000)
  const s = (value: number): string => value.toFixed(1)
  return [
    result.mode,
    String(result.gates.length),
    s(result.wallMs / 1000),
    durations.length ? s(nearestRank(durations, 50)) : '-',
    durations.length ? s(nearestRank(durations, 95)) : '-',
    String(result.gates.filter((g) => !g.ok).length),
    String(result.githubRequests),
    `${result.peakContentPerMinute} (limit ${GITHUB_SECONDARY_LIMITS.contentPerMinute})`,
    String(result.contentRefused),
    s(result.kubePerMinuteDuringWaits),
    s(result.kubePerMinuteOverall),
    String(result.lostCommitRaces)
  ]
}

export function matrixTable(results: MatrixResult[]): string[] {
  const rows = [HEADER, ...results.map(row)]
  const width = (col: number): number => Math.max(...rows.map((r) => r[col]!.length))
  const line = (r: string[]): string => `| ${r.map((c, i) => c.padEnd(width(i))).join(' | ')} |`
  return [
    line(HEADER),
    `|${HEADER.map((_, i) => '-'.repeat(width(i) + 2)).join('|')}|`,
    ...rows.slice(1).map(line)
  ]
}

export async function matrixMain(gates: number): Promise<void> {
  const started = Date.now()
  const results: MatrixResult[] = []
  for (const mode of MODES) {
    process.stderr.write(`bench: ${gates} gates at once, ${mode} mode...\n`)
    results.push(await runMatrix({ gates, mode, testDownMs: WAIT_SECONDS * 1000 }))
  }
  const out = [
    `coder-template-gate matrix bench: ${gates} gates of ${gates} templates at once, one world; each test waits ${WAIT_SECONDS} s for the controller.`,
    '',
    ...matrixTable(results),
    ''
  ]
  for (const result of results)
    for (const failed of result.gates.filter((g) => !g.ok))
      out.push(
        `failed (${result.mode}) ${failed.template}: ${failed.limitNotes ? `[${failed.limitNotes}] ` : ''}${failed.detail.slice(-400).replace(/\s+/g, ' ')}`
      )
  out.push(`Bench runtime: ${((Date.now() - started) / 1000).toFixed(0)} s.`)
  process.stdout.write(out.join('\n') + '\n')
}
