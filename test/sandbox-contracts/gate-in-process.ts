// The gate's run() in this process against a sandbox world: the same requests the bundle sends,
// without building or spawning it. The environment is what the runner gives a JavaScript action
// (action-runner.ts); process.env is restored afterwards. The gate finds its directory through
// GITHUB_WORKSPACE, so the working directory stays (process.chdir fails in worker threads).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { inputEnv, parseGitHubOutput, type RunnerContext } from '../sandbox/action-runner.js'
import type { World } from '../sandbox/world.js'

export interface InProcessRun {
  exitCode: number
  outputs: Record<string, string>
  stdout: string
}

function runnerEnv(inputs: Record<string, string>, context: RunnerContext): Record<string, string> {
  const temp = mkdtempSync(path.join(tmpdir(), 'gate-contract-'))
  const files = { output: 'output.txt', summary: 'summary.md', event: 'event.json' }
  for (const name of Object.values(files)) writeFileSync(path.join(temp, name), '')
  writeFileSync(path.join(temp, files.event), JSON.stringify(context.payload ?? {}))
  for (const dir of ['runner-temp', 'tool-cache']) mkdirSync(path.join(temp, dir))
  return {
    HOME: temp,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: context.eventName,
    GITHUB_EVENT_PATH: path.join(temp, files.event),
    GITHUB_REF: context.ref,
    GITHUB_SHA: context.sha,
    GITHUB_REPOSITORY: context.repository,
    GITHUB_SERVER_URL: context.serverUrl ?? 'https://github.example',
    GITHUB_API_URL: context.apiUrl,
    GITHUB_RUN_ID: context.runId ?? '4242',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKSPACE: context.workspace,
    GITHUB_OUTPUT: path.join(temp, files.output),
    GITHUB_STEP_SUMMARY: path.join(temp, files.summary),
    RUNNER_TEMP: path.join(temp, 'runner-temp'),
    RUNNER_TOOL_CACHE: path.join(temp, 'tool-cache'),
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    ...inputEnv(inputs)
  }
}

export async function runGateInProcess(
  world: World,
  overrides: Record<string, string> = {},
  context: Partial<RunnerContext> = {}
): Promise<InProcessRun> {
  const env = runnerEnv(world.inputs(overrides), world.context(context))
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
    const { run } = await import('../../src/main.js')
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
