// Runs the real bundle, `node dist/index.js`, as a child process with the environment the GitHub
// runner gives a JavaScript action: INPUT_* (names upper-cased, hyphens kept), GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY, GITHUB_EVENT_PATH, RUNNER_TEMP, RUNNER_TOOL_CACHE and the rest.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import YAML from 'yaml'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
// GATE_BUNDLE lets a developer run the scenarios on a bundle built elsewhere (CI uses dist/).
export const BUNDLE = process.env.GATE_BUNDLE ?? path.join(REPO_ROOT, 'dist/index.js')

export interface RunnerContext {
  eventName: string
  ref: string
  sha: string
  repository: string
  serverUrl?: string
  apiUrl: string
  runId?: string
  workspace: string
  /** The webhook payload written to GITHUB_EVENT_PATH. */
  payload?: Record<string, unknown>
  /** A shared tool cache, to see the CLI download cached across runs. */
  toolCache?: string
}

export interface ActionRun {
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  /** Every place a secret could leak to, joined. */
  everything: string
  durationMs: number
}

export interface RunOptions {
  /** Called once with the child, e.g. to send SIGINT at the right moment. */
  onStart?: (child: import('node:child_process').ChildProcess) => void
  /** Resolves when this text shows on stdout (checked as output arrives). */
  onStdout?: (text: string, child: import('node:child_process').ChildProcess) => void
  extraEnv?: Record<string, string>
  timeoutMs?: number
}

/**
 * The defaults of action.yml that the runner fills in for inputs a workflow does not set. An
 * expression default (`${{ github.token }}`) is the world's to give.
 */
export function actionDefaults(): Record<string, string> {
  const action = YAML.parse(readFileSync(path.join(REPO_ROOT, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string }>
  }
  return Object.fromEntries(
    Object.entries(action.inputs)
      .filter(([, input]) => typeof input.default === 'string' && !input.default.includes('${{'))
      .map(([name, input]) => [name, input.default!])
  )
}

export function inputEnv(inputs: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries({ ...actionDefaults(), ...inputs }).map(([name, value]) => [
      `INPUT_${name.replace(/ /g, '_').toUpperCase()}`,
      value
    ])
  )
}

export interface RunnerFiles {
  temp: string
  outputFile: string
  summaryFile: string
  eventFile: string
  runnerTemp: string
  toolCache: string
}

/** A fresh temp directory with the files a runner gives a step. */
export function runnerFiles(context: RunnerContext): RunnerFiles {
  const temp = mkdtempSync(path.join(tmpdir(), 'gate-run-'))
  const outputFile = path.join(temp, 'output.txt')
  const summaryFile = path.join(temp, 'summary.md')
  const eventFile = path.join(temp, 'event.json')
  const runnerTemp = path.join(temp, 'runner-temp')
  const toolCache = context.toolCache ?? path.join(temp, 'tool-cache')
  mkdirSync(runnerTemp, { recursive: true })
  mkdirSync(toolCache, { recursive: true })
  writeFileSync(outputFile, '')
  writeFileSync(summaryFile, '')
  writeFileSync(eventFile, JSON.stringify(context.payload ?? {}))
  return { temp, outputFile, summaryFile, eventFile, runnerTemp, toolCache }
}

/** Only what a runner would pass: no inherited KUBECONFIG, HOME kube config or tokens. */
export function runnerEnv(
  context: RunnerContext,
  files: RunnerFiles,
  inputs: Record<string, string>,
  extraEnv: RunOptions['extraEnv']
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: files.temp,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: context.eventName,
    GITHUB_EVENT_PATH: files.eventFile,
    GITHUB_REF: context.ref,
    GITHUB_SHA: context.sha,
    GITHUB_REPOSITORY: context.repository,
    GITHUB_SERVER_URL: context.serverUrl ?? 'https://github.example',
    GITHUB_API_URL: context.apiUrl,
    GITHUB_RUN_ID: context.runId ?? '4242',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKSPACE: context.workspace,
    GITHUB_OUTPUT: files.outputFile,
    GITHUB_STEP_SUMMARY: files.summaryFile,
    RUNNER_TEMP: files.runnerTemp,
    RUNNER_TOOL_CACHE: files.toolCache,
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    ...inputEnv(inputs),
    ...extraEnv
  }
}

export async function runAction(
  inputs: Record<string, string>,
  context: RunnerContext,
  options: RunOptions = {}
): Promise<ActionRun> {
  const files = runnerFiles(context)
  const { outputFile, summaryFile } = files
  const env = runnerEnv(context, files, inputs, options.extraEnv)

  const started = Date.now()
  const child = spawn(process.execPath, [BUNDLE], {
    cwd: context.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  options.onStart?.(child)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    options.onStdout?.(stdout, child)
  })
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000)
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (code, sig) => resolve([code, sig]))
  )
  clearTimeout(timer)
  const outputs = parseGitHubOutput(readFileSync(outputFile, 'utf8'))
  const summary = readFileSync(summaryFile, 'utf8')
  return {
    exitCode,
    signal,
    stdout,
    stderr,
    outputs,
    summary,
    everything: [stdout, stderr, summary, JSON.stringify(outputs)].join('\n'),
    durationMs: Date.now() - started
  }
}

/** The file format of GITHUB_OUTPUT: `name<<DELIMITER\nvalue\nDELIMITER` (or name=value). */
export function parseGitHubOutput(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const [, name, delimiter] = heredoc as unknown as [string, string, string]
      const value: string[] = []
      while (++i < lines.length && lines[i] !== delimiter) value.push(lines[i] as string)
      outputs[name] = value.join('\n')
    } else if (line.includes('=')) {
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1)
    }
  }
  return outputs
}
