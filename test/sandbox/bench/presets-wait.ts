// test-presets: the wait's API requests with 5 tests against 1 test. The gate's own waits, in
// process, against the kube sandbox: for 1 test waitForTest (what a run without presets, or with one
// preset, uses), for 5 waitForTests (one list and one watch for the set). Two scenarios each:
// - to final: the tests appear 100 ms after the wait starts (as Argo CD or Flux creates them) and
//   the sandbox controller runs them to Succeeded;
// - quiet, scaled: no controller, the tests never end; the wait runs `minutes` scaled minutes with
//   every time constant divided by `scale` (as quiet-wait.ts), the steady state of a long test.
// Requests are counted by the server: every GET, LIST and WATCH of codertemplatetests.
import { startCoderSandbox } from '../coder/index.js'
import { startKubeSandbox, type KubeSandbox } from '../kube/index.js'
import { loadKubeConfig } from '../../../src/kube/config.js'
import { newWaitStats, waitForTest } from '../../../src/kube/wait.js'
import { waitForTests } from '../../../src/kube/wait-tests.js'
import { DEFAULT_WATCH_TIMEOUT_SECONDS, inactivityLimitMs } from '../../../src/kube/watch-stream.js'
import { buildTestManifest } from '../../../src/objects/manifest.js'
import { verdictOf } from '../../../src/verdict/verdict.js'

const NAMESPACE = 'coder-tests'

export interface PresetWait {
  tests: number
  scenario: 'to final' | 'quiet, scaled'
  requests: number
  watches: number
  ms: number
}

function manifest(name: string) {
  return buildTestManifest({
    testName: name,
    namespace: NAMESPACE,
    controlPlane: 'coder',
    organization: 'acme',
    template: 'docker',
    version: 'v1',
    parameters: [],
    timeoutSeconds: 900
  })
}

const testRequests = (kube: KubeSandbox): number =>
  kube.requests.filter((r) => r.path.includes('/codertemplatetests')).length

export async function measurePresetWait(
  tests: number,
  scenario: PresetWait['scenario'],
  quiet = { minutes: 5, scale: 30 }
): Promise<PresetWait> {
  const coder = await startCoderSandbox({ defaultOrganization: 'acme' })
  coder.seedTemplate({ name: 'docker', versionName: 'v1' })
  const toFinal = scenario === 'to final'
  const secondMs = toFinal ? 1000 : 1000 / quiet.scale
  const scale = toFinal ? 1 : quiet.scale
  const kube = await startKubeSandbox({
    coder: coder.backend,
    controller: toFinal ? { stepDelayMs: 100 } : false,
    bookmarkIntervalMs: 60 * secondMs,
    watchSecondMs: secondMs
  })
  try {
    const names = Array.from({ length: tests }, (_, i) => `docker-v1-preset-${i + 1}`)
    const { kc } = loadKubeConfig({ kubeconfig: kube.kubeconfig(), context: '' })
    const started = Date.now()
    const waitMs = toFinal ? 60_000 : quiet.minutes * 60 * secondMs
    const stats = newWaitStats()
    const common = {
      kc,
      namespace: NAMESPACE,
      signal: new AbortController().signal,
      isFinal: toFinal
        ? (t: Parameters<typeof verdictOf>[0]) => verdictOf(t).state !== 'waiting'
        : () => false,
      syncDeadline: started + waitMs,
      waitTimeoutMs: waitMs,
      watchTimeoutSeconds: DEFAULT_WATCH_TIMEOUT_SECONDS,
      watchInactivityMs: inactivityLimitMs(DEFAULT_WATCH_TIMEOUT_SECONDS) / scale,
      minHealthyWatchMs: 1000 / scale,
      backoff: { initialMs: 500 / scale, maxMs: 10_000 / scale },
      stats
    }
    setTimeout(() => {
      for (const name of names) kube.store.create(NAMESPACE, manifest(name))
    }, 100)
    await waitFor(tests, names, toFinal, common)
    return {
      tests,
      scenario,
      requests: testRequests(kube),
      watches: stats.watches,
      ms: Date.now() - started
    }
  } finally {
    await Promise.all([kube.close(), coder.close()])
  }
}

type Common = Omit<Parameters<typeof waitForTest>[0], 'name' | 'onObserved'>

/** The gate's wait for one test, or for the set; the quiet wait ends at its deadline, as it must. */
async function waitFor(tests: number, names: string[], toFinal: boolean, common: Common) {
  const waiting =
    tests === 1
      ? waitForTest({ ...common, name: names[0]! }).then(() => undefined)
      : waitForTests({ ...common, names }).then((outcomes) => {
          if (toFinal && outcomes.some((o) => o.ending !== 'final'))
            throw new Error('bench: a preset test did not end')
        })
  await waiting.catch((error: unknown) => {
    if (toFinal) throw error
  })
}

/** The four measurements, one after another (they share no server). */
export async function presetWaitFigures(): Promise<PresetWait[]> {
  const figures: PresetWait[] = []
  for (const scenario of ['to final', 'quiet, scaled'] as const)
    for (const tests of [1, 5]) figures.push(await measurePresetWait(tests, scenario))
  return figures
}

/** Rows for the bench table: requests of 5 tests against 1 test (goal: at most 1.5x). */
export function presetWaitRows(figures: PresetWait[]): [string, string, string, string][] {
  return (['to final', 'quiet, scaled'] as const).flatMap((scenario) => {
    const one = figures.find((f) => f.scenario === scenario && f.tests === 1)
    const five = figures.find((f) => f.scenario === scenario && f.tests === 5)
    if (!one || !five) return []
    const note = scenario === 'quiet, scaled' ? ', 5 min at 30x' : ''
    return [
      [
        `preset wait (${scenario}), 5 tests`,
        String(five.requests),
        'requests',
        `1 test: ${one.requests} (${(five.requests / one.requests).toFixed(2)}x, goal <= 1.5x${note})`
      ]
    ]
  })
}
