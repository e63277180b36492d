// `coder templates push` (https://coder.com/docs/reference/cli/templates_push) as a child process:
// an argument array, the token only in the environment, template variables only in a 0600 file,
// stdin closed, a time limit, and SIGINT then SIGTERM on a time limit or a cancel.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import type { StepLog } from '../log/log.js'

export interface RunTemplatesPushOptions {
  cli: string
  coderUrl: string
  token: string
  template: string
  /** Made absolute: a relative or missing one invites the stdin-tar trap, coder/coder#17033. */
  directory: string
  version: string
  /** Passed as --org only when set: CLIs before ~v2.13 reject the flag (coder/coder#13674). */
  organization?: string
  message?: string
  variables?: { name: string; value: string }[]
  /** Where the variables file is written (RUNNER_TEMP). Default: the OS temp directory. */
  tempDir?: string
  timeoutMs: number
  /** Between SIGINT and SIGTERM, and between SIGTERM and SIGKILL. Default 10 s. */
  killGraceMs?: number
  signal?: AbortSignal
  /** Where the CLI output is shown live. Default process.stdout. */
  output?: NodeJS.WritableStream
  /** Holds the log group around the CLI output. */
  log: StepLog
}

export interface TemplatesPushResult {
  /** The exit code; when a signal ended the CLI, 128 + its number (like a shell). */
  exitCode: number
  stdout: string
  stderr: string
  timedOut: boolean
  aborted: boolean
  /** The signal that ended the CLI, if any. */
  signal: NodeJS.Signals | null
}

export function templatesPushArgs(
  options: Omit<RunTemplatesPushOptions, 'log'>,
  variablesFile?: string
): string[] {
  // --yes and an absolute --directory for CI; `--activate=false` as one word, not two arguments.
  const args = [
    'templates',
    'push',
    options.template,
    '--directory',
    resolve(options.directory),
    '--name',
    options.version,
    '--activate=false',
    '--yes'
  ]
  if (options.organization) args.push('--org', options.organization)
  if (options.message) args.push('--message', options.message)
  // Values may be secrets: never on the command line, where any process on the runner can read
  // them, but in a file only this user can read (the CLI's --variables-file).
  if (variablesFile) args.push('--variables-file', variablesFile)
  return args
}

// The runner's secrets stay out of the CLI (and the Terraform it may run).
const DROPPED_PREFIXES = ['INPUT_', 'ACTIONS_']
const DROPPED_PARTS = ['TOKEN', 'SECRET', 'PASSWORD', 'KUBECONFIG']
// CODER_ORGANIZATION is the --org default (templates_push docs); the action passes --org itself, so
// a stray one would push to another organization. CODER_URL/CODER_SESSION_TOKEN are ours only.
const DROPPED_NAMES = ['GITHUB_TOKEN', 'CODER_ORGANIZATION', 'CODER_URL', 'CODER_SESSION_TOKEN']

/**
 * The CLI child's environment: the runner's minus its secrets and the Coder settings the action
 * owns, plus the Coder URL and token (secrets only in the environment, as Coder's CI guide does:
 * https://coder.com/docs/admin/templates/managing-templates/change-management). PATH, HOME,
 * proxies, SSL_CERT_*, locale and temp directories pass through. No CODER_FORCE_TTY: the absolute
 * --directory already disables the stdin tar, and a TTY would not stop prompts reading stdin.
 */
export function cliEnvironment(
  parent: NodeJS.ProcessEnv,
  coderUrl: string,
  token: string
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(parent)) {
    const upper = name.toUpperCase()
    if (DROPPED_PREFIXES.some((prefix) => upper.startsWith(prefix))) continue
    if (DROPPED_PARTS.some((part) => upper.includes(part))) continue
    if (DROPPED_NAMES.includes(upper)) continue
    env[name] = value
  }
  env.CODER_URL = coderUrl
  env.CODER_SESSION_TOKEN = token
  env.CODER_NO_VERSION_WARNING = 'true'
  return env
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGINT: 2,
  SIGKILL: 9,
  SIGTERM: 15
}
const OUTPUT_CAP = 1 << 20

/**
 * Runs `coder templates push` and never throws on a non-zero exit: the caller decides.
 * Uses node:child_process directly: @actions/exec takes no AbortSignal and hides the child, so
 * it cannot send SIGINT on a time limit or a cancel.
 */
export async function runTemplatesPush(
  options: RunTemplatesPushOptions
): Promise<TemplatesPushResult> {
  const variables = options.variables ?? []
  const file = variables.length > 0 ? await writeVariablesFile(variables, options.tempDir) : null
  try {
    return await runCli(options, templatesPushArgs(options, file?.path))
  } finally {
    await file?.remove()
  }
}

/**
 * The variables as a YAML map in a fresh 0600 file. Every value is a double-quoted JSON string,
 * which YAML 1.1 and 1.2 parsers (yaml.v3 in the CLI) read back as the same text: no `on`, `0777`
 * or `1e3` surprises.
 */
async function writeVariablesFile(
  variables: { name: string; value: string }[],
  tempDir: string = process.env.RUNNER_TEMP || tmpdir()
): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tempDir, 'coder-template-gate-'))
  const path = join(dir, 'variables.yaml')
  const text = variables
    .map(({ name, value }) => `${JSON.stringify(name)}: ${JSON.stringify(value)}\n`)
    .join('')
  await writeFile(path, text, { mode: 0o600, flag: 'wx' })
  return { path, remove: () => rm(dir, { recursive: true, force: true }) }
}

async function runCli(
  options: RunTemplatesPushOptions,
  args: string[]
): Promise<TemplatesPushResult> {
  const output = options.output ?? process.stdout
  const grace = options.killGraceMs ?? 10_000
  const env = cliEnvironment(process.env, options.coderUrl, options.token)
  const redact = (text: string): string =>
    options.token ? text.split(options.token).join('***') : text

  if (options.signal?.aborted) {
    return { exitCode: 1, stdout: '', stderr: '', timedOut: false, aborted: true, signal: null }
  }

  // The group closes when the echo ends: at once on a time limit or a cancel, not when the CLI
  // has finished cancelling its import, so the action's own lines that follow stay outside it.
  let finished: Promise<TemplatesPushResult> | undefined
  await options.log.group(
    `coder templates push ${options.template} --name ${options.version}`,
    () =>
      new Promise<void>((echoEnded) => {
        const shown = startEcho(output, echoEnded)
        finished = new Promise<TemplatesPushResult>((resolvePromise) =>
          superviseCli({ options, args, env, grace, output, redact, ...shown }, (result) => {
            shown.endEcho()
            resolvePromise(result)
          })
        )
      })
  )
  return finished!
}

type Echo = { echo: (text: string) => void; endEcho: () => void }

/** The CLI output shown live, between a stop-commands marker and its resume command. */
function startEcho(output: NodeJS.WritableStream, onEnd: () => void): Echo {
  // Template and Terraform logs must not be read as workflow commands.
  const resumeToken = randomUUID()
  output.write(`::stop-commands::${resumeToken}\n`)
  let echoing = true
  let atLineStart = true
  const echo = (text: string): void => {
    if (!echoing || text === '') return
    output.write(text)
    // The runner splits lines at \r too (.NET ReadLine).
    atLineStart = /[\r\n]$/.test(text)
  }
  // Once, and as soon as the run is cancelled or timed out: the action's own error annotations
  // that follow must be read as workflow commands again, and the CLI's late output is not shown.
  const endEcho = (): void => {
    if (!echoing) return
    echoing = false
    // The resume command counts only at the start of a line.
    output.write(`${atLineStart ? '' : '\n'}::${resumeToken}::\n`)
    onEnd()
  }
  return { echo, endEcho }
}

interface CliRun {
  options: RunTemplatesPushOptions
  args: string[]
  env: NodeJS.ProcessEnv
  grace: number
  output: NodeJS.WritableStream
  redact: (text: string) => string
  echo: (text: string) => void
  endEcho: () => void
}

/** Spawns the CLI, interrupts it on the time limit or a cancel, and resolves once it ended. */
function superviseCli(run: CliRun, resolvePromise: (result: TemplatesPushResult) => void): void {
  const { options, output, redact, endEcho } = run
  // stdin 'ignore' is /dev/null (NUL on Windows): a closed stdin, so a prompt fails with EOF
  // instead of hanging on an open pipe.
  const child = spawn(options.cli, run.args, { env: run.env, stdio: ['ignore', 'pipe', 'pipe'] })
  const stdout = capture(child.stdout, run)
  const stderr = capture(child.stderr, run)
  let timedOut = false
  let aborted = false
  let spawnError: Error | undefined
  const interrupt = interrupter(child, run.grace)

  const timer = setTimeout(() => {
    timedOut = true
    endEcho()
    output.write(`The time limit of ${options.timeoutMs} ms is over; interrupting the CLI.\n`)
    interrupt.stop()
  }, options.timeoutMs)
  const onAbort = (): void => {
    aborted = true
    endEcho()
    output.write('Cancelled; interrupting the CLI.\n')
    interrupt.stop()
  }
  options.signal?.addEventListener('abort', onAbort, { once: true })

  let settled = false
  const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    interrupt.cancel()
    options.signal?.removeEventListener('abort', onAbort)
    let stderrText = redact(stderr())
    if (spawnError) stderrText += `error: could not start ${options.cli}: ${spawnError.message}\n`
    resolvePromise({
      exitCode: code ?? (signal ? 128 + (SIGNAL_NUMBERS[signal] ?? 0) : 1),
      stdout: redact(stdout()),
      stderr: stderrText,
      timedOut,
      aborted,
      signal
    })
  }
  child.on('error', (error) => {
    spawnError = error
    if (child.pid === undefined) finish(null, null) // it never started: no 'close' follows
  })
  child.on('close', finish)
}

/** Echoes a stream live and keeps its last OUTPUT_CAP bytes (at least its last chunk). */
function capture(stream: Readable, { echo, redact }: CliRun): () => string {
  const chunks: Buffer[] = []
  let size = 0
  stream.on('data', (chunk: Buffer) => {
    echo(redact(chunk.toString('utf8')))
    size += chunk.length
    chunks.push(chunk)
    while (size > OUTPUT_CAP && chunks.length > 1) size -= chunks.shift()!.length
  })
  return () => Buffer.concat(chunks).toString('utf8')
}

// The CLI traps only SIGINT, and cancels the import on it (coder/coder cli/cliui/provisionerjob.go);
// SIGTERM, then SIGKILL, only if the CLI does not end within the grace period.
function interrupter(child: ChildProcess, grace: number): { stop: () => void; cancel: () => void } {
  const escalation: NodeJS.Timeout[] = []
  const stop = (): void => {
    if (escalation.length > 0) return
    child.kill('SIGINT')
    escalation.push(
      setTimeout(() => child.kill('SIGTERM'), grace),
      setTimeout(() => child.kill('SIGKILL'), 2 * grace)
    )
  }
  const cancel = (): void => {
    for (const t of escalation) clearTimeout(t)
  }
  return { stop, cancel }
}
