// `npm run bench`: figures of the real bundle (`node dist/index.js`) against the sandbox world, as
// one table (measure, value, unit, compared with) and the ratios. Final-status-to-promote latency
// of the gate vs a plain 5 s poll loop, API requests per minute of a quiet wait, start-up time and
// the size of dist/; with BENCH_COMPARE_BUNDLE, start-up and size of that bundle too, measured in
// the same run (interleaved). A benchmark, not a test: nothing here asserts speed; it fails only
// when a run does not do what it must. Fresh worlds per run, so each world's first promote is that run's.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { NAMESPACE, OWNER, startWorld, type World } from './world.js'
import { BUNDLE, inputEnv } from './action-runner.js'
import type { FinalStatusInfo } from './kube/controller.js'
import type { RecordedRequest } from './contracts.js'
import type { CoderTemplateTest } from '../../src/api.js'
import { loadKubeConfig } from '../../src/kube/config.js'
import { postPromotion } from '../../src/kube/promote.js'
import { kubeRequest } from '../../src/kube/request.js'
import { buildTestManifest } from '../../src/manifest.js'
import { testNameFor } from '../../src/naming.js'
import { buildBareBundle } from './bench/bare-bundle.js'
import { matrixMain } from './bench/matrix-report.js'
import { measureMergeWait } from './bench/merge-wait.js'
import { measureQuietWait } from './bench/quiet-wait.js'

const TEMPLATE = 'docker'
const GATE_RUNS = Number(process.env.BENCH_GATE_RUNS ?? 20)
const POLL_RUNS = Number(process.env.BENCH_POLL_RUNS ?? 10)
const POLL_INTERVAL_MS = 5000
/** wait-timeout-seconds of the quiet runs: the wait window measured. */
const QUIET_WAIT_SECONDS = Number(process.env.BENCH_QUIET_SECONDS ?? 95)
/** client-node 2.0.1 Watch inactivity timeout (action-ecosystem.md §6.4). */
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15)
/**
 * Another bundle (e.g. an older dist/index.js) whose start-up and size are measured alongside.
 * Default: a bare bundle of @actions/core and @actions/github built with the same ncc in this run.
 */
let COMPARE_BUNDLE = process.env.BENCH_COMPARE_BUNDLE ?? ''
let COMPARE_LABEL = process.env.BENCH_COMPARE_LABEL ?? COMPARE_BUNDLE
/** Scaled quiet waits: real ms per scaled second = 1000 / scale; scaled minutes measured. */
const QUIET_SCALE = Number(process.env.BENCH_QUIET_SCALE ?? 60)
const QUIET_SCALED_MINUTES = Number(process.env.BENCH_QUIET_SCALED_MINUTES ?? 20)
/** Real minutes of the manual merge wait measured (bench/merge-wait.ts). */
const MERGE_MINUTES = Number(process.env.BENCH_MERGE_MINUTES ?? 3)

// ---------- statistics ----------

function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b)
}
function median(values: number[]): number {
  const s = sorted(values)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}
/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const s = sorted(values)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!
}
function summary(values: number[]): {
  n: number
  median: number
  p95: number
  min: number
  max: number
} {
  return {
    n: values.length,
    median: median(values),
    p95: percentile(values, 95),
    min: Math.min(...values),
    max: Math.max(...values)
  }
}

// ---------- shared helpers ----------

async function withWorld<T>(
  options: Parameters<typeof startWorld>[0],
  body: (world: World) => Promise<T>
): Promise<T> {
  const world = await startWorld(options)
  try {
    world.coder.seedTemplate({ name: TEMPLATE, versionName: 'v0.9.0' })
    return await body(world)
  } finally {
    await world.close()
  }
}

/** Resolves with the controller's final status write of this test (its exact commit time). */
function finalWriteOf(world: World, testName: string): Promise<FinalStatusInfo> {
  return new Promise((resolve) => {
    const listener = (info: FinalStatusInfo): void => {
      if (info.name !== testName) return
      world.kube.events.off('final-status', listener)
      resolve(info)
    }
    world.kube.events.on('final-status', listener)
  })
}

function promoteRequests(world: World): RecordedRequest[] {
  return world.kube.requests.filter((r) => r.method === 'POST' && r.path.includes('/promote'))
}

function promotedVersionID(request: RecordedRequest): string | undefined {
  try {
    return (JSON.parse(request.body ?? '') as { spec?: { versionID?: string } }).spec?.versionID
  } catch {
    return undefined
  }
}

function fail(what: string, detail: string): never {
  throw new Error(`bench: ${what}: ${detail}`)
}

// ---------- 1: the real bundle, final write -> promote ----------

interface GateRun {
  version: string
  latencyMs: number
  totalMs: number
}

async function gateRun(index: number): Promise<GateRun> {
  return withWorld({}, async (world) => {
    const version = `v1.0.${index}`
    const testName = testNameFor(TEMPLATE, version)
    const finalWrite = finalWriteOf(world, testName)
    const run = await world.run({ version }, {}, { timeoutMs: 60_000 })
    if (run.exitCode !== 0 || run.outputs['promotion-result'] !== 'Promoted')
      fail(`gate run ${version}`, `exit ${run.exitCode}, ${run.stdout.slice(-600)}${run.stderr}`)
    const final = await finalWrite
    const promotes = promoteRequests(world)
    const promoteAt = world.kube.firstPromoteAt
    // Pair by identity, not by order: the promoted version must be the one the final write proved.
    if (promotes.length !== 1 || promoteAt === null)
      fail(`gate run ${version}`, `${promotes.length} promote requests`)
    const promotedID = promotedVersionID(promotes[0]!)
    if (
      final.phase !== 'Succeeded' ||
      promotedID !== final.templateVersionID ||
      promotedID !== run.outputs['version-id']
    )
      fail(`gate run ${version}`, `promoted ${promotedID}, final wrote ${final.templateVersionID}`)
    return {
      version,
      latencyMs: promoteAt - final.at,
      totalMs: run.durationMs
    }
  })
}

// ---------- 2: baseline, a plain 5 s poll loop ----------

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * The minimal poller a gate could be instead: GET the test every 5 s with the same kubeconfig auth,
 * POST the promote when it shows Succeeded. The controller stays down for a uniform random 0-5 s
 * after the test appears, so the final write falls at a random phase of the poll.
 */
async function pollRun(index: number): Promise<number> {
  return withWorld({ noSync: true }, async (world) => {
    const version = `v3.0.${index}`
    const testName = testNameFor(TEMPLATE, version)
    world.coder.seedVersion({ template: TEMPLATE, name: version })
    world.kube.controller!.script(testName, { downForMs: Math.random() * POLL_INTERVAL_MS })
    const finalWrite = finalWriteOf(world, testName)
    const { kc } = loadKubeConfig({ kubeconfig: world.kube.kubeconfig(), context: '' })
    world.kube.store.create(
      NAMESPACE,
      buildTestManifest({
        testName,
        namespace: NAMESPACE,
        controlPlane: 'coder',
        organization: OWNER,
        template: TEMPLATE,
        version,
        parameters: [],
        timeoutSeconds: 900
      })
    )
    const path = `/apis/coder.com/v1alpha1/namespaces/${NAMESPACE}/codertemplatetests/${testName}`
    const giveUpAt = Date.now() + 60_000
    for (;;) {
      if (Date.now() > giveUpAt) fail(`poll run ${version}`, 'no final status within 60 s')
      const got = await kubeRequest(kc, { method: 'GET', path, timeoutMs: 10_000 })
      const test = got.body as CoderTemplateTest
      if (got.status === 200 && test.status?.phase === 'Succeeded') {
        const answer = await postPromotion({
          kc,
          namespace: NAMESPACE,
          template: `${OWNER}.${TEMPLATE}`,
          versionID: test.status.templateVersionID!,
          dryRun: false
        })
        if (answer.httpStatus !== 201) fail(`poll run ${version}`, `promote ${answer.httpStatus}`)
        break
      }
      if (test.status?.phase === 'Failed') fail(`poll run ${version}`, 'the test failed')
      await sleep(POLL_INTERVAL_MS)
    }
    const final = await finalWrite
    return world.kube.firstPromoteAt! - final.at
  })
}

// ---------- 3: requests per minute of a quiet wait ----------

interface QuietRun {
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

async function quietRun(bookmarkSeconds: number): Promise<QuietRun> {
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

// ---------- 4: start-up of two bundles, interleaved in one world ----------

/** Spawn of `bundle` -> first request to any sandbox server; the child is killed right after. */
async function startupOf(world: World, bundle: string, temp: string): Promise<number> {
  const count = (): number =>
    world.coder.requests.length + world.kube.requests.length + world.github.requests.length
  const firstNew = (before: [number, number, number]): number | undefined =>
    [world.coder.requests, world.kube.requests, world.github.requests]
      .map((list, i) => list[before[i]!]?.at)
      .filter((at): at is number => at !== undefined)
      .sort((a, b) => a - b)[0]
  const before: [number, number, number] = [
    world.coder.requests.length,
    world.kube.requests.length,
    world.github.requests.length
  ]
  const context = world.context()
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: temp,
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: context.eventName,
    GITHUB_EVENT_PATH: path.join(temp, 'event.json'),
    GITHUB_REF: context.ref,
    GITHUB_SHA: context.sha,
    GITHUB_REPOSITORY: context.repository,
    GITHUB_API_URL: context.apiUrl,
    GITHUB_RUN_ID: '1',
    GITHUB_WORKSPACE: context.workspace,
    GITHUB_OUTPUT: path.join(temp, 'output.txt'),
    GITHUB_STEP_SUMMARY: path.join(temp, 'summary.md'),
    RUNNER_TEMP: path.join(temp, 'runner-temp'),
    RUNNER_TOOL_CACHE: path.join(temp, 'tool-cache'),
    ...inputEnv(world.inputs({ version: 'v9.0.0' }))
  }
  const spawnedAt = Date.now()
  const child = spawn(process.execPath, [bundle], { cwd: context.workspace, env, stdio: 'ignore' })
  const closed = new Promise((resolve) => child.on('close', resolve))
  const giveUpAt = spawnedAt + 30_000
  while (count() === before.reduce((a, b) => a + b) && Date.now() < giveUpAt) await sleep(1)
  child.kill('SIGKILL')
  await closed
  return (firstNew(before) ?? fail('start-up', `${bundle} made no request`)) - spawnedAt
}

async function startupPairs(): Promise<{ current: number[]; compared: number[] }> {
  const temp = mkdtempSync(path.join(os.tmpdir(), 'gate-bench-startup-'))
  for (const dir of ['runner-temp', 'tool-cache']) mkdirSync(path.join(temp, dir))
  for (const file of ['output.txt', 'summary.md']) writeFileSync(path.join(temp, file), '')
  writeFileSync(path.join(temp, 'event.json'), '{}')
  const current: number[] = []
  const compared: number[] = []
  await withWorld({ noSync: true }, async (world) => {
    for (let i = 0; i < STARTUP_RUNS; i++) {
      // Alternate which goes first, so neither always meets a warmer cache.
      const order = i % 2 === 0 ? ['current', 'compared'] : ['compared', 'current']
      for (const which of order) {
        if (which === 'current') current.push(await startupOf(world, BUNDLE, temp))
        else if (COMPARE_BUNDLE) compared.push(await startupOf(world, COMPARE_BUNDLE, temp))
      }
    }
  })
  return { current, compared }
}

// ---------- 5: dist/ ----------

function bundleBytes(bundle: string): number {
  const dir = path.dirname(bundle)
  return readdirSync(dir)
    .filter((file) => statSync(path.join(dir, file)).isFile())
    .reduce((sum, file) => sum + statSync(path.join(dir, file)).size, 0)
}

// ---------- report ----------

type Row = [measure: string, value: string, unit: string, comparedWith: string]

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

async function main(): Promise<void> {
  const matrixAt = process.argv.indexOf('--matrix')
  if (matrixAt >= 0) {
    const gates = Number(process.argv[matrixAt + 1] ?? '')
    return matrixMain(Number.isInteger(gates) && gates > 0 ? gates : 50)
  }
  const benchStarted = Date.now()
  const cpus = os.cpus()
  process.stderr.write(`bench: ${GATE_RUNS} gate runs...\n`)
  const gateRuns: GateRun[] = []
  for (let i = 0; i < GATE_RUNS; i++) gateRuns.push(await gateRun(i))

  process.stderr.write(`bench: ${POLL_RUNS} poll-loop runs (in parallel, one world each)...\n`)
  const pollLatencies = await Promise.all(Array.from({ length: POLL_RUNS }, (_, i) => pollRun(i)))

  process.stderr.write(
    `bench: two quiet waits of ${QUIET_WAIT_SECONDS} s, three scaled ones, a ${MERGE_MINUTES} min merge wait (in parallel)...\n`
  )
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

  process.stderr.write(`bench: ${STARTUP_RUNS} start-ups per bundle (interleaved)...\n`)
  const startups = await startupPairs()

  const gate = summary(gateRuns.map((r) => r.latencyMs))
  const poll = summary(pollLatencies)
  const total = summary(gateRuns.map((r) => r.totalMs))
  const startup = summary(startups.current)
  const oldStartup = COMPARE_BUNDLE ? summary(startups.compared) : null
  const size = bundleBytes(BUNDLE)
  const oldSize = COMPARE_BUNDLE ? bundleBytes(COMPARE_BUNDLE) : 0
  const pollPerMinute = 60_000 / POLL_INTERVAL_MS
  const other = COMPARE_LABEL || 'the other bundle'

  const rows: Row[] = [
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
    ],
    [
      'quiet wait, 60 s bookmarks',
      quiet60!.perMinute.toFixed(1),
      'requests/min',
      `5 s poll loop: ${pollPerMinute.toFixed(1)}`
    ],
    [
      'quiet wait, 10 s bookmarks',
      quiet10!.perMinute.toFixed(1),
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
    ],
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
      COMPARE_BUNDLE ? `${other}: ${oldSize.toLocaleString('en-US')} bytes` : ''
    ]
  ]
  const out = [
    `coder-template-gate bench: Node ${process.version}, ${cpus.length} CPU (${cpus[0]?.model.trim() ?? 'unknown'}), load ${os.loadavg()[0]!.toFixed(1)}; ${path.relative(process.cwd(), BUNDLE)} as a child process per run.`,
    '',
    ...table(rows),
    '',
    'Ratios:',
    `  promote latency, poll loop / gate (median): ${ratio(poll.median, gate.median)}`,
    `  requests per minute, poll loop / gate (60 s bookmarks): ${ratio(pollPerMinute, quiet60!.perMinute)}`
  ]
  if (oldStartup) {
    out.push(
      `  start-up, this bundle / ${other} (median): ${ratio(startup.median, oldStartup.median)}`
    )
    out.push(`  dist/ size, this bundle / ${other}: ${ratio(size, oldSize)}`)
  }
  out.push('', `Bench runtime: ${((Date.now() - benchStarted) / 1000).toFixed(0)} s.`)
  process.stdout.write(out.join('\n') + '\n')
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  }
)
