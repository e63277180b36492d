// Bench runs of the real bundle and of a plain 5 s poll loop against fresh sandbox worlds; the
// helpers every bench run shares.
import { NAMESPACE, OWNER, startWorld, type World } from '../world.js'
import type { FinalStatusInfo } from '../kube/controller.js'
import type { RecordedRequest } from '../contracts.js'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import { loadKubeConfig } from '../../../src/kube/config.js'
import { postPromotion } from '../../../src/kube/promote-request.js'
import { kubeRequest } from '../../../src/kube/request.js'
import { buildTestManifest } from '../../../src/objects/manifest.js'
import { testNameFor } from '../../../src/settings/naming.js'
import { POLL_INTERVAL_MS, TEMPLATE } from './config.js'

export async function withWorld<T>(
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

export function fail(what: string, detail: string): never {
  throw new Error(`bench: ${what}: ${detail}`)
}

// ---------- 1: the real bundle, final write -> promote ----------

export interface GateRun {
  version: string
  latencyMs: number
  totalMs: number
}

export async function gateRun(index: number): Promise<GateRun> {
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

export async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * The minimal poller a gate could be instead: GET the test every 5 s with the same kubeconfig auth,
 * POST the promote when it shows Succeeded. The controller stays down for a uniform random 0-5 s
 * after the test appears, so the final write falls at a random phase of the poll.
 */
export async function pollRun(index: number): Promise<number> {
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
