// N gates of N different templates at once against ONE world: one Coder, one API server, one
// GitOps repository and branch, one GitHub token (docs/examples/matrix.yml). The GitHub sandbox
// enforces the secondary limits (github/secondary-limits.ts), at GitHub's numbers unless told.
// Used by `npm run bench -- --matrix N` and by test/e2e/matrix.test.ts.
import { writeFileSync } from 'node:fs'
import { GITOPS_REPO, OWNER, startWorld, type World } from '../world.js'
import type { ActionRun } from '../action-runner.js'
import type { SecondaryLimits } from '../github/index.js'
import { testNameFor } from '../../../src/settings/naming.js'

export type MatrixMode = 'commit' | 'pull-request'

export interface MatrixOptions {
  gates: number
  mode: MatrixMode
  /** How long the controller leaves each test without a status: the wait measured. Default 0. */
  testDownMs?: number
  secondaryLimits?: Partial<SecondaryLimits>
  /** Per gate run. Default 15 min. */
  runTimeoutMs?: number
}

export interface GateOutcome {
  template: string
  ok: boolean
  durationMs: number
  /** The end of stdout and stderr of a failed gate. */
  detail: string
  /** The gate's last rate-limit warnings, joined by ' | '. */
  limitNotes?: string
  /** How often the commit waited for a rate limit and judged again (the commit step's log line). */
  commitRateLimitPauses?: number
}

export interface MatrixResult {
  mode: MatrixMode
  gates: GateOutcome[]
  wallMs: number
  githubRequests: number
  /** Most content-generating requests GitHub accepted in one sliding minute. */
  peakContentPerMinute: number
  contentRefused: number
  /** API server requests for the tests after each one's first watch, per minute of the waits. */
  kubePerMinuteDuringWaits: number
  /** Every API server request per minute, from the first gate's first request to the last promote. */
  kubePerMinuteOverall: number
  /** Branch updates GitHub refused as not a fast-forward (a concurrent writer won). */
  lostCommitRaces: number
}

export async function runMatrix(options: MatrixOptions): Promise<MatrixResult> {
  const templates = Array.from(
    { length: options.gates },
    (_, i) => `tpl-${String(i).padStart(3, '0')}`
  )
  const world = await startWorld({
    kube: { promoteResourceNames: null },
    github: { secondaryLimits: options.secondaryLimits ?? {} },
    gitopsRepoSettings:
      options.mode === 'pull-request'
        ? { allowAutoMerge: true, mergeabilityDelayMs: 20, autoMergeDelayMs: 20 }
        : undefined
  })
  try {
    for (const name of templates) {
      world.coder.seedTemplate({ name, versionName: 'v0.9.0' })
      if (options.testDownMs)
        world.kube.controller!.script(testNameFor(name, 'v1.0.0'), {
          downForMs: options.testDownMs
        })
    }
    const finals = finalWrites(world)
    const started = Date.now()
    const runs = await Promise.all(
      templates.map((template, i) => gate(world, options, template, i))
    )
    const wallMs = Date.now() - started
    writeGitHubLog(world)
    return {
      mode: options.mode,
      gates: runs,
      wallMs,
      ...githubFigures(world),
      ...kubeFigures(world, templates, finals)
    }
  } finally {
    await world.close()
  }
}

async function gate(
  world: World,
  options: MatrixOptions,
  template: string,
  index: number
): Promise<GateOutcome> {
  const inputs: Record<string, string> = { template, directory: 'docker', version: 'v1.0.0' }
  if (options.mode === 'pull-request')
    Object.assign(inputs, { 'gitops-mode': 'pull-request', 'pull-request-merge': 'auto' })
  let run: ActionRun
  try {
    run = await world.run(
      inputs,
      { runId: String(5000 + index) },
      { timeoutMs: options.runTimeoutMs ?? 15 * 60_000 }
    )
  } catch (error) {
    return { template, ok: false, durationMs: 0, detail: String(error) }
  }
  const ok = run.exitCode === 0 && run.outputs['promotion-result'] === 'Promoted'
  // The gate's rate-limit warnings say which wait it refused (retries spent, past the deadline).
  const limitNotes = (run.stdout + run.stderr)
    .split('\n')
    .filter((line) => line.includes('rate limit on'))
    .slice(-3)
    .join(' | ')
  const detail = ok ? '' : `exit ${run.exitCode}: ${(run.stdout + run.stderr).slice(-1500)}`
  const paused = /waited for GitHub's rate limit (\d+) times/.exec(run.stdout)
  const commitRateLimitPauses = paused ? Number(paused[1]) : 0
  return { template, ok, durationMs: run.durationMs, detail, limitNotes, commitRateLimitPauses }
}

function finalWrites(world: World): Map<string, number> {
  const finals = new Map<string, number>()
  world.kube.events.on('final-status', (info: { name: string; at: number }) =>
    finals.set(info.name, info.at)
  )
  return finals
}

/** BENCH_GITHUB_LOG=<file>: one line per GitHub request (method, path, GraphQL operation, status). */
function writeGitHubLog(world: World): void {
  const file = process.env.BENCH_GITHUB_LOG
  if (!file) return
  const lines = world.github.requests.map((r) => {
    const operation = /\b(query|mutation)\s+(\w+)/.exec(r.body ?? '')
    const path = r.path.split('?')[0]
    return `${r.method} ${path}${operation ? ` ${operation[2]}` : ''} ${r.status}`
  })
  writeFileSync(file, lines.join('\n') + '\n')
}

function githubFigures(world: World) {
  const stats = world.github.secondaryLimitStats()
  const refsPath = `/repos/${OWNER}/${GITOPS_REPO}/git/refs/`
  // A lost race: a ref update that was not a fast forward (the Git Data API's commit), or a
  // createCommitOnBranch answered STALE_DATA (the gate's commit since wave 4).
  const lostCommitRaces = world.github.requests.filter(
    (r) =>
      (r.method === 'PATCH' && r.path.startsWith(refsPath) && r.status === 422) ||
      (r.path.endsWith('/graphql') && (r.answer ?? '').includes('"type":"STALE_DATA"'))
  ).length
  return {
    githubRequests: world.github.requests.length,
    peakContentPerMinute: stats?.peakContentPerMinute ?? 0,
    contentRefused: (stats?.refusedContent ?? 0) + (stats?.refusedConcurrent ?? 0),
    lostCommitRaces
  }
}

function kubeFigures(world: World, templates: string[], finals: Map<string, number>) {
  const requests = world.kube.requests
  let during = 0
  let from = Infinity
  let until = 0
  for (const template of templates) {
    const name = testNameFor(template, 'v1.0.0')
    const mine = requests.filter(
      (r) => r.path.includes(`/${name}`) || r.path.includes(`metadata.name%3D${name}`)
    )
    const firstWatch = mine.find((r) => /[?&]watch=(true|1)/.test(r.path))
    const final = finals.get(name)
    if (!firstWatch || final === undefined) continue
    from = Math.min(from, firstWatch.at)
    until = Math.max(until, final)
    during += mine.filter((r) => r.at > firstWatch.at && r.at <= final).length
  }
  const minutes = (ms: number): number => Math.max(ms, 1) / 60_000
  const overallFrom = requests[0]?.at ?? 0
  const overallUntil = requests.at(-1)?.at ?? 0
  return {
    kubePerMinuteDuringWaits: until > from ? during / minutes(until - from) : 0,
    kubePerMinuteOverall: requests.length / minutes(overallUntil - overallFrom)
  }
}
