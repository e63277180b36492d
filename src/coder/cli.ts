// The Coder CLI: where it comes from (coder/coder site/bin.go). How `templates push` runs: templates-push.ts.
import { raceAbort } from '../timing/abort.js'
import * as tc from '@actions/tool-cache'
import { constants as fsConstants } from 'node:fs'
import { access, chmod, rm, stat } from 'node:fs/promises'
import { isAbsolute, join, resolve } from 'node:path'
import type { StepLog } from '../log/log.js'
import { serverVersionProblem } from './server-version.js'
import type { CoderClient } from './client.js'

const CLI_TOOL_NAME = 'coder'

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
  log: StepLog
}

const DEFAULT_DOWNLOAD_TIMEOUT_MS = 5 * 60_000

export interface ResolvedCoderCli {
  path: string
  source: 'configured' | 'tool-cache' | 'download'
  /** The server version the cached CLI belongs to; '' for a configured path. */
  version: string
}

// Runner platform to the binaries a deployment serves (OS_ARCHES in coder/coder's Makefile).
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
      `Coder serves no CLI for runner platform ${platform}/${arch} (it serves linux, darwin and windows on x64 and arm64, and linux on arm). Set the coder-cli input to a coder binary.`
    )
  }
  return `coder-${os}-${coderArch}${os === 'windows' ? '.exe' : ''}`
}

/** This version's CLI from the tool cache; null when absent or unusable (then it is downloaded). */
async function fromToolCache(
  version: string,
  cacheArch: string,
  targetFile: string,
  platform: string,
  log: StepLog
): Promise<ResolvedCoderCli | null> {
  const cachedDir = tc.find(CLI_TOOL_NAME, version, cacheArch)
  if (!cachedDir) return null
  const cachedPath = join(cachedDir, targetFile)
  try {
    await makeExecutable(cachedPath, platform)
    log.info(`Using the Coder CLI ${version} from the tool cache: ${cachedPath}`)
    return { path: cachedPath, source: 'tool-cache', version }
  } catch {
    log.warning(`The tool cache entry ${cachedDir} has no ${targetFile}; downloading again.`)
    return null
  }
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
  // The version becomes a directory of the tool cache: never a path of the server's choosing,
  // whoever answers buildInfo (CoderClient checks it too).
  const problem = serverVersionProblem(version)
  if (problem) {
    const at = withoutCredentials(options.coderUrl)
    throw new Error(`Coder at ${at} answered /api/v2/buildinfo, but ${problem}`)
  }
  const cacheArch = name.replace(/^coder-/, '').replace(/\.exe$/, '')
  const cached = await fromToolCache(version, cacheArch, targetFile, platform, options.log)
  if (cached) return cached

  const url = `${options.coderUrl.replace(/\/+$/, '')}/bin/${name}`
  const shownUrl = withoutCredentials(url)
  options.log.info(`Downloading the Coder CLI ${version} from ${shownUrl}`)
  let downloaded: string
  try {
    // site/bin.go compresses only when Accept-Encoding asks for it; ask for the raw bytes.
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

export * from './templates-push.js'
