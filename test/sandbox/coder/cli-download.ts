// The /bin/ CLI download serving the fake `coder` executable, baked with the
// server's version and URL, and the fake-only route where that CLI reports its runs.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { fileURLToPath } from 'node:url'
import { readBody } from './body.js'
import { HttpError } from './records.js'
import type { CliInvocation } from './types.js'

export const FAKE_CODER_PATH = fileURLToPath(new URL('./fake-coder.mjs', import.meta.url))
// The script's modules: the served copy runs outside this repository, so it imports them by URL.
const FAKE_CODER_MODULES = new URL('./fake-coder/', import.meta.url).href

// OS_ARCHES of coder/coder's Makefile
export const SERVED_CLI_PLATFORMS = [
  'linux-amd64',
  'linux-arm64',
  'linux-armv7',
  'darwin-amd64',
  'darwin-arm64',
  'windows-amd64',
  'windows-arm64'
]

export interface BakedCli {
  bytes: Buffer
  etag: string
}

// The deployment serves a CLI of its own version; it is baked once the server
// listens, since the copy also carries the sandbox's URL for its reports.
export function bakeCli(serverVersion: string, url: string): BakedCli {
  const cliTemplate = readFileSync(FAKE_CODER_PATH, 'utf8')
  const bytes = Buffer.from(
    cliTemplate
      .replace(
        "const BUILT_IN_VERSION = 'v0.0.0-devel'",
        () => `const BUILT_IN_VERSION = ${JSON.stringify(serverVersion)}`
      )
      .replace("const SANDBOX_URL = ''", () => `const SANDBOX_URL = ${JSON.stringify(url)}`)
      .replaceAll("from './fake-coder/", () => `from '${FAKE_CODER_MODULES}`)
  )
  return { bytes, etag: `"${createHash('sha1').update(bytes).digest('hex')}"` }
}

const BIN_PATH = /^\/bin\/coder[-_]([a-z]+)[-_]([a-z0-9]+)(\.exe)?$/

/** Serves GET /bin/coder-<os>-<arch>[.exe]; false when the path is not a download. */
export function serveCli(
  path: string,
  res: ServerResponse,
  cli: BakedCli,
  platforms: string[]
): boolean {
  const m = path.match(BIN_PATH)
  if (!m) return false
  const platform = `${m[1]}-${m[2]}`
  const exeMatches = (m[1] === 'windows') === (m[3] === '.exe')
  if (!platforms.includes(platform) || !exeMatches) {
    throw new HttpError(404, 'Not found') // guess: the body of the /bin/ 404
  }
  res.writeHead(200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': cli.bytes.length,
    ETag: cli.etag,
    'X-Original-Content-Length': String(cli.bytes.length)
  })
  res.end(cli.bytes)
  return true
}

/** Fake-only: the fake CLI reports its runs here (not a Coder route, not in `requests`). */
export async function handleCliReport(
  req: IncomingMessage,
  res: ServerResponse,
  cliInvocations: CliInvocation[]
): Promise<void> {
  try {
    const report = JSON.parse((await readBody(req, 1 << 20)).toString('utf8')) as Omit<
      CliInvocation,
      'at'
    >
    const existing = cliInvocations.find((i) => i.id === report.id)
    if (existing) Object.assign(existing, report)
    else cliInvocations.push({ ...report, at: Date.now() })
    res.writeHead(204).end()
  } catch {
    res.writeHead(400).end()
  }
}
