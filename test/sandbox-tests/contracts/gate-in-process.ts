// The gate's run() in this process against a sandbox world: the same requests the bundle sends,
// without building or spawning it. The environment is what the runner gives a JavaScript action
// (action-runner.ts); process.env is restored afterwards. The gate finds its directory through
// GITHUB_WORKSPACE, so the working directory stays (process.chdir fails in worker threads).
import { readFileSync } from 'node:fs'
import {
  parseGitHubOutput,
  runnerEnv,
  runnerFiles,
  type RunnerContext
} from '../../sandbox/action-runner.js'
import type { World } from '../../sandbox/world.js'

export interface InProcessRun {
  exitCode: number
  outputs: Record<string, string>
  stdout: string
}

export async function runGateInProcess(
  world: World,
  overrides: Record<string, string> = {},
  context: Partial<RunnerContext> = {}
): Promise<InProcessRun> {
  const runner = world.context(context)
  const env = runnerEnv(runner, runnerFiles(runner), world.inputs(overrides), undefined)
  const saved = { ...process.env }
  const write = process.stdout.write.bind(process.stdout)
  let stdout = ''
  for (const name of Object.keys(process.env)) {
    if (/^(INPUT_|GITHUB_|RUNNER_|KUBECONFIG$)/.test(name)) delete process.env[name]
  }
  Object.assign(process.env, env)
  // The workflow commands and log lines of the run are kept, not printed among the test output.
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += chunk.toString()
    return true
  }) as typeof process.stdout.write
  try {
    const { run } = await import('../../../src/main.js')
    await run(new AbortController().signal, process.env)
    return {
      exitCode: Number(process.exitCode ?? 0),
      outputs: parseGitHubOutput(readFileSync(env.GITHUB_OUTPUT, 'utf8')),
      stdout
    }
  } finally {
    process.stdout.write = write
    process.exitCode = undefined
    for (const name of Object.keys(process.env)) delete process.env[name]
    Object.assign(process.env, saved)
  }
}
