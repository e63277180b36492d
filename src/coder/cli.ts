// The Coder CLI: where it comes from (coder-cli.md §4) and how `templates push` runs (§1).
import { raceAbort } from '../abort.js'
import * as core from '@actions/core'
import * as tc from '@actions/tool-cache'
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { constants as fsConstants } from 'node:fs'
import { access, chmod, rm, stat } from 'node:fs/promises'
import { isAbsolute, join, resolve } from 'node:path'
import type { CoderClient } from './client.js'

export const CLI_TOOL_NAME = 'coder'

export interface ResolveCoderCliOptions {
  /** The coder-cli input; '' or undefined downloads the deployment's own CLI. */
  configuredPath?: string
  coderUrl: string
  client: Pick<CoderClient, 'buildInfo'>
  platform?: NodeJS.Platform | string
  arch?: string
  /** Limit of the whole download, its retries included. Default 5 minutes. */
  downloadTimeoutMs?: number
  /** The action's cancel: stops waiting for the download. */
  signal?: AbortSignal
}

export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 5 * 60_000

export interface ResolvedCoderCli {
  path: string
  source: 'configured' | 'tool-cache' | 'download'
  /** The server version the cached CLI belongs to; '' for a configured path. */
  version: string
}

// coder-cli.md §4: runner mapping and the binaries a deployment serves.
const OS_BY_PLATFORM: Record<string, string> = {
  linux: 'linux',
  darwin: 'darwin',
  win32: 'windows'
}
const ARCH_BY_NODE_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'armv7' }

export function cliDownloadName(platform: string, arch: string): string {
  const os = OS_BY_PLATFORM[platform]
  const coderArch = ARCH_BY_NODE_ARCH[arch]
  if (!os || !coderArch || (os === 'windows' && coderArch === 'armv7')) {
    throw new Error(
      `Coder serves no CLI for runner platform ${platform}/${arch} (coder-cli.md §4 lists linux, darwin and windows on x64, arm64 and, for linux, arm). Set the coder-cli input to a coder binary.`
    )
  }
  return `coder-${os}-${coderArch}${os === 'windows' ? '.exe' : ''}`
}

export async function resolveCoderCli(options: ResolveCoderCliOptions): Promise<ResolvedCoderCli> {
  const platform = options.platform ?? process.platform
  const arch = options.arch ?? process.arch
  const configured = options.configuredPath?.trim() ?? ''
  if (configured !== '') {
    return { path: await checkExecutable(configured, platform), source: 'configured', version: '' }
  }

  const name = cliDownloadName(platform, arch)
  const targetFile = platform === 'win32' ? 'coder.exe' : 'coder'
  // The deployment serves a CLI of its own version, so the cache is keyed by the server version.
  const { version } = await options.client.buildInfo()
  const cacheArch = name.replace(/^coder-/, '').replace(/\.exe$/, '')
  const cachedDir = tc.find(CLI_TOOL_NAME, version, cacheArch)
  if (cachedDir) {
    const cachedPath = join(cachedDir, targetFile)
    try {
      await makeExecutable(cachedPath, platform)
      core.info(`Using the Coder CLI ${version} from the tool cache: ${cachedPath}`)
      return { path: cachedPath, source: 'tool-cache', version }
    } catch {
      core.warning(`The tool cache entry ${cachedDir} has no ${targetFile}; downloading again.`)
    }
  }

  const url = `${options.coderUrl.replace(/\/+$/, '')}/bin/${name}`
  const shownUrl = withoutCredentials(url)
  core.info(`Downloading the Coder CLI ${version} from ${shownUrl}`)
  let downloaded: string
  try {
    // coder-cli.md §4: the newest handler compresses only when asked; ask for the raw bytes.
    // @actions/tool-cache's downloadTool takes no AbortSignal and has no time limit of its own
    // (3 attempts, each unbounded), so it is raced against both.
    downloaded = await raceDownload(
      tc.downloadTool(url, undefined, undefined, { 'accept-encoding': 'identity' }),
      shownUrl,
      options.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS,
      options.signal
    )
  } catch (error) {
    if (error instanceof DownloadStopped) throw error
    const status = (error as { httpStatusCode?: number }).httpStatusCode
    throw new Error(
      status === 404
        ? `The Coder deployment serves no CLI at ${shownUrl} (HTTP 404; dev builds ship none). Set the coder-cli input to a coder binary.`
        : `Could not download the Coder CLI from ${shownUrl}: ${(error as Error).message}`,
      { cause: error }
    )
  }
  try {
    if ((await stat(downloaded)).size === 0) throw new Error(`${shownUrl} answered an empty file`)
    const dir = await tc.cacheFile(downloaded, targetFile, CLI_TOOL_NAME, version, cacheArch)
    const cliPath = join(dir, targetFile)
    await makeExecutable(cliPath, platform)
    return { path: cliPath, source: 'download', version }
  } finally {
    await rm(downloaded, { force: true })
  }
}

class DownloadStopped extends Error {}

/** The download, or an error when the time limit or the cancel comes first. */
async function raceDownload(
  download: Promise<string>,
  shownUrl: string,
  timeoutMs: number,
  signal: AbortSignal | undefined
): Promise<string> {
  const limit = AbortSignal.timeout(timeoutMs)
  const stop = signal ? AbortSignal.any([signal, limit]) : limit
  // The abandoned download runs on (tool-cache cannot stop it): drop its file when it lands.
  download.then(
    (file) => {
      if (stop.aborted) void rm(file, { force: true }).catch(() => {})
    },
    () => {}
  )
  return raceAbort(download, stop, {
    error: () =>
      new DownloadStopped(
        limit.aborted
          ? `Could not download the Coder CLI from ${shownUrl}: no complete answer within ${timeoutMs / 1000} s. ` +
              'Check that coder-url is reachable from the runner, or set the coder-cli input to a coder binary.'
          : `Cancelled while downloading the Coder CLI from ${shownUrl}.`
      )
  })
}

/** A coder-url may carry user:password; messages show it without them. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url)
    if (!parsed.username && !parsed.password) return url
    parsed.username = ''
    parsed.password = ''
    return parsed.toString()
  } catch {
    return url
  }
}

async function checkExecutable(configured: string, platform: string): Promise<string> {
  const cliPath = isAbsolute(configured) ? configured : resolve(configured)
  let info
  try {
    info = await stat(cliPath)
  } catch {
    throw new Error(`The coder-cli input points to ${cliPath}, which does not exist.`)
  }
  if (!info.isFile())
    throw new Error(`The coder-cli input points to ${cliPath}, which is not a file.`)
  if (platform !== 'win32') {
    try {
      await access(cliPath, fsConstants.X_OK)
    } catch {
      throw new Error(
        `The coder-cli input points to ${cliPath}, which is not executable (chmod +x it).`
      )
    }
  }
  return cliPath
}

async function makeExecutable(cliPath: string, platform: string): Promise<void> {
  if (platform === 'win32') {
    await access(cliPath)
    return
  }
  await chmod(cliPath, 0o755)
}

// --- coder templates push ---------------------------------------------------------------------

export interface RunTemplatesPushOptions {
  cli: string
  coderUrl: string
  token: string
  template: string
  /** Made absolute here: a relative or missing --directory invites the stdin-tar trap (§1.4). */
  directory: string
  version: string
  /** Passed as --org only when set: CLIs before ~v2.13 reject the flag (coder-cli.md §1.1). */
  organization?: string
  message?: string
  variables?: { name: string; value: string }[]
  timeoutMs: number
  /** Between SIGINT and SIGTERM, and between SIGTERM and SIGKILL. Default 10 s. */
  killGraceMs?: number
  signal?: AbortSignal
  /** Where the CLI output is shown live. Default process.stdout. */
  output?: NodeJS.WritableStream
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

export function templatesPushArgs(options: RunTemplatesPushOptions): string[] {
  // coder-cli.md §1.4 rule of thumb; `--activate=false` in one word (§1.1).
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
  for (const variable of options.variables ?? []) {
    args.push('--variable', `${variable.name}=${variable.value}`)
  }
  return args
}

// The runner's secrets stay out of the CLI (and the Terraform it may run).
const DROPPED_PREFIXES = ['INPUT_', 'ACTIONS_']
const DROPPED_PARTS = ['TOKEN', 'SECRET', 'PASSWORD', 'KUBECONFIG']
// coder-cli.md §1.1: CODER_ORGANIZATION is the --org default; the action passes --org itself, so
// a stray one would push to another organization. CODER_URL/CODER_SESSION_TOKEN are ours only.
const DROPPED_NAMES = ['GITHUB_TOKEN', 'CODER_ORGANIZATION', 'CODER_URL', 'CODER_SESSION_TOKEN']

/**
 * The CLI child's environment: the runner's minus its secrets and the Coder settings the action
 * owns, plus the Coder URL and token (secrets only in the environment: action-ecosystem.md §5.2,
 * coder-cli.md §4). PATH, HOME, proxies, SSL_CERT_*, locale and temp directories pass through.
 * No CODER_FORCE_TTY: the explicit absolute --directory already disables the stdin tar on every
 * CLI version, and forcing a TTY would not stop prompts from reading stdin (§1.4).
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
  const args = templatesPushArgs(options)
  const output = options.output ?? process.stdout
  const grace = options.killGraceMs ?? 10_000
  const env = cliEnvironment(process.env, options.coderUrl, options.token)
  const redact = (text: string): string =>
    options.token ? text.split(options.token).join('***') : text

  if (options.signal?.aborted) {
    return { exitCode: 1, stdout: '', stderr: '', timedOut: false, aborted: true, signal: null }
  }

  core.startGroup(`coder templates push ${options.template} --name ${options.version}`)
  // Template and Terraform logs must not be read as workflow commands.
  const resumeToken = randomUUID()
  output.write(`::stop-commands::${resumeToken}\n`)
  let echoing = true
  let atLineStart = true
  const echo = (text: string): void => {
    if (!echoing || text === '') return
    output.write(text)
    atLineStart = text.endsWith('\n')
  }
  // Once, and as soon as the run is cancelled or timed out: the action's own error annotations
  // that follow must be read as workflow commands again, and the CLI's late output is not shown.
  const endEcho = (): void => {
    if (!echoing) return
    echoing = false
    // The resume command counts only at the start of a line.
    output.write(`${atLineStart ? '' : '\n'}::${resumeToken}::\n`)
    core.endGroup()
  }
  try {
    return await new Promise<TemplatesPushResult>((resolvePromise) => {
      // stdin 'ignore' is /dev/null (NUL on Windows): a closed stdin, so a prompt fails with EOF
      // instead of hanging on an open pipe (§1.4).
      const child = spawn(options.cli, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
      const stdout: Buffer[] = []
      const stderr: Buffer[] = []
      let stdoutSize = 0
      let stderrSize = 0
      let timedOut = false
      let aborted = false
      const escalation: NodeJS.Timeout[] = []
      let spawnError: Error | undefined

      child.stdout.on('data', (chunk: Buffer) => {
        echo(redact(chunk.toString('utf8')))
        stdoutSize += chunk.length
        stdout.push(chunk)
        while (stdoutSize > OUTPUT_CAP && stdout.length > 1) stdoutSize -= stdout.shift()!.length
      })
      child.stderr.on('data', (chunk: Buffer) => {
        echo(redact(chunk.toString('utf8')))
        stderrSize += chunk.length
        stderr.push(chunk)
        while (stderrSize > OUTPUT_CAP && stderr.length > 1) stderrSize -= stderr.shift()!.length
      })

      // coder-cli.md §1.3: only SIGINT is trapped (it cancels the import); SIGTERM, then SIGKILL,
      // only if the CLI does not end within the grace period.
      const stop = (): void => {
        if (escalation.length > 0) return
        child.kill('SIGINT')
        escalation.push(
          setTimeout(() => child.kill('SIGTERM'), grace),
          setTimeout(() => child.kill('SIGKILL'), 2 * grace)
        )
      }
      const timer = setTimeout(() => {
        timedOut = true
        endEcho()
        output.write(`The time limit of ${options.timeoutMs} ms is over; interrupting the CLI.\n`)
        stop()
      }, options.timeoutMs)
      const onAbort = (): void => {
        aborted = true
        endEcho()
        output.write('Cancelled; interrupting the CLI.\n')
        stop()
      }
      options.signal?.addEventListener('abort', onAbort, { once: true })

      let settled = false
      const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        for (const t of escalation) clearTimeout(t)
        options.signal?.removeEventListener('abort', onAbort)
        let stderrText = redact(Buffer.concat(stderr).toString('utf8'))
        if (spawnError)
          stderrText += `error: could not start ${options.cli}: ${spawnError.message}\n`
        resolvePromise({
          exitCode: code ?? (signal ? 128 + (SIGNAL_NUMBERS[signal] ?? 0) : 1),
          stdout: redact(Buffer.concat(stdout).toString('utf8')),
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
    })
  } finally {
    endEcho()
  }
}
