// The presets read against the sandbox Coder over real HTTP: presets pushed by the fake CLI in the
// template archive (the sandbox's coder-presets.json) and seeded ones, in coderd's shape.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CoderClient } from '../../src/coder/client.js'
import { pushTemplateVersion } from '../../src/coder/push.js'
import { versionPresets } from '../../src/coder/presets.js'
import { FAKE_CODER_PATH, startCoderSandbox, type CoderSandbox } from '../sandbox/coder/index.js'
import { collector, makeTemplateDir, makeTempDir, recordingLog } from './helpers.js'

let sandbox: CoderSandbox
let client: CoderClient
let temp: ReturnType<typeof makeTempDir>

beforeAll(async () => {
  sandbox = await startCoderSandbox({ importDelayMs: 30 })
  client = new CoderClient({ url: sandbox.url, token: sandbox.token, retryDelayMs: 5 })
  temp = makeTempDir('coder-presets-')
  sandbox.seedTemplate({ name: 'docker', versionName: 'v0' })
})
afterAll(async () => {
  await sandbox.close()
  temp.cleanup()
})

describe('versionPresets', () => {
  it('reads the presets of a version the CLI pushed, parameters and default included', async () => {
    const directory = makeTemplateDir(temp.dir, 'with-presets')
    writeFileSync(
      join(directory, 'coder-presets.json'),
      JSON.stringify([
        { name: 'small', parameters: { cpu: '2' }, default: true },
        { name: 'Large GPU', parameters: { cpu: '16', gpu: 'true' } },
        { name: 'bare' }
      ])
    )
    const pushed = await pushTemplateVersion({
      client,
      cli: FAKE_CODER_PATH,
      coderUrl: sandbox.url,
      token: sandbox.token,
      organization: 'acme',
      template: 'docker',
      directory,
      version: 'v1',
      timeoutMs: 20_000,
      pollIntervalMs: 20,
      log: recordingLog().log,
      output: collector().stream
    })
    const before = sandbox.requests.length
    expect(await versionPresets(client, pushed.versionId)).toEqual({
      presets: [
        { name: 'small', parameters: [{ name: 'cpu', value: '2' }], isDefault: true },
        {
          name: 'Large GPU',
          parameters: [
            { name: 'cpu', value: '16' },
            { name: 'gpu', value: 'true' }
          ],
          isDefault: false
        },
        { name: 'bare', parameters: [], isDefault: false }
      ],
      duplicates: []
    })
    const reads = sandbox.requests.slice(before)
    expect(reads.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/v2/templateversions/${pushed.versionId}/presets`
    ])
  })

  it('reads a version without presets (coderd answers null) as none', async () => {
    const version = sandbox.seedVersion({ template: 'docker', name: 'v2' })
    expect(await versionPresets(client, version.id)).toEqual({ presets: [], duplicates: [] })
  })

  it('reads seeded presets', async () => {
    const version = sandbox.seedVersion({
      template: 'docker',
      name: 'v3',
      presets: [{ name: 'xl', parameters: { cpu: '32' } }]
    })
    const { presets } = await versionPresets(client, version.id)
    expect(presets).toEqual([
      { name: 'xl', parameters: [{ name: 'cpu', value: '32' }], isDefault: false }
    ])
  })

  it('fails with Coder’s own error on an unknown version', async () => {
    await expect(versionPresets(client, '00000000-0000-4000-8000-000000000000')).rejects.toThrow(
      /404/
    )
  })
})
