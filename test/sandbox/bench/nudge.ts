// gitops-refresh, measured: commit to test object with a sandbox sync loop that polls Git every
// 60 s (Argo CD's default is 180 s), without and with the nudge of the Application. Real time, no
// faster clock: the bundle runs as a child process against one fresh world per run, all runs side
// by side. The time is the sandbox's own: from the commit on gitops-branch to the object's creation
// in the cluster. Without the nudge it depends on where the commit falls in the poll cycle, which
// starts with the world (a few seconds before the commit), so it is close to the worst case.
import { OWNER, GITOPS_REPO, type World } from '../world.js'
import { TEMPLATE } from './config.js'
import { fail, withWorld } from './runs.js'
import { testNameFor } from '../../../src/settings/naming.js'

export const NUDGE_POLL_MS = 60_000
export const NUDGE_RUNS = Number(process.env.BENCH_NUDGE_RUNS ?? 5)

export interface NudgeFigures {
  /** Commit to test object, ms, one per run. */
  without: number[]
  with: number[]
  /** The sync-seconds outputs of the runs with the nudge. */
  syncSeconds: string[]
}

const ENGINE = { kind: 'argocd', namespace: 'argocd', application: 'coder-tests' } as const

function allowRefresh(world: World): void {
  world.kube.rbac.allow({
    apiGroups: ['argoproj.io'],
    resources: ['applications'],
    verbs: ['get', 'patch']
  })
}

async function nudgeRun(index: number, nudge: boolean): Promise<{ ms: number; sync: string }> {
  const options = { syncPollMs: NUDGE_POLL_MS, syncEngine: ENGINE }
  return withWorld(options, async (world) => {
    allowRefresh(world)
    const version = `v2.${nudge ? 1 : 0}.${index}`
    let committedAt = 0
    const stop = world.github.onCommit((commit) => {
      if (commit.repo === GITOPS_REPO && commit.owner === OWNER && commit.branch === 'main')
        committedAt ||= Date.now()
    })
    const inputs = { version, 'gitops-refresh': nudge ? 'argocd:argocd/coder-tests' : '' }
    const run = await world.run(inputs, {}, { timeoutMs: NUDGE_POLL_MS * 3 })
    stop()
    if (run.exitCode !== 0)
      fail(`nudge run ${version}`, `exit ${run.exitCode}, ${run.stdout.slice(-600)}${run.stderr}`)
    const name = testNameFor(TEMPLATE, version)
    const created = world.sync?.applied.find((a) => a.name === name && a.action === 'created')
    if (!created || !committedAt) fail(`nudge run ${version}`, 'no commit or no created test seen')
    return { ms: created.at - committedAt, sync: run.outputs['sync-seconds'] ?? '' }
  })
}

export async function measureNudge(runs = NUDGE_RUNS): Promise<NudgeFigures> {
  const indexes = Array.from({ length: runs }, (_, i) => i)
  const [without, nudged] = await Promise.all([
    Promise.all(indexes.map((i) => nudgeRun(i, false))),
    Promise.all(indexes.map((i) => nudgeRun(i, true)))
  ])
  return {
    without: without.map((r) => r.ms),
    with: nudged.map((r) => r.ms),
    syncSeconds: nudged.map((r) => r.sync)
  }
}
