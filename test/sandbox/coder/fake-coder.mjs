#!/usr/bin/env node
// Fake `coder` CLI for the sandbox: `coder templates push` and `coder version`, speaking the real
// REST API in the real order. Plain ESM so the sandbox can serve it at /bin/.
// Fake-only switches: FAKE_CODER_ARGV_LOG (append argv as one JSON line per run; never the env).
// Fake-only reporting: every run reports its argv, the template variables it sent and its exit
// code to the sandbox (POST <sandbox>/__sandbox/cli-invocations, outside Coder's API), so tests can
// assert on them; the environment (the token) is never reported.
/* global fetch, AbortSignal */
import { randomUUID } from 'node:crypto'
import { appendFileSync } from 'node:fs'
import { URL } from 'node:url'
// The sandbox rewrites `./fake-coder/` in these lines to the folder's absolute file URL when it
// serves this file alone at /bin/ (cli-download.ts); run from the repository they stay relative.
import { Canceled, CliError, err, out, run } from './fake-coder/common.mjs'
import { templatesPush } from './fake-coder/push.mjs'

// The sandbox rewrites these lines when it serves the file: the CLI gets the server's version and
// the sandbox's URL for reports.
const BUILT_IN_VERSION = 'v0.0.0-devel'
const SANDBOX_URL = ''

const argv = process.argv.slice(2)
if (process.env.FAKE_CODER_ARGV_LOG) {
  appendFileSync(process.env.FAKE_CODER_ARGV_LOG, JSON.stringify(argv) + '\n')
}

// --- reports to the sandbox (fake-only) ------------------------------------------------------

const invocation = {
  id: randomUUID(),
  argv,
  variables: null,
  variablesFile: null,
  exitCode: null,
  error: null
}

/** The sandbox to report to: the baked URL, else --url / CODER_URL (no report without one). */
function reportUrl() {
  if (SANDBOX_URL) return SANDBOX_URL
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--url' && argv[i + 1]) return argv[i + 1]
    if (argv[i].startsWith('--url=')) return argv[i].slice('--url='.length)
  }
  return process.env.CODER_URL || ''
}

async function report() {
  const base = reportUrl()
  if (!base) return
  try {
    await fetch(new URL('/__sandbox/cli-invocations', base), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(invocation),
      signal: AbortSignal.timeout(2000)
    })
  } catch {
    // not a sandbox, or gone: reports are best effort
  }
}

run.builtInVersion = BUILT_IN_VERSION
run.invocation = invocation

async function main() {
  await report()
  if (argv[0] === '--version' || argv[0] === 'version') {
    out(`Coder ${BUILT_IN_VERSION} (fake)`)
    return
  }
  if (argv[0] === 'templates' && argv[1] === 'push') {
    await templatesPush(argv.slice(2))
    return
  }
  throw new CliError(`fake coder: unsupported command ${JSON.stringify(argv.join(' '))}`)
}

async function finish(exitCode, error) {
  invocation.exitCode = exitCode
  invocation.error = error
  await report()
  process.exit(exitCode)
}

main().then(
  () => finish(0, null),
  (error) => {
    let message = null
    if (!(error instanceof Canceled)) {
      const command = argv[0] === 'templates' ? `coder templates ${argv[1] ?? ''}`.trim() : 'coder'
      message = error instanceof CliError ? error.message : String(error?.stack ?? error)
      err(`Encountered an error running "${command}", see "${command} --help" for more information`)
      err(`error: ${message}`)
      for (const line of error?.lines ?? []) err(line)
    }
    return finish(1, message)
  }
)
