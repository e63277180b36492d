// The version list (pagination) and the archive request against the sandbox Coder over real HTTP.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { CoderClient } from '../../src/coder/client.js'
import { archiveVersion, listTemplateVersions } from '../../src/coder/versions.js'
import { startCoderSandbox, type CoderSandbox } from '../sandbox/coder/index.js'

let sandbox: CoderSandbox
let client: CoderClient
let templateId: string

beforeAll(async () => {
  sandbox = await startCoderSandbox()
  client = new CoderClient({ url: sandbox.url, token: sandbox.token, retryDelayMs: 5 })
  templateId = sandbox.seedTemplate({ name: 'docker', versionName: 'v0' }).id
  for (let i = 1; i <= 6; i++) sandbox.seedVersion({ template: 'docker', name: `v${i}` })
  sandbox.seedVersion({ template: 'docker', name: 'old-archived', archived: true })
})
afterAll(async () => {
  await sandbox.close()
})

const idOf = (name: string): string => {
  const found = sandbox.backend.findVersionByName('acme', 'docker', name)
  if (!found) throw new Error(`no version ${name}`)
  return found.id
}

describe('listTemplateVersions', () => {
  it('follows after_id over more than one page, oldest first, archived left out', async () => {
    const before = sandbox.requests.length
    const listed = await listTemplateVersions(client, templateId, 3)
    expect(listed.map((v) => v.name)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6'])
    const pages = sandbox.requests
      .slice(before)
      .filter((r) => r.path.includes(`/templates/${templateId}/versions`))
    // 7 versions in pages of 3: 3 + 3 + 1, the last short page ends the list.
    expect(pages.map((r) => new URL(r.path, 'http://x').searchParams.get('after_id'))).toEqual([
      null,
      idOf('v2'),
      idOf('v5')
    ])
  })

  it('lists the archived versions too when asked (include_archived=true), as keep-tests needs', async () => {
    const before = sandbox.requests.length
    const listed = await listTemplateVersions(client, templateId, 3, true)
    expect(listed.map((v) => v.name)).toContain('old-archived')
    expect(listed).toHaveLength(8)
    const pages = sandbox.requests
      .slice(before)
      .filter((r) => r.path.includes(`/templates/${templateId}/versions`))
    for (const page of pages)
      expect(new URL(page.path, 'http://x').searchParams.get('include_archived')).toBe('true')
  })

  it('stops on a full last page after one more (empty) page', async () => {
    const listed = await listTemplateVersions(client, templateId, 7)
    expect(listed).toHaveLength(7)
  })

  it('fails with a message that names the template when it is unknown', async () => {
    await expect(
      listTemplateVersions(client, '00000000-0000-0000-0000-000000000000')
    ).rejects.toThrow(/HTTP 404/)
  })
})

describe('archiveVersion', () => {
  it('archives an unused version: it leaves the default list', async () => {
    expect(await archiveVersion(client, idOf('v1'))).toEqual({ archived: true })
    const listed = await listTemplateVersions(client, templateId)
    expect(listed.map((v) => v.name)).not.toContain('v1')
  })

  it('is refused for a version already archived (400)', async () => {
    expect(await archiveVersion(client, idOf('old-archived'))).toMatchObject({
      archived: false,
      why: 'already-archived'
    })
  })

  it('is refused for the active version (500)', async () => {
    expect(await archiveVersion(client, idOf('v0'))).toMatchObject({
      archived: false,
      why: 'refused'
    })
  })

  it('is refused for a version a workspace uses (500)', async () => {
    sandbox.useVersion(idOf('v2'))
    expect(await archiveVersion(client, idOf('v2'))).toMatchObject({
      archived: false,
      why: 'refused'
    })
  })

  it('says when the version no longer exists (404)', async () => {
    expect(await archiveVersion(client, '00000000-0000-0000-0000-000000000000')).toMatchObject({
      archived: false,
      why: 'gone'
    })
  })
})
