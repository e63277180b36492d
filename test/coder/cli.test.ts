// resolveCoderCli (download + tool cache) and runTemplatesPush against the sandbox and the fake CLI.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FAKE_CODER_PATH, startCoderSandbox, type CoderSandbox } from '../sandbox/coder/index.js'
import { collector, makeTemplateDir, makeTempDir, runCli } from './helpers.js'

// @actions/tool-cache 4 reads RUNNER_TOOL_CACHE and RUNNER_TEMP on each call (_getCacheDirectory,
// _getTempDirectory), older majors at import time: set both before importing it either way.
const temp = makeTempDir('coder-cli-')
process.env.RUNNER_TOOL_CACHE = join(temp.dir, 'tool-cache')
process.env.RUNNER_TEMP = join(temp.dir, 'runner-temp')
const { cliDownloadName, resolveCoderCli, runTemplatesPush, templatesPushArgs } =
  await import('../../src/coder/cli.js')
const { CoderClient } = await import('../../src/coder/client.js')

let sandbox: CoderSandbox
let templateDir: string

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
  it('maps runner platforms as coder-cli.md §4', () => {
    expect(cliDownloadName('linux', 'x64')).toBe('coder-linux-amd64')
    expect(cliDownloadName('linux', 'arm')).toBe('coder-linux-armv7')
    expect(cliDownloadName('darwin', 'arm64')).toBe('coder-darwin-arm64')
    expect(cliDownloadName('win32', 'x64')).toBe('coder-windows-amd64.exe')
    expect(() => cliDownloadName('aix', 'ppc64')).toThrow('Set the coder-cli input')
    expect(() => cliDownloadName('win32', 'arm')).toThrow('no CLI for runner platform win32/arm')
  })

  it('downloads the deployment’s CLI once, then finds it in the tool cache', async () => {
    const client = new CoderClient({ url: sandbox.url, token: sandbox.token })
    const options = { coderUrl: sandbox.url, client, platform: 'linux', arch: 'x64' }
    const first = await resolveCoderCli(options)
    expect(first.source).toBe('download')
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
        resolveCoderCli({ coderUrl: devBuild.url, client, platform: 'linux', arch: 'x64' })
      ).rejects.toThrow(
        `The Coder deployment serves no CLI at ${devBuild.url}/bin/coder-linux-amd64 (HTTP 404`
      )
    } finally {
      await devBuild.close()
    }
  })

  it('uses a configured path only when it exists and is executable', async () => {
    const client = new CoderClient({ url: sandbox.url, token: sandbox.token })
    const configured = await resolveCoderCli({
      configuredPath: FAKE_CODER_PATH,
      coderUrl: sandbox.url,
      client
    })
    expect(configured).toEqual({ path: FAKE_CODER_PATH, source: 'configured', version: '' })

    const missing = join(temp.dir, 'no-such-coder')
    await expect(
      resolveCoderCli({ configuredPath: missing, coderUrl: sandbox.url, client })
    ).rejects.toThrow(`The coder-cli input points to ${missing}, which does not exist.`)

    const plain = join(temp.dir, 'not-executable')
    writeFileSync(plain, '#!/bin/sh\n')
    chmodSync(plain, 0o644)
    await expect(
      resolveCoderCli({ configuredPath: plain, coderUrl: sandbox.url, client })
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
    timeoutMs: 20_000
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
      '--variable',
      'region=eu west'
    ])
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
        timeoutMs: 1_500,
        killGraceMs: 5_000,
        output: out.stream
      })
      expect(result.timedOut).toBe(true)
      expect(result.exitCode).toBe(1) // ErrCanceled: exit 1, silently
      expect(result.signal).toBeNull()
      expect(result.stdout).toContain('Gracefully canceling...')
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
        timeoutMs: 1_500,
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
    const watcher = setInterval(() => {
      if (sandbox.backend.findVersionByName('acme', 'docker', 'v-cancel')) controller.abort()
    }, 20)
    try {
      const result = await runTemplatesPush({
        ...base(),
        version: 'v-cancel',
        signal: controller.signal,
        killGraceMs: 5_000,
        output: collector().stream
      })
      expect(result.aborted).toBe(true)
      expect(result.timedOut).toBe(false)
      expect(result.exitCode).not.toBe(0)
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
