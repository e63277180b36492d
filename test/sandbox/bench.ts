// `npm run bench`: figures of the real bundle (`node dist/index.js`) against the sandbox world.
// Prints one markdown report: final-status-to-promote latency of the gate vs a plain 5 s poll loop,
// API requests per minute of a quiet wait, start-up time, and the size of dist/. A benchmark, not a
// test: nothing here asserts speed; it fails only when a run does not do what it must (then the
// figures would be meaningless). Fresh worlds per run, so each world's first promote is that run's.
import { readdirSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { NAMESPACE, OWNER, startWorld, type World } from './world.js'
import { REPO_ROOT } from './action-runner.js'
import type { FinalStatusInfo } from './kube/controller.js'
import type { RecordedRequest } from './contracts.js'
import type { CoderTemplateTest } from '../../src/api.js'
import { loadKubeConfig } from '../../src/kube/config.js'
import { postPromotion } from '../../src/kube/promote.js'
import { kubeRequest } from '../../src/kube/request.js'
import { buildTestManifest } from '../../src/manifest.js'
import { testNameFor } from '../../src/naming.js'

const TEMPLATE = 'docker'
const GATE_RUNS = Number(process.env.BENCH_GATE_RUNS ?? 20)
const POLL_RUNS = Number(process.env.BENCH_POLL_RUNS ?? 10)
const POLL_INTERVAL_MS = 5000
/** wait-timeout-seconds of the quiet runs: the wait window measured. */
const QUIET_WAIT_SECONDS = Number(process.env.BENCH_QUIET_SECONDS ?? 95)
/** client-node 2.0.1 Watch inactivity timeout (action-ecosystem.md §6.4). */
const CLIENT_NODE_INACTIVITY_SECONDS = 30

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
const ms = (value: number): string => `${Math.round(value)} ms`

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

// ---------- 1 + 4: the real bundle, final write -> promote, spawn -> first request ----------

interface GateRun {
  version: string
  latencyMs: number
  startupMs: number
  totalMs: number
}

async function gateRun(index: number): Promise<GateRun> {
  return withWorld({}, async (world) => {
    const version = `v1.0.${index}`
    const testName = testNameFor(TEMPLATE, version)
    const finalWrite = finalWriteOf(world, testName)
    let spawnedAt = 0
    const run = await world.run(
      { version },
      {},
      {
        onStart: () => (spawnedAt = Date.now()),
        timeoutMs: 60_000
      }
    )
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
    const firstRequestAt = Math.min(
      ...[world.coder.requests, world.kube.requests, world.github.requests]
        .map((list) => list[0]?.at)
        .filter((at): at is number => at !== undefined)
    )
    return {
      version,
      latencyMs: promoteAt - final.at,
      startupMs: firstRequestAt - spawnedAt,
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

// ---------- 5: dist/ ----------

function distFiles(): { file: string; bytes: number }[] {
  const dist = path.join(REPO_ROOT, 'dist')
  return readdirSync(dist)
    .filter((file) => statSync(path.join(dist, file)).isFile())
    .sort()
    .map((file) => ({ file, bytes: statSync(path.join(dist, file)).size }))
}

// ---------- report ----------

async function main(): Promise<void> {
  const benchStarted = Date.now()
  const cpus = os.cpus()
  const out: string[] = []
  const line = (text = ''): void => {
    out.push(text)
  }
  process.stderr.write(`bench: ${GATE_RUNS} gate runs...\n`)
  const gateRuns: GateRun[] = []
  for (let i = 0; i < GATE_RUNS; i++) gateRuns.push(await gateRun(i))

  process.stderr.write(`bench: ${POLL_RUNS} poll-loop runs (in parallel, one world each)...\n`)
  const pollLatencies = await Promise.all(Array.from({ length: POLL_RUNS }, (_, i) => pollRun(i)))

  process.stderr.write(`bench: two quiet waits of ${QUIET_WAIT_SECONDS} s (in parallel)...\n`)
  const quiet = await Promise.all([quietRun(60), quietRun(10)])

  const gate = summary(gateRuns.map((r) => r.latencyMs))
  const poll = summary(pollLatencies)
  const startup = summary(gateRuns.map((r) => r.startupMs))
  const total = summary(gateRuns.map((r) => r.totalMs))

  line('# coder-template-gate bench')
  line()
  line(
    `Machine: Node ${process.version}, ${cpus.length} CPU (${cpus[0]?.model.trim() ?? 'unknown'}), ${os.platform()}/${os.arch()}; bundle: dist/index.js run as a child process per run.`
  )
  line()
  line('## 1-2. Final status write -> promote request')
  line()
  line('| Waiter | runs | median | p95 | min | max |')
  line('|---|---:|---:|---:|---:|---:|')
  line(
    `| gate (watch), real bundle | ${gate.n} | ${ms(gate.median)} | ${ms(gate.p95)} | ${ms(gate.min)} | ${ms(gate.max)} |`
  )
  line(
    `| plain ${POLL_INTERVAL_MS / 1000} s poll loop (GET, then POST promote) | ${poll.n} | ${ms(poll.median)} | ${ms(poll.p95)} | ${ms(poll.min)} | ${ms(poll.max)} |`
  )
  line()
  line(
    `Median ratio poll / gate: **${(poll.median / gate.median).toFixed(1)}x**. From the controller's final status write (onFinal) to the arrival of the promote POST at the sandbox API server; each run has its own world, and the promote is checked to carry the version ID of that final write. The gate's figure includes its Coder read of the active version before the promote; the poll loop does only GET and POST. Whole gate run (spawn to exit): median ${ms(total.median)}, p95 ${ms(total.p95)}.`
  )
  line()
  line(`## 3. Requests to the API server per minute of waiting (test never final)`)
  line()
  line(
    '| Bookmarks every | wait window | GET | LIST | watch | other | total | requests/min | after the first watch: requests / s / per min |'
  )
  line('|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const q of quiet)
    line(
      `| ${q.bookmarkSeconds} s | ${q.windowSeconds.toFixed(1)} s | ${q.gets} | ${q.lists} | ${q.watches} | ${q.other} | ${q.total} | ${q.perMinute.toFixed(1)} | ${q.steadyRequests} / ${q.steadySeconds.toFixed(1)} s / ${q.steadyPerMinute.toFixed(1)} |`
    )
  line(`| (5 s poll loop, for comparison) | 60 s | 12 | 0 | 0 | 0 | 12 | 12.0 | 12.0 |`)
  line()
  line(
    `Window: from the bundle's first request for the test to its exit after wait-timeout-seconds=${QUIET_WAIT_SECONDS}; discovery and promote excluded. client-node 2.0.1 ends a watch that receives nothing for ${CLIENT_NODE_INACTIVITY_SECONDS} s, and the gate then re-reads (GET) and re-watches; a BOOKMARK sooner than that keeps the watch alive (until its timeoutSeconds=300).`
  )
  line()
  line('## 4. Start-up: spawn of dist/index.js -> first request to any sandbox server')
  line()
  line('| runs | median | p95 | min | max |')
  line('|---:|---:|---:|---:|---:|')
  line(
    `| ${startup.n} | ${ms(startup.median)} | ${ms(startup.p95)} | ${ms(startup.min)} | ${ms(startup.max)} |`
  )
  line()
  line('(Measured on the gate runs of section 1; the servers stamp a request when they answer it.)')
  line()
  line('## 5. Size of dist/')
  line()
  line('| File | bytes |')
  line('|---|---:|')
  const files = distFiles()
  for (const f of files) line(`| ${f.file} | ${f.bytes.toLocaleString('en-US')} |`)
  line(`| **total** | **${files.reduce((sum, f) => sum + f.bytes, 0).toLocaleString('en-US')}** |`)
  line()
  line(`Bench runtime: ${((Date.now() - benchStarted) / 1000).toFixed(0)} s.`)
  process.stdout.write(out.join('\n') + '\n')
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  }
)
