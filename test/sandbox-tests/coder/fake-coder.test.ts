// The sandbox Coder and the fake CLI behave like the real ones where the gate depends on it.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  FAKE_CODER_PATH,
  SIGNED_OUT_MESSAGE,
  startCoderSandbox,
  type CoderSandbox
} from '../../sandbox/coder/index.js'
import { makeTemplateDir, makeTempDir, runCli, tarEntries } from '../../coder/helpers.js'

let sandbox: CoderSandbox
let temp: ReturnType<typeof makeTempDir>
let templateDir: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  sandbox = await startCoderSandbox({ importDelayMs: 30 })
  temp = makeTempDir('fake-coder-')
  templateDir = makeTemplateDir(temp.dir)
  env = { ...process.env, CODER_URL: sandbox.url, CODER_SESSION_TOKEN: sandbox.token }
})
afterAll(async () => {
  await sandbox.close()
  temp.cleanup()
})

const push = (name: string, ...extra: string[]): string[] => [
  'templates',
  'push',
  'docker',
  '--directory',
  templateDir,
  '--name',
  name,
  '--activate=false',
  ...extra
]

describe('sandbox Coder REST', () => {
  it('answers 401 with Coder’s message for a wrong token, and tags every answer', async () => {
    const response = await fetch(`${sandbox.url}/api/v2/users/me/organizations`, {
      headers: { 'Coder-Session-Token': 'wrong' }
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('x-coder-build-version')).toBe('v2.20.1')
    expect(((await response.json()) as { message: string }).message).toBe(SIGNED_OUT_MESSAGE)
    const info = await fetch(`${sandbox.url}/api/v2/buildinfo`)
    expect(((await info.json()) as { version: string }).version).toBe('v2.20.1')
  })

  it('rejects an upload that is neither tar nor zip', async () => {
    const response = await fetch(`${sandbox.url}/api/v2/files`, {
      method: 'POST',
      headers: { 'Coder-Session-Token': sandbox.token, 'Content-Type': 'text/plain' },
      body: 'x'
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      message: 'Unsupported content type header "text/plain".'
    })
  })

  it('refuses to activate a failed version with Coder’s 403 text', () => {
    const template = sandbox.seedTemplate({ name: 'activation' })
    const failed = sandbox.seedVersion({ template: 'activation', name: 'bad', jobStatus: 'failed' })
    expect(() => sandbox.backend.activate(template.id, failed.id)).toThrow(
      'Only versions that have been built successfully can be promoted.'
    )
  })

  it('serves the CLI of its own version for known platforms only', async () => {
    const ok = await fetch(`${sandbox.url}/bin/coder-linux-amd64`)
    expect(ok.status).toBe(200)
    const text = await ok.text()
    expect(text.startsWith('#!/usr/bin/env node')).toBe(true)
    expect(text).toContain('const BUILT_IN_VERSION = "v2.20.1"')
    expect((await fetch(`${sandbox.url}/bin/coder-windows-amd64.exe`)).status).toBe(200)
    expect((await fetch(`${sandbox.url}/bin/coder-plan9-amd64`)).status).toBe(404)
    expect((await fetch(`${sandbox.url}/bin/coder-linux-amd64.exe`)).status).toBe(404)
  })
})

describe('fake coder templates push', () => {
  it('creates the template on the first push with a real tar of the directory', async () => {
    const run = await runCli(FAKE_CODER_PATH, push('v1', '--yes'), env)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Updated version v1 at')
    const template = sandbox.backend.findTemplate('acme', 'DOCKER') // case-insensitive
    const version = sandbox.backend.findVersionByName('acme', 'docker', 'v1')
    expect(version?.jobStatus).toBe('succeeded')
    expect(template?.activeVersionId).toBe(version?.id) // a new template's first version is active
    const upload = [...sandbox.files.values()].at(-1)!
    expect(tarEntries(upload.bytes)).toEqual([
      '.terraform.lock.hcl',
      'main.tf',
      'modules/README.md'
    ])
  })

  it('prints the duplicate-name error exactly as the real CLI', async () => {
    const run = await runCli(FAKE_CODER_PATH, push('v1', '--yes'), env)
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(
      'Encountered an error running "coder templates push", see "coder templates push --help" for more information\n' +
        'error: A template version with name "v1" already exists for this template.\n' +
        '1 validation error(s) found\n' +
        '\tname: This value is already in use and should be unique.\n'
    )
  })

  it('keeps a new version of an existing template inactive with --activate=false', async () => {
    const before = sandbox.backend.findTemplate('acme', 'docker')!.activeVersionId
    const run = await runCli(FAKE_CODER_PATH, push('v2', '--yes'), env)
    expect(run.code).toBe(0)
    expect(sandbox.backend.findTemplate('acme', 'docker')!.activeVersionId).toBe(before)
  })

  it('fails the import on demand with the job error', async () => {
    sandbox.failNextImport('terraform plan: boom')
    const run = await runCli(FAKE_CODER_PATH, push('v3', '--yes'), env)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('\nerror: terraform plan: boom\n')
    expect(sandbox.backend.findVersionByName('acme', 'docker', 'v3')?.jobStatus).toBe('failed')
  })

  it('prompts without --yes and fails with EOF on a closed stdin', async () => {
    const run = await runCli(FAKE_CODER_PATH, push('v4'), env)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`Upload "${templateDir}"? (yes/no)`)
    expect(run.stderr).toContain('error: EOF')
    expect(sandbox.backend.findVersionByName('acme', 'docker', 'v4')).toBeNull()
  })

  it('refuses to read a tar from stdin without an explicit --directory', async () => {
    const run = await runCli(FAKE_CODER_PATH, ['templates', 'push', 'docker', '--yes'], env)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('the real CLI would read a template tar from stdin')
  })

  it('requires a directory with a .tf file', async () => {
    const empty = makeTemplateDir(temp.dir, 'empty', false)
    const run = await runCli(
      FAKE_CODER_PATH,
      ['templates', 'push', 'empty', '--directory', empty, '--yes'],
      env
    )
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(
      `error: ${empty} is not a valid template since it has no [.tf .tf.json] files`
    )
  })

  it('treats `--activate false` as an extra positional argument, like pflag', async () => {
    const run = await runCli(
      FAKE_CODER_PATH,
      ['templates', 'push', 'docker', '--directory', templateDir, '--activate', 'false', '--yes'],
      env
    )
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('wanted no more than 1 args but got 2')
  })

  it('says "not logged in" without CODER_URL and CODER_SESSION_TOKEN', async () => {
    const bare = { ...process.env }
    delete bare.CODER_URL
    delete bare.CODER_SESSION_TOKEN
    const run = await runCli(FAKE_CODER_PATH, push('v5', '--yes'), bare)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(
      "error: You are not logged in. Try logging in using 'fake-coder.mjs login <url>'."
    )
  })

  it('needs --org when the user belongs to several organizations', async () => {
    const multi = await startCoderSandbox({ extraOrganizations: ['beta'] })
    try {
      const multiEnv = { ...env, CODER_URL: multi.url, CODER_SESSION_TOKEN: multi.token }
      const without = await runCli(FAKE_CODER_PATH, push('v1', '--yes'), multiEnv)
      expect(without.stderr).toContain(
        'error: Must select an organization with --org=<org_name>. Choose from: acme, beta'
      )
      const wrong = await runCli(FAKE_CODER_PATH, push('v1', '--yes', '--org', 'gamma'), multiEnv)
      expect(wrong.stderr).toContain(`organization "gamma" not found`)
      const right = await runCli(FAKE_CODER_PATH, push('v1', '--yes', '--org', 'beta'), multiEnv)
      expect(right.code).toBe(0)
      expect(multi.backend.findTemplate('beta', 'docker')).not.toBeNull()
      expect(multi.backend.findTemplate('acme', 'docker')).toBeNull()
    } finally {
      await multi.close()
    }
  })

  it('logs argv to FAKE_CODER_ARGV_LOG and prints its version', async () => {
    const log = join(temp.dir, 'argv.log')
    const served = join(temp.dir, 'served-coder')
    writeFileSync(
      served,
      Buffer.from(await (await fetch(`${sandbox.url}/bin/coder-linux-amd64`)).arrayBuffer())
    )
    chmodSync(served, 0o755)
    const run = await runCli(served, ['--version'], { ...env, FAKE_CODER_ARGV_LOG: log })
    expect(run.stdout).toContain('v2.20.1')
    const { readFileSync } = await import('node:fs')
    expect(readFileSync(log, 'utf8')).toBe('["--version"]\n')
  })
})
