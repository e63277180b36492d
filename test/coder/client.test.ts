// CoderClient against the sandbox Coder over real HTTP.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CoderApiError, CoderClient } from '../../src/coder/client.js'
import { startCoderSandbox, type CoderSandbox } from '../sandbox/coder/index.js'
import { FakeClock } from '../timing/fake-clock.js'

let sandbox: CoderSandbox
let client: CoderClient
// The client's retries pause on this clock: the default backoff (1 s, 2 s, 4 s), taken at once.
const clock = new FakeClock()

beforeAll(async () => {
  sandbox = await startCoderSandbox({ defaultOrganization: 'acme', extraOrganizations: ['beta'] })
  client = new CoderClient({ url: `${sandbox.url}/`, token: sandbox.token, sleep: clock.sleep })
  sandbox.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
  sandbox.seedVersion({
    template: 'docker',
    name: 'v1-broken',
    jobStatus: 'failed',
    jobError: 'boom'
  })
})
afterAll(async () => {
  await sandbox.close()
})

const rejection = async (promise: Promise<unknown>): Promise<CoderApiError> => {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(CoderApiError)
    return error as CoderApiError
  }
  throw new Error('expected a rejection')
}

describe('CoderClient', () => {
  it('reads the server version without a token', async () => {
    const anonymous = new CoderClient({ url: sandbox.url, token: '' })
    expect((await anonymous.buildInfo()).version).toBe('v2.20.1')
  })

  it('resolves "" and the alias default to the canonical default organization name', async () => {
    expect((await client.organization('')).name).toBe('acme')
    const viaAlias = await client.organization('default')
    expect(viaAlias.name).toBe('acme')
    expect(viaAlias.is_default).toBe(true)
    expect(sandbox.requests.some((r) => r.path === '/api/v2/organizations/default')).toBe(true)
  })

  it('resolves a real name and an ID', async () => {
    const beta = await client.organization('beta')
    expect(beta.name).toBe('beta')
    expect((await client.organization(beta.id)).name).toBe('beta')
  })

  it('fails clearly for an unknown organization', async () => {
    const error = await rejection(client.organization('nope'))
    expect(error.status).toBe(404)
    expect(error.message).toContain('Coder organization "nope" not found')
    expect(error.message).toContain('Organization "nope" not found.')
    expect(error.message).toContain('Check the organization input')
  })

  it('fails clearly for a bad token, without the token in the error', async () => {
    const secret = 'abcdef1234-secretsecretsecret'
    const bad = new CoderClient({ url: sandbox.url, token: secret })
    const error = await rejection(bad.organization(''))
    expect(error.status).toBe(401)
    expect(error.message).toContain('You are signed out or your session has expired')
    expect(error.message).toContain('Check the coder-token input')
    expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(
      secret
    )
  })

  it('finds a template case-insensitively and gives null for an absent one', async () => {
    const template = await client.template('acme', 'Docker')
    expect(template?.name).toBe('docker')
    expect(template?.active_version_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(await client.template('acme', 'absent')).toBeNull()
  })

  it('looks versions up by exact name: 200 with job status, 404 as null', async () => {
    const active = await client.versionByName('acme', 'docker', 'v0.9.0')
    expect(active?.job.status).toBe('succeeded')
    const broken = await client.versionByName('acme', 'docker', 'v1-broken')
    expect(broken?.job).toMatchObject({ status: 'failed', error: 'boom' })
    expect(await client.versionByName('acme', 'docker', 'V0.9.0')).toBeNull() // case-sensitive
    expect(await client.versionByName('acme', 'absent', 'v0.9.0')).toBeNull()
    expect((await client.versionById(active!.id))?.name).toBe('v0.9.0')
  })

  it('retries a GET after 503 and 429, and gives up after the bounded retries', async () => {
    sandbox.failNextRequests('/api/v2/organizations/acme/templates/docker', 503, 1)
    sandbox.failNextRequests('/api/v2/organizations/acme/templates/docker', 429, 1)
    const before = sandbox.requests.length
    expect((await client.template('acme', 'docker'))?.name).toBe('docker')
    const seen = sandbox.requests.slice(before).map((r) => r.status)
    expect(seen).toEqual([503, 429, 200])

    // 1 try + 3 retries, then the error; the fifth request would succeed again.
    sandbox.failNextRequests('/api/v2/organizations/acme/templates/docker', 502, 4, 'Bad gateway.')
    const start = sandbox.requests.length
    const pauses = clock.slept.length
    const error = await rejection(client.template('acme', 'docker'))
    expect(sandbox.requests.length - start).toBe(4)
    expect(clock.slept.slice(pauses)).toEqual([1000, 2000, 4000])
    expect(error.status).toBe(502)
    expect(error.message).toContain('Bad gateway.')
    expect((await client.template('acme', 'docker'))?.name).toBe('docker')
  })

  it('does not retry a 404 or a 400', async () => {
    const before = sandbox.requests.length
    expect(await client.template('acme', 'absent')).toBeNull()
    expect(sandbox.requests.length - before).toBe(1)
  })

  it('reports an unreachable server and a server too slow to answer', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const unreachable = new CoderClient({
      url: `http://127.0.0.1:${port}`,
      token: 't',
      retries: 1,
      sleep: clock.sleep
    })
    const error = await rejection(unreachable.buildInfo())
    expect(error.status).toBe(0)
    expect(error.message).toContain('is reachable from the runner')

    const silent = createServer(() => {
      // never answers
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const slow = new CoderClient({
        url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        token: 't',
        timeoutMs: 50,
        retries: 0
      })
      const timeout = await rejection(slow.buildInfo())
      expect(timeout.message).toContain('no answer within 50 ms')
    } finally {
      silent.closeAllConnections()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
  })

  it('waits as Retry-After says, up to 30 s, before it retries a GET', async () => {
    const answers = [
      { status: 503, headers: { 'retry-after': '7' }, body: '{"message":"Busy."}' },
      { status: 429, headers: { 'retry-after': '120' }, body: '{"message":"Slow down."}' },
      { status: 200, headers: {}, body: '{"version":"v2.20.1"}' }
    ]
    const busy = createServer((_, response) => {
      const answer = answers.shift()!
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
      response.end(answer.body)
    })
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    try {
      const own = new FakeClock()
      const patient = new CoderClient({
        url: `http://127.0.0.1:${(busy.address() as AddressInfo).port}`,
        token: 't',
        sleep: own.sleep
      })
      expect((await patient.buildInfo()).version).toBe('v2.20.1')
      expect(own.slept).toEqual([7000, 30_000])
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()))
    }
  })

  it('stops during a backoff when the caller aborts, with the reason', async () => {
    const controller = new AbortController()
    const reason = new Error('cancelled during the pause')
    const own = new FakeClock(0, () => controller.abort(reason))
    const interrupted = new CoderClient({
      url: sandbox.url,
      token: sandbox.token,
      signal: controller.signal,
      sleep: own.sleep
    })
    sandbox.failNextRequests('/api/v2/organizations/acme/templates/docker', 502, 1, 'Bad gateway.')
    const start = sandbox.requests.length
    await expect(interrupted.template('acme', 'docker')).rejects.toBe(reason)
    expect(sandbox.requests.length - start).toBe(1)
    expect(own.slept).toEqual([1000])
  })

  it('stops at once when the caller aborts', async () => {
    const controller = new AbortController()
    controller.abort(new Error('cancelled by the runner'))
    const aborted = new CoderClient({
      url: sandbox.url,
      token: sandbox.token,
      signal: controller.signal
    })
    await expect(aborted.template('acme', 'docker')).rejects.toThrow('cancelled by the runner')
  })
})
