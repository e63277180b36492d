// npm run demo [-- --fail]: the whole gate on the embedded sandbox world. Runs the real bundle
// (dist/index.js) once for a version that passes its test and is promoted, and with --fail once more
// for a version whose test fails and is not promoted. Prints what each system saw, the action's
// log and the rendered job summary. Exits 0 when every run ended as it should.
import type { ActionRun } from './action-runner.js'
import { summaryAsText } from './summary-text.js'
import { GITOPS_REPO, OWNER, startWorld, type World } from './world.js'

interface Moment {
  at: number
  who: string
  what: string
}

function watchWorld(world: World): Moment[] {
  const moments: Moment[] = []
  const add = (who: string, what: string): void => void moments.push({ at: Date.now(), who, what })
  world.github.onCommit((commit) => {
    const files = [...commit.changes.keys()].join(', ')
    add(
      'GitHub',
      `commit ${commit.sha.slice(0, 7)} to ${commit.owner}/${commit.repo}@${commit.branch}: ${files}`
    )
  })
  const seen = new Map<string, string>()
  world.kube.store.subscribe((event) => {
    const test = event.object
    const key = `${test.metadata.namespace}/${test.metadata.name}`
    if (event.type === 'ADDED')
      add('Kubernetes', `CoderTemplateTest ${key} created by the GitOps sync`)
    const status = test.status ?? {}
    const state = status.phase ? `${status.phase} / ${status.reason ?? ''}` : ''
    if (state && seen.get(key) !== state) {
      seen.set(key, state)
      add(
        'controller',
        `${key}: ${state}${status.phase === 'Succeeded' || status.phase === 'Failed' ? ` (${status.message ?? ''})` : ''}`
      )
    }
  })
  world.kube.events.on('request', (request: { method: string; path: string; status: number }) => {
    if (request.path.includes('/promote'))
      add('aggregated API', `${request.method} ${request.path} -> ${request.status}`)
  })
  return moments
}

/** The action's log as a person reads it in the Actions UI: no masks, groups as headings. */
function logAsText(stdout: string): string {
  return stdout
    .split('\n')
    .filter(
      (line) =>
        !line.startsWith('::add-mask::') &&
        !/^::(stop-commands::|[0-9a-f-]{36}::)/.test(line) &&
        !line.startsWith('::set-output')
    )
    .map((line) =>
      line
        .replace(/^::group::/, '▸ ')
        .replace(/^::endgroup::$/, '')
        .replace(/^::(notice|warning|error)[^:]*::/, (_, kind: string) => `${kind.toUpperCase()}: `)
    )
    .filter((line) => line !== '')
    .join('\n')
}

async function demo(
  title: string,
  world: World,
  version: string,
  expectSuccess: boolean
): Promise<boolean> {
  console.log(`\n${'='.repeat(100)}\n${title}\n${'='.repeat(100)}`)
  const moments = watchWorld(world)
  const started = Date.now()
  const run: ActionRun = await world.run({ version })
  const at = (t: number): string => `+${((t - started) / 1000).toFixed(2)} s`.padStart(9)
  console.log('\nWhat the world saw:')
  for (const m of moments) console.log(`${at(m.at)}  ${m.who.padEnd(15)} ${m.what}`)
  console.log(`${at(started + run.durationMs)}  ${'action'.padEnd(15)} exited ${run.exitCode}`)
  console.log('\nThe action log:\n')
  console.log(logAsText(run.stdout))
  console.log('\nThe job summary:\n')
  console.log(summaryAsText(run.summary))
  console.log('\nOutputs:')
  for (const [name, value] of Object.entries(run.outputs))
    console.log(`  ${name.padEnd(28)} ${value}`)
  const active = world.coder.backend.findTemplate(OWNER, 'docker')
  const activeName = active ? world.coder.backend.findVersionById(active.activeVersionId)?.name : ''
  const ok = expectSuccess
    ? run.exitCode === 0 && activeName === version
    : run.exitCode === 1 && activeName !== version
  console.log(
    `\nActive version in Coder: ${activeName}. ${ok ? 'As expected.' : 'NOT as expected.'}`
  )
  return ok
}

const withFailure = process.argv.includes('--fail')
const world = await startWorld()
let ok: boolean
try {
  world.coder.seedTemplate({ name: 'docker', versionName: 'v1.0.0' })
  world.kube.controller!.script('default', { stepDelayMs: 150 })
  world.kube.controller!.script('docker-v1-1-0-rc1', {
    stepDelayMs: 150,
    failAt: {
      step: 'WaitingForAgents',
      reason: 'AgentStartError',
      message: 'The startup script of agent main exited with code 1.'
    }
  })
  console.log(
    `Sandbox: Coder ${world.coder.url}, Kubernetes ${world.kube.url}, GitHub ${world.github.url} (${OWNER}/${GITOPS_REPO})`
  )
  ok = await demo('1. Version v1.1.0 passes its test and is promoted', world, 'v1.1.0', true)
  if (withFailure) {
    ok =
      (await demo(
        '2. Version V1.1.0_rc1 fails its test and is not promoted',
        world,
        'V1.1.0_rc1',
        false
      )) && ok
  } else {
    console.log('\nRun `npm run demo -- --fail` to also see a version that fails its test.')
  }
} finally {
  await world.close()
}
process.exit(ok ? 0 : 1)
