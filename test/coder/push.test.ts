// The push step against the sandbox Coder with the fake CLI as a real child process.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from '@jest/globals'
import { CoderClient } from '../../src/coder/client.js'
import { pushTemplateVersion, type PushTemplateVersionInput } from '../../src/coder/push.js'
import type { StepLog } from '../../src/steps/step.js'
import { FAKE_CODER_PATH, startCoderSandbox, type CoderSandbox } from '../sandbox/coder/index.js'
import { collector, makeTemplateDir, makeTempDir, recordingLog } from './helpers.js'
import { FakeClock } from '../timing/fake-clock.js'

let sandbox: CoderSandbox
let temp: ReturnType<typeof makeTempDir>
let templateDir: string
let infos: string[]
let warnings: string[]
let log: StepLog

beforeAll(async () => {
  sandbox = await startCoderSandbox({ importDelayMs: 30 })
  temp = makeTempDir('coder-push-')
  templateDir = makeTemplateDir(temp.dir)
})
afterAll(async () => {
  await sandbox.close()
  temp.cleanup()
})
beforeEach(() => {
  ;({ log, infos, warnings } = recordingLog())
})

const input = (
  template: string,
  version: string,
  extra: Partial<PushTemplateVersionInput> = {}
): PushTemplateVersionInput => ({
  client: new CoderClient({ url: sandbox.url, token: sandbox.token, retryDelayMs: 5 }),
  cli: FAKE_CODER_PATH,
  coderUrl: sandbox.url,
  token: sandbox.token,
  organization: 'acme',
  template,
  directory: templateDir,
  version,
  timeoutMs: 20_000,
  pollIntervalMs: 20,
  log,
  output: collector().stream,
  ...extra
})

const pushes = (): number =>
  sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/templateversions')).length

describe('pushTemplateVersion', () => {
  it('creates a new template; Coder activates its first version, so it warns', async () => {
    const outcome = await pushTemplateVersion(input('fresh', 'v1.0.0'))
    const template = sandbox.backend.findTemplate('acme', 'fresh')!
    const version = sandbox.backend.findVersionByName('acme', 'fresh', 'v1.0.0')!
    expect(outcome).toEqual({
      versionId: version.id,
      versionName: 'v1.0.0',
      templateId: template.id,
      templateName: 'fresh',
      templateExisted: false,
      reusedExistingVersion: false,
      activeVersionIdBeforePush: null,
      createdAt: version.createdAt
    })
    expect(template.activeVersionId).toBe(version.id)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('--activate=false has no effect on a new template')
  })

  it('pushes a new version of an existing template and leaves it inactive', async () => {
    const seeded = sandbox.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const outcome = await pushTemplateVersion(input('Docker', 'v1.0.0', { passOrganization: true }))
    const version = sandbox.backend.findVersionByName('acme', 'docker', 'v1.0.0')!
    expect(outcome).toEqual({
      versionId: version.id,
      versionName: 'v1.0.0',
      templateId: seeded.id,
      templateName: 'docker', // Coder's spelling, not the input's
      templateExisted: true,
      reusedExistingVersion: false,
      activeVersionIdBeforePush: seeded.activeVersionId,
      createdAt: version.createdAt
    })
    expect(version.jobStatus).toBe('succeeded')
    expect(sandbox.backend.findTemplate('acme', 'docker')!.activeVersionId).toBe(
      seeded.activeVersionId
    )
    expect(warnings).toEqual([])
  })

  it('continues with the existing version on a re-run, without pushing again', async () => {
    const first = sandbox.backend.findVersionByName('acme', 'docker', 'v1.0.0')!
    const uploadsBefore = sandbox.requests.filter((r) => r.path === '/api/v2/files').length
    const outcome = await pushTemplateVersion(input('docker', 'v1.0.0'))
    expect(outcome.versionId).toBe(first.id)
    expect(outcome.reusedExistingVersion).toBe(true)
    expect(outcome.templateExisted).toBe(true)
    expect(sandbox.requests.filter((r) => r.path === '/api/v2/files').length).toBe(uploadsBefore)
    expect(infos.join('\n')).toContain(
      'A re-run: a previous run of this commit already pushed version "v1.0.0"'
    )
  })

  it('refuses a succeeded version with our name that this commit did not push', async () => {
    const manual = 'hotfix pushed by hand '.repeat(20) // 440 characters
    sandbox.seedVersion({ template: 'docker', name: 'v1.0.1', message: manual })
    const before = pushes()
    const failure = pushTemplateVersion(input('docker', 'v1.0.1', { message: 'feat: x (run 7)' }))
    await expect(failure).rejects.toThrow(
      /^The name is taken: Coder already holds version "v1.0.1" of template "docker" in organization "acme" \(ID [0-9a-f-]+, created by ci-bot, message "(hotfix pushed by hand ){9}ho…"\), but this commit did not push it .*Coder version names cannot be reused: push under a new version name\.$/
    )
    expect(pushes()).toBe(before)
  })

  it('accepts a differing message when isOwnVersion says the version is ours', async () => {
    const seeded = sandbox.seedVersion({ template: 'docker', name: 'v1.0.2', message: 'other' })
    const seen: string[] = []
    const outcome = await pushTemplateVersion(
      input('docker', 'v1.0.2', {
        message: 'feat: x (run 7)',
        isOwnVersion: (existing) => {
          seen.push(existing.message)
          return existing.id === seeded.id
        }
      })
    )
    expect(seen).toEqual(['other'])
    expect(outcome).toMatchObject({ versionId: seeded.id, reusedExistingVersion: true })
  })

  it('refuses a foreign version found after the CLI’s duplicate-name error', async () => {
    sandbox.seedVersion({ template: 'docker', name: 'v1.0.3', message: 'manual push' })
    sandbox.failNextRequests(
      '/api/v2/organizations/acme/templates/docker/versions/v1.0.3',
      404,
      1,
      'No template version found by name "v1.0.3".'
    )
    await expect(
      pushTemplateVersion(input('docker', 'v1.0.3', { message: 'feat: x (run 7)' }))
    ).rejects.toThrow(/message "manual push"\), but this commit did not push it/)
    expect(
      sandbox.requests.some(
        (r) =>
          r.status === 409 && r.path.endsWith('/templateversions') && r.body?.includes('v1.0.3')
      )
    ).toBe(true)
  })

  it('continues after the CLI’s duplicate-name error when another run won the race', async () => {
    sandbox.seedVersion({ template: 'docker', name: 'v1.1.0', message: 'feat: y (run 8)' })
    // The pre-flight misses it (as if the other run created it just after our check).
    sandbox.failNextRequests(
      '/api/v2/organizations/acme/templates/docker/versions/v1.1.0',
      404,
      1,
      'No template version found by name "v1.1.0".'
    )
    const outcome = await pushTemplateVersion(
      input('docker', 'v1.1.0', { message: 'feat: y (run 8)' })
    )
    expect(outcome.reusedExistingVersion).toBe(true)
    expect(outcome.versionId).toBe(
      sandbox.backend.findVersionByName('acme', 'docker', 'v1.1.0')!.id
    )
    expect(
      sandbox.requests.some((r) => r.status === 409 && r.path.endsWith('/templateversions'))
    ).toBe(true)
    expect(infos.join('\n')).toContain('pushed by another run')
  })

  it('fails with Coder’s message when the import fails', async () => {
    sandbox.failNextImport('Error: Missing required argument "image"')
    await expect(pushTemplateVersion(input('docker', 'v2.0.0'))).rejects.toThrow(
      'coder templates push failed for version "v2.0.0" of template "docker" in organization "acme": Error: Missing required argument "image"'
    )
    expect(sandbox.backend.findVersionByName('acme', 'docker', 'v2.0.0')?.jobStatus).toBe('failed')
  })

  it('refuses a name taken by a failed import before pushing', async () => {
    const before = pushes()
    await expect(pushTemplateVersion(input('docker', 'v2.0.0'))).rejects.toThrow(
      /The name is taken: .* its import failed: Error: Missing required argument "image"\. .*choose a new version name/
    )
    expect(pushes()).toBe(before)
  })

  it('waits for an import another run started, then continues with it', async () => {
    sandbox.seedVersion({
      template: 'docker',
      name: 'v3.0.0',
      jobStatus: 'running',
      message: 'feat: z (run 9)'
    })
    const running = sandbox.backend.findVersionByName('acme', 'docker', 'v3.0.0')!
    const seen: string[] = []
    // The other run's import ends during our first pause.
    const clock = new FakeClock(0, () => {
      seen.push(running.jobStatus)
      sandbox.completeJob(running.id, 'succeeded')
    })
    const outcome = await pushTemplateVersion(
      input('docker', 'v3.0.0', { message: 'feat: z (run 9)', pollIntervalMs: undefined, clock })
    )
    expect(seen).toEqual(['running'])
    expect(clock.slept).toEqual([2_000]) // the default poll interval
    expect(outcome.versionId).toBe(running.id)
    expect(outcome.reusedExistingVersion).toBe(true)
    expect(infos.join('\n')).toContain('is still running (started by another run); waiting')
  })

  it("gives up on another run's import at the push time limit, on the push's clock", async () => {
    sandbox.seedVersion({
      template: 'docker',
      name: 'v3.1.0',
      jobStatus: 'running',
      message: 'feat: y (run 8)'
    })
    const clock = new FakeClock(1_000_000)
    const waiting = input('docker', 'v3.1.0', {
      message: 'feat: y (run 8)',
      timeoutMs: 20_000,
      pollIntervalMs: 2_000,
      clock
    })
    await expect(pushTemplateVersion(waiting)).rejects.toThrow(
      'The import of version "v3.1.0" of template "docker" was still running after 20 s.'
    )
    expect(clock.slept).toEqual(Array(10).fill(2_000))
  })

  it('falls back to the active version when an old CLI dropped --name on create', async () => {
    sandbox.randomNameOnCreate = true
    try {
      const outcome = await pushTemplateVersion(input('legacy', 'v1.0.0'))
      const template = sandbox.backend.findTemplate('acme', 'legacy')!
      expect(outcome.versionId).toBe(template.activeVersionId)
      expect(outcome.versionName).not.toBe('v1.0.0')
      expect(outcome.versionName).toMatch(/^[a-z]+_[a-z]+\d$/)
      expect(warnings.join('\n')).toContain('Coder did not keep the version name "v1.0.0"')
    } finally {
      sandbox.randomNameOnCreate = false
    }
  })

  it('fails with a clear message when the push hits its time limit', async () => {
    sandbox.importDelayMs = 20_000
    try {
      await expect(
        // Long enough for the CLI to reach its poll (where it handles SIGINT) on a loaded machine.
        pushTemplateVersion(input('docker', 'v4.0.0', { timeoutMs: 5_000, killGraceMs: 2_000 }))
      ).rejects.toThrow(/did not finish within 5 s while pushing version "v4.0.0"/)
      expect(sandbox.backend.findVersionByName('acme', 'docker', 'v4.0.0')?.jobStatus).toBe(
        'canceled'
      )
    } finally {
      sandbox.importDelayMs = 30
    }
  })
})
