// The sandbox Coder's REST API for the token check, the promotion guard and scripted races:
// GET /api/v2/users/me, 401 on every route for a bad token, created_at of
// versions, and versions created or activated by another user. Real HTTP with fetch.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import {
  SIGNED_OUT_MESSAGE,
  startCoderSandbox,
  type ActivationRecord,
  type CoderSandbox
} from '../../sandbox/coder/index.js'

let sandbox: CoderSandbox

beforeAll(async () => {
  sandbox = await startCoderSandbox({ importDelayMs: 5 })
})
afterAll(async () => sandbox.close())

interface Answer {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
}

async function api(
  method: string,
  path: string,
  options: { token?: string | null; json?: unknown; body?: Buffer; type?: string } = {}
): Promise<Answer> {
  const token = options.token === undefined ? sandbox.token : options.token
  const headers: Record<string, string> = {}
  if (token !== null) headers['Coder-Session-Token'] = token
  let body: string | Buffer | undefined
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json'
    body = JSON.stringify(options.json)
  } else if (options.body) {
    headers['Content-Type'] = options.type ?? 'application/x-tar'
    body = options.body
  }
  const response = await fetch(sandbox.url + path, { method, headers, body })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

/** Uploads a (tiny, unique) archive and creates a version of `template` through the REST API. */
async function createVersion(templateId: string, name: string, token = sandbox.token) {
  const file = await api('POST', '/api/v2/files', {
    token,
    body: Buffer.from(`archive of ${name} ${Math.random()}`)
  })
  expect(file.status).toBe(201)
  const created = await api('POST', '/api/v2/organizations/default/templateversions', {
    token,
    json: { template_id: templateId, name, file_id: file.body.id, storage_method: 'file' }
  })
  expect(created.status).toBe(201)
  return created.body
}

describe('GET /api/v2/users/me', () => {
  it('answers the token’s user', async () => {
    const me = await api('GET', '/api/v2/users/me')
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({
      id: sandbox.user.id,
      username: 'ci-bot',
      email: 'ci-bot@example.com',
      status: 'active',
      roles: [{ name: 'template-admin', display_name: 'Template Admin' }]
    })
    expect(me.body.organization_ids).toHaveLength(1)
  })

  it('answers another user for that user’s token', async () => {
    const alice = sandbox.addUser({ username: 'alice', roles: ['owner'] })
    const me = await api('GET', '/api/v2/users/me', { token: alice.token })
    expect(me.body).toMatchObject({
      id: alice.id,
      username: 'alice',
      roles: [{ name: 'owner', display_name: 'Owner' }]
    })
    expect(alice.token).not.toBe(sandbox.token)
  })

  it('accepts the token as cookie or query parameter too (coder-cli.md §3)', async () => {
    const cookie = await fetch(`${sandbox.url}/api/v2/users/me`, {
      headers: { Cookie: `coder_session_token=${sandbox.token}` }
    })
    expect(cookie.status).toBe(200)
    await cookie.text() // an unread body keeps its connection busy
    const query = await fetch(`${sandbox.url}/api/v2/users/me?coder_session_token=${sandbox.token}`)
    expect(query.status).toBe(200)
    await query.text()
  })
})

describe('401 on every route for a bad or missing token', () => {
  const id = '11111111-2222-4333-8444-555555555555'
  const routes: [string, string, unknown?][] = [
    ['GET', '/api/v2/users/me'],
    ['GET', '/api/v2/users/me/organizations'],
    ['GET', '/api/v2/organizations/default'],
    ['GET', '/api/v2/organizations/default/templates/docker'],
    ['GET', '/api/v2/organizations/default/templates/docker/versions/v1'],
    ['GET', `/api/v2/templates/${id}/versions`],
    ['GET', `/api/v2/templateversions/${id}`],
    ['PATCH', `/api/v2/templateversions/${id}/cancel`],
    ['POST', '/api/v2/files'],
    ['POST', '/api/v2/organizations/default/templateversions', { name: 'x', file_id: id }],
    ['POST', '/api/v2/organizations/default/templates', { name: 'x' }],
    ['PATCH', `/api/v2/templates/${id}/versions`, { id }],
    ['GET', '/api/v2/no-such-route']
  ]

  // Objects, not rows: jest-each hands a `done` callback to a test whose arity exceeds the row's
  // length, so a 2-value row against (method, path, json) would wait for done() forever.
  const cases = routes.map(([method, path, json]) => ({ method, path, json }))
  it.each(cases)('$method $path', async ({ method, path, json }) => {
    const filesBefore = sandbox.files.size
    const wrong = await api(method, path, {
      token: 'bad-token',
      ...(json !== undefined ? { json } : method === 'POST' ? { body: Buffer.from('x') } : {})
    })
    expect(wrong).toEqual({
      status: 401,
      body: { message: SIGNED_OUT_MESSAGE, detail: 'API key is invalid.' }
    })
    const missing = await api(method, path, { token: null })
    expect(missing).toEqual({
      status: 401,
      body: {
        message: SIGNED_OUT_MESSAGE,
        detail: 'Cookie "coder_session_token" or header "Coder-Session-Token" must be provided.'
      }
    })
    expect(sandbox.files.size).toBe(filesBefore)
  })

  it('uses the text of coder-cli.md §4', () => {
    expect(SIGNED_OUT_MESSAGE.startsWith('You are signed out or your session has expired')).toBe(
      true
    )
  })
})

describe('created_at of versions', () => {
  it('is strictly increasing per push, even within one millisecond, in every version answer', async () => {
    const template = sandbox.seedTemplate({ name: 'clock' })
    const made: Awaited<ReturnType<typeof createVersion>>[] = []
    for (const name of ['a1', 'a2', 'a3', 'a4']) made.push(await createVersion(template.id, name))
    const stamps = made.map((v) => Date.parse(v.created_at))
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThan(stamps[i - 1])
    // Every answer that carries a version carries the same created_at.
    const byId = await api('GET', `/api/v2/templateversions/${made[1].id}`)
    const byName = await api('GET', '/api/v2/organizations/default/templates/clock/versions/a2')
    const list = await api('GET', `/api/v2/templates/${template.id}/versions`)
    expect(byId.body.created_at).toBe(made[1].created_at)
    expect(byName.body.created_at).toBe(made[1].created_at)
    expect(list.body.find((v: { id: string }) => v.id === made[1].id).created_at).toBe(
      made[1].created_at
    )
    expect(sandbox.backend.findVersionById(made[1].id)?.createdAt).toBe(made[1].created_at)
  })

  it('takes an explicit createdAt for an older or newer seeded version', async () => {
    sandbox.seedTemplate({ name: 'dated', createdAt: '2024-01-01T00:00:00.000Z' })
    const older = sandbox.seedVersion({
      template: 'dated',
      name: 'old',
      createdAt: new Date('2023-06-01T12:00:00Z')
    })
    const newer = sandbox.seedVersion({
      template: 'dated',
      name: 'future',
      createdAt: '2999-01-01T00:00:00.000Z'
    })
    expect(older.createdAt).toBe('2023-06-01T12:00:00.000Z')
    const initial = await api(
      'GET',
      '/api/v2/organizations/default/templates/dated/versions/initial'
    )
    expect(initial.body.created_at).toBe('2024-01-01T00:00:00.000Z')
    const future = await api('GET', `/api/v2/templateversions/${newer.id}`)
    expect(future.body.created_at).toBe('2999-01-01T00:00:00.000Z')
    // A push after a seeded future version is still stamped with the sandbox clock (older).
    const template = sandbox.backend.findTemplate('acme', 'dated')!
    const pushed = await createVersion(template.id, 'pushed')
    expect(Date.parse(pushed.created_at)).toBeLessThan(Date.parse(future.body.created_at))
  })
})

describe('another user and another writer', () => {
  it('creates versions as another user over REST (created_by) and when seeded', async () => {
    const bob = sandbox.addUser({ username: 'bob' })
    const template = sandbox.seedTemplate({ name: 'shared' })
    const theirs = await createVersion(template.id, 'by-bob', bob.token)
    // avatar_url is omitempty in codersdk: absent for a user without an avatar
    expect(theirs.created_by).toEqual({ id: bob.id, username: 'bob' })
    const ours = await createVersion(template.id, 'by-us')
    expect(ours.created_by.username).toBe('ci-bot')
    const seeded = sandbox.seedVersion({ template: 'shared', name: 'seeded', createdBy: 'bob' })
    expect(seeded.createdBy).toBe('bob')
    const read = await api('GET', `/api/v2/templateversions/${seeded.id}`)
    expect(read.body.created_by.username).toBe('bob')
    expect(() =>
      sandbox.seedVersion({ template: 'shared', name: 'x', createdBy: 'nobody' })
    ).toThrow('no user nobody')
  })

  it('records every activation with its writer: REST, backend (operator), activateVersion', async () => {
    const carol = sandbox.addUser({ username: 'carol' })
    const template = sandbox.seedTemplate({ name: 'race' })
    const initialId = template.activeVersionId
    const v2 = sandbox.seedVersion({ template: 'race', name: 'v2' })
    const v3 = sandbox.seedVersion({ template: 'race', name: 'v3' })
    const seen: ActivationRecord[] = []
    const listener = (record: ActivationRecord) => seen.push(record)
    sandbox.events.on('activated', listener)
    try {
      const patched = await api('PATCH', `/api/v2/templates/${template.id}/versions`, {
        token: carol.token,
        json: { id: v2.id }
      })
      expect(patched.body).toEqual({ message: 'Updated the active template version!' })
      sandbox.backend.activate(template.id, v3.id)
      sandbox.activateVersion({ template: 'race', version: 'v2' })
      sandbox.activateVersion({ template: 'race', version: 'initial', by: 'release-manager' })
    } finally {
      sandbox.events.off('activated', listener)
    }
    expect(seen.map((a) => [a.by, a.versionId])).toEqual([
      ['carol', v2.id],
      ['coder-k8s-operator', v3.id],
      ['another-writer', v2.id],
      ['release-manager', initialId]
    ])
    expect(seen[1].previousVersionId).toBe(v2.id)
    expect(sandbox.activations.slice(-4)).toEqual(seen)
    const now = await api('GET', '/api/v2/organizations/default/templates/race')
    expect(now.body.active_version_id).toBe(initialId)
  })

  it('applies Coder’s activation rules to another writer too', () => {
    sandbox.seedTemplate({ name: 'strict' })
    sandbox.seedVersion({ template: 'strict', name: 'broken', jobStatus: 'failed' })
    expect(() => sandbox.activateVersion({ template: 'strict', version: 'broken' })).toThrow(
      'Only versions that have been built successfully can be promoted.'
    )
  })
})
