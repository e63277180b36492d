// resolveCoderCli (download + tool cache) and runTemplatesPush against the sandbox and the fake CLI.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { FAKE_CODER_PATH, startCoderSandbox, type CoderSandbox } from '../sandbox/coder/index.js'
import { collector, makeTemplateDir, makeTempDir, recordingLog, runCli } from './helpers.js'

// @actions/tool-cache 4 reads RUNNER_TOOL_CACHE and RUNNER_TEMP on each call (_getCacheDirectory,
// _getTempDirectory), older majors at import time: set both before importing it either way.
const temp = makeTempDir('coder-cli-')
process.env.RUNNER_TOOL_CACHE = join(temp.dir, 'tool-cache')
process.env.RUNNER_TEMP = join(temp.dir, 'runner-temp')
const { cliDownloadName, cliEnvironment, resolveCoderCli, runTemplatesPush, templatesPushArgs } =
  await import('../../src/coder/cli.js')
const { CoderClient } = await import('../../src/coder/client.js')

let sandbox: CoderSandbox
let templateDir: string
const { log } = recordingLog()

beforeAll(async () => {
  sandbox = await startCoderSandbox({ importDelayMs: 30 })
  templateDir = makeTemplateDir(temp.dir)
})
afterAll(async () => {
  await sandbox.close()
  temp.cleanup()
})

const binRequests = (): string[] =>
  sandbox.requests.filter((r) => r.path.startsWith('/bin/')).map((r) => r.path)

describe('resolveCoderCli', () => {
  it('maps runner platforms as Coder serves its CLI', () => {
    expect(cliDownloadName('linux', 'x64')).toBe('coder-linux-amd64')
    expect(cliDownloadName('linux', 'arm')).toBe('coder-linux-armv7')
    expect(cliDownloadName('darwin', 'arm64')).toBe('coder-darwin-arm64')
    expect(cliDownloadName('win32', 'x64')).toBe('coder-windows-amd64.exe')
    expect(() => cliDownloadName('aix', 'ppc64')).toThrow('Set the coder-cli input')
    expect(() => cliDownloadName('win32', 'arm')).toThrow('no CLI for runner platform win32/arm')
  })

  it('downloads the deployment’s CLI once, then finds it in the tool cache', async () => {
    const client = new CoderClient({ url: sandbox.url, token: sandbox.token })
    const options = { coderUrl: sandbox.url, client, log, platform: 'linux', arch: 'x64' }
    const recorded = recordingLog()
    const first = await resolveCoderCli({ ...options, log: recorded.log })
    expect(first.source).toBe('download')
    expect(recorded.infos).toEqual([
      `Downloading the Coder CLI v2.20.1 from ${sandbox.url}/bin/coder-linux-amd64`
    ])
    expect(first.version).toBe('v2.20.1')
    expect(first.path).toBe(
      join(process.env.RUNNER_TOOL_CACHE!, 'coder', '2.20.1', 'linux-amd64', 'coder')
    )
    expect(statSync(first.path).mode & 0o111).not.toBe(0)
    const download = sandbox.requests.find((r) => r.path === '/bin/coder-linux-amd64')!
    expect(download.headers?.['accept-encoding']).toBe('identity')

    const second = await resolveCoderCli(options)
    expect(second).toEqual({ ...first, source: 'tool-cache' })
    expect(binRequests()).toEqual(['/bin/coder-linux-amd64']) // no second download

    // The downloaded file is the deployment's CLI of the server's version, and it runs.
    const run = await runCli(first.path, ['version'], process.env)
    expect(run.stdout).toContain('v2.20.1')
  })

  it('names the Windows binary coder.exe', async () => {
    const client = new CoderClient({ url: sandbox.url, token: sandbox.token })
    const resolved = await resolveCoderCli({
      coderUrl: `${sandbox.url}/`,
      client,
      log,
      platform: 'win32',
      arch: 'arm64'
    })
    expect(resolved.path.endsWith(join('windows-arm64', 'coder.exe'))).toBe(true)
    expect(binRequests()).toContain('/bin/coder-windows-arm64.exe')
  })

  it('says what to do when the deployment serves no CLI', async () => {
    const devBuild = await startCoderSandbox({ cliPlatforms: [], serverVersion: 'v2.99.0' })
    try {
      const client = new CoderClient({ url: devBuild.url, token: devBuild.token })
      await expect(
        resolveCoderCli({ coderUrl: devBuild.url, client, log, platform: 'linux', arch: 'x64' })
      ).rejects.toThrow(
        `The Coder deployment serves no CLI at ${devBuild.url}/bin/coder-linux-amd64 (HTTP 404`
      )
    } finally {
      await devBuild.close()
    }
  })

  it.each(['../../x', 'v2.1.0\n::error::x', 'v2.1.0/../../../x'])(
    'refuses the buildinfo version %j before it becomes a path or a log line',
    async (hostile) => {
      const evil = await startCoderSandbox({ serverVersion: hostile })
      const recorded = recordingLog()
      try {
        const client = new CoderClient({ url: evil.url, token: evil.token })
        const resolving = resolveCoderCli({
          coderUrl: evil.url,
          client,
          log: recorded.log,
          platform: 'linux',
          arch: 'x64'
        })
        await expect(resolving).rejects.toThrow('is not a release version')
        await expect(resolving).rejects.not.toThrow(/[\r\n]/)
        expect(evil.requests.filter((r) => r.path.startsWith('/bin/'))).toEqual([])
        expect(existsSync(join(temp.dir, 'x'))).toBe(false)
        expect([...recorded.infos, ...recorded.warnings].join('\n')).not.toContain(hostile)
        // The adapter checks too, whoever answers buildInfo.
        const lying = { buildInfo: async () => ({ version: hostile }) }
        await expect(
          resolveCoderCli({
            coderUrl: evil.url,
            client: lying,
            log,
            platform: 'linux',
            arch: 'x64'
          })
        ).rejects.toThrow('is not a release version')
      } finally {
        await evil.close()
      }
    }
  )

  it('gives up on a download that never answers, naming the URL', async () => {
    // tool-cache retries a failed attempt after 10-20 s; the abandoned download must end quickly
    // once the test closes the server, so that nothing outlives the test file.
    const globals = globalThis as Record<string, unknown>
    globals.TEST_DOWNLOAD_TOOL_RETRY_MIN_SECONDS = 0
    globals.TEST_DOWNLOAD_TOOL_RETRY_MAX_SECONDS = 0
    const hanging = await startHangingServer()
    const client = new CoderClient({ url: sandbox.url, token: sandbox.token })
    try {
      await expect(
        resolveCoderCli({
          coderUrl: hanging.url,
          client,
          log,
          platform: 'darwin',
          arch: 'x64',
          downloadTimeoutMs: 1_000
        })
      ).rejects.toThrow(
        `Could not download the Coder CLI from ${hanging.url}/bin/coder-darwin-amd64: no complete answer within 1 s.`
      )
      expect(hanging.paths).toEqual(['/bin/coder-darwin-amd64'])

      const controller = new AbortController()
      const cancelled = resolveCoderCli({
        coderUrl: hanging.url,
        client,
        log,
        platform: 'darwin',
        arch: 'arm64',
        signal: controller.signal
      })
      while (hanging.paths.length < 2) await new Promise((resolve) => setTimeout(resolve, 10))
      controller.abort()
      await expect(cancelled).rejects.toThrow(
        `Cancelled while downloading the Coder CLI from ${hanging.url}/bin/coder-darwin-arm64.`
      )
    } finally {
      await hanging.close()
      delete globals.TEST_DOWNLOAD_TOOL_RETRY_MIN_SECONDS
      delete globals.TEST_DOWNLOAD_TOOL_RETRY_MAX_SECONDS
    }
  })

  it('uses a configured path only when it exists and is executable', async () => {
    const client = new CoderClient({ url: sandbox.url, token: sandbox.token })
    const configured = await resolveCoderCli({
      configuredPath: FAKE_CODER_PATH,
      coderUrl: sandbox.url,
      client,
      log
    })
    expect(configured).toEqual({ path: FAKE_CODER_PATH, source: 'configured', version: '' })

    const missing = join(temp.dir, 'no-such-coder')
    await expect(
      resolveCoderCli({ configuredPath: missing, coderUrl: sandbox.url, client, log })
    ).rejects.toThrow(`The coder-cli input points to ${missing}, which does not exist.`)

    const plain = join(temp.dir, 'not-executable')
    writeFileSync(plain, '#!/bin/sh\n')
    chmodSync(plain, 0o644)
    await expect(
      resolveCoderCli({ configuredPath: plain, coderUrl: sandbox.url, client, log })
    ).rejects.toThrow('which is not executable')
  })
})

describe('runTemplatesPush', () => {
  const base = () => ({
    cli: FAKE_CODER_PATH,
    coderUrl: sandbox.url,
    token: sandbox.token,
    template: 'docker',
    directory: templateDir,
    timeoutMs: 20_000,
    log
  })

  it('passes an argument array with the token only in the environment', async () => {
    const argvLog = join(temp.dir, 'argv.log')
    process.env.FAKE_CODER_ARGV_LOG = argvLog
    const out = collector()
    try {
      const result = await runTemplatesPush({
        ...base(),
        version: 'v1.0.0',
        organization: 'acme',
        message: 'feat: "quoted" $(not a subshell)',
        variables: [{ name: 'region', value: 'eu west' }],
        output: out.stream
      })
      expect(result).toMatchObject({ exitCode: 0, timedOut: false, aborted: false, signal: null })
      expect(result.stdout).toContain('Updated version v1.0.0 at')
    } finally {
      delete process.env.FAKE_CODER_ARGV_LOG
    }
    const logged = readFileSync(argvLog, 'utf8')
    expect(JSON.parse(logged)).toEqual([
      'templates',
      'push',
      'docker',
      '--directory',
      templateDir,
      '--name',
      'v1.0.0',
      '--activate=false',
      '--yes',
      '--org',
      'acme',
      '--message',
      'feat: "quoted" $(not a subshell)',
      '--variables-file',
      expect.stringMatching(/coder-template-gate-[^/]+\/variables\.yaml$/)
    ])
    // The value is in no argument; the file is gone once the CLI ended.
    expect(logged).not.toContain('eu west')
    const file = (JSON.parse(logged) as string[]).at(-1)!
    expect(existsSync(file)).toBe(false)
    expect(logged).not.toContain(sandbox.token)
    expect(out.text()).toContain('::stop-commands::') // CLI output cannot issue workflow commands
    const created = JSON.parse(
      sandbox.requests.find((r) => r.method === 'POST' && r.path.endsWith('/templateversions'))!
        .body!
    )
    expect(created).toMatchObject({
      name: 'v1.0.0',
      message: 'feat: "quoted" $(not a subshell)',
      user_variable_values: [{ name: 'region', value: 'eu west' }]
    })
  })

  it('gives the CLI none of the runner’s secrets, only the Coder URL and token', async () => {
    const dump = join(temp.dir, 'child-env.json')
    const cli = join(temp.dir, 'env-dump-cli')
    writeFileSync(
      cli,
      `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(${JSON.stringify(dump)}, JSON.stringify(process.env))\n`
    )
    chmodSync(cli, 0o755)
    const planted: Record<string, string> = {
      INPUT_CODER_TOKEN: 'planted-input',
      'INPUT_GITOPS-TOKEN': 'planted-input-dash',
      ACTIONS_RUNTIME_TOKEN: 'planted-runtime',
      ACTIONS_ID_TOKEN_REQUEST_URL: 'https://planted.example/oidc',
      GITHUB_TOKEN: 'planted-github',
      NPM_AUTH_TOKEN: 'planted-npm',
      aws_secret_access_key: 'planted-aws',
      DB_Password: 'planted-db',
      KUBECONFIG: '/planted/kubeconfig',
      KUBECONFIG_DATA: 'planted-kubeconfig-data',
      CODER_ORGANIZATION: 'planted-org',
      CODER_URL: 'https://planted.example',
      CODER_SESSION_TOKEN: 'planted-session',
      https_proxy: 'http://proxy.example:3128',
      NO_PROXY: '127.0.0.1,localhost',
      SSL_CERT_FILE: '/etc/ssl/certs/ca.pem',
      LC_ALL: 'C.UTF-8',
      RUNNER_TEMP: process.env.RUNNER_TEMP!
    }
    const saved = Object.fromEntries(Object.keys(planted).map((k) => [k, process.env[k]]))
    Object.assign(process.env, planted)
    let result
    try {
      result = await runTemplatesPush({
        ...base(),
        cli,
        version: 'v-env',
        output: collector().stream
      })
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
    expect(result.exitCode).toBe(0)
    const childEnv = JSON.parse(readFileSync(dump, 'utf8')) as Record<string, string>
    expect(Object.keys(childEnv).filter((n) => /^(INPUT_|ACTIONS_)/i.test(n))).toEqual([])
    expect(
      Object.keys(childEnv).filter((n) => /TOKEN|SECRET|PASSWORD|KUBECONFIG/i.test(n))
    ).toEqual(['CODER_SESSION_TOKEN'])
    expect(JSON.stringify(childEnv)).not.toContain('planted-')
    expect(childEnv).toMatchObject({
      CODER_URL: sandbox.url,
      CODER_SESSION_TOKEN: sandbox.token,
      CODER_NO_VERSION_WARNING: 'true',
      PATH: process.env.PATH,
      https_proxy: 'http://proxy.example:3128',
      NO_PROXY: '127.0.0.1,localhost',
      SSL_CERT_FILE: '/etc/ssl/certs/ca.pem',
      LC_ALL: 'C.UTF-8',
      RUNNER_TEMP: process.env.RUNNER_TEMP
    })
    expect(childEnv.CODER_ORGANIZATION).toBeUndefined()
    // The same rules as a pure function, for names a shell cannot set.
    expect(
      cliEnvironment({ HOME: '/home/runner', input_x: '1', Actions_y: '2' }, 'http://c', 't')
    ).toEqual({
      HOME: '/home/runner',
      CODER_URL: 'http://c',
      CODER_SESSION_TOKEN: 't',
      CODER_NO_VERSION_WARNING: 'true'
    })
  })

  it('makes a relative directory absolute and omits --org and --message when unset', () => {
    const args = templatesPushArgs({ ...base(), directory: 'templates/docker', version: 'v2' })
    expect(args[4]).toBe(join(process.cwd(), 'templates/docker'))
    expect(args).not.toContain('--org')
    expect(args).not.toContain('--message')
  })

  it('returns a non-zero exit with Coder’s error instead of throwing', async () => {
    sandbox.failNextImport('provider registry.terraform.io/coder/coder not found')
    const result = await runTemplatesPush({
      ...base(),
      version: 'v-fail',
      output: collector().stream
    })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('error: provider registry.terraform.io/coder/coder not found')
  })

  it('interrupts a slow import at the time limit; the CLI cancels the job on SIGINT', async () => {
    sandbox.importDelayMs = 20_000
    const out = collector()
    try {
      const result = await runTemplatesPush({
        ...base(),
        version: 'v-slow',
        // Long enough for the CLI to reach its poll (where it handles SIGINT) on a loaded machine.
        timeoutMs: 5_000,
        killGraceMs: 5_000,
        output: out.stream
      })
      expect(result.timedOut).toBe(true)
      expect(result.exitCode).toBe(1) // ErrCanceled: exit 1, silently
      expect(result.signal).toBeNull()
      expect(result.stdout).toContain('Gracefully canceling...')
      expectEchoEndedAt(out.text(), 'The time limit of 5000 ms is over; interrupting the CLI.')
      const version = sandbox.backend.findVersionByName('acme', 'docker', 'v-slow')!
      expect(
        sandbox.requests.some((r) => r.path === `/api/v2/templateversions/${version.id}/cancel`)
      ).toBe(true)
      expect(version.jobStatus).toBe('canceled')
    } finally {
      sandbox.importDelayMs = 30
    }
  })

  it('sends SIGTERM when the CLI does not end within the grace period after SIGINT', async () => {
    sandbox.importDelayMs = 20_000
    sandbox.cancelDelayMs = 20_000
    try {
      const result = await runTemplatesPush({
        ...base(),
        version: 'v-stuck',
        // Long enough for the CLI to reach its poll (where it handles SIGINT) on a loaded machine.
        timeoutMs: 5_000,
        killGraceMs: 300,
        output: collector().stream
      })
      expect(result.timedOut).toBe(true)
      expect(result.signal).toBe('SIGTERM')
      expect(result.exitCode).toBe(143)
    } finally {
      sandbox.importDelayMs = 30
      sandbox.cancelDelayMs = 20
    }
  })

  it('interrupts the CLI when the action is cancelled', async () => {
    sandbox.importDelayMs = 20_000
    const controller = new AbortController()
    // Cancel once the CLI polls its import: by then it handles SIGINT (fake-coder.mjs).
    const watcher = setInterval(() => {
      const version = sandbox.backend.findVersionByName('acme', 'docker', 'v-cancel')
      const polled = sandbox.requests.some(
        (r) => r.method === 'GET' && r.path === `/api/v2/templateversions/${version?.id}`
      )
      if (version && polled) controller.abort()
    }, 20)
    const out = collector()
    const recorded = recordingLog()
    try {
      const result = await runTemplatesPush({
        ...base(),
        log: recorded.log,
        version: 'v-cancel',
        signal: controller.signal,
        killGraceMs: 5_000,
        output: out.stream
      })
      expect(result.aborted).toBe(true)
      expect(result.timedOut).toBe(false)
      expect(result.exitCode).not.toBe(0)
      // The CLI went on printing after the cancel; none of it is shown after the resume token.
      expect(result.stdout).toContain('Gracefully canceling...')
      expectEchoEndedAt(out.text(), 'Cancelled; interrupting the CLI.')
      // The output is held in one group of the step's log, named after the push.
      expect(recorded.groups).toEqual(['coder templates push docker --name v-cancel'])
    } finally {
      clearInterval(watcher)
      sandbox.importDelayMs = 30
    }
  })

  it('silences the CLI’s version-mismatch warning', async () => {
    const client = new CoderClient({ url: sandbox.url, token: sandbox.token })
    const cli = await resolveCoderCli({
      coderUrl: sandbox.url,
      client,
      log,
      platform: 'linux',
      arch: 'x64'
    })
    const newer = await startCoderSandbox({ serverVersion: 'v2.24.0', importDelayMs: 10 })
    try {
      const env = { ...process.env, CODER_URL: newer.url, CODER_SESSION_TOKEN: newer.token }
      const args = ['templates', 'push', 'docker', '--directory', templateDir, '--yes']
      const bare = await runCli(cli.path, [...args, '--name', 'plain'], env)
      expect(bare.code).toBe(0)
      expect(bare.stderr).toContain('version mismatch: client v2.20.1, server v2.24.0')
      const result = await runTemplatesPush({
        ...base(),
        cli: cli.path,
        coderUrl: newer.url,
        token: newer.token,
        version: 'quiet',
        output: collector().stream
      })
      expect(result.exitCode).toBe(0)
      expect(result.stderr).not.toContain('version mismatch')
    } finally {
      await newer.close()
    }
  })

  it('reports a CLI that cannot start', async () => {
    const result = await runTemplatesPush({
      ...base(),
      cli: join(temp.dir, 'absent-coder'),
      version: 'v9',
      output: collector().stream
    })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('could not start')
  })
})

/**
 * The stop-commands section ends once, right before `notice`, and no CLI output follows it: the
 * action's own annotations after a cancel or a time limit are workflow commands again.
 */
function expectEchoEndedAt(shown: string, notice: string): void {
  const token = /^::stop-commands::(\S+)$/m.exec(shown)?.[1]
  expect(token).toBeDefined()
  const lines = shown.split('\n')
  const resumeAt = lines.indexOf(`::${token}::`)
  expect(resumeAt).toBeGreaterThan(0)
  expect(lines.filter((line) => line.includes(`::${token}::`))).toHaveLength(1)
  expect(lines.slice(resumeAt + 1)).toEqual([notice, ''])
}

/** Accepts connections and never answers. */
async function startHangingServer(): Promise<{
  url: string
  paths: string[]
  close: () => Promise<void>
}> {
  const paths: string[] = []
  const server: Server = createServer((req: IncomingMessage) => {
    paths.push(req.url ?? '')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
