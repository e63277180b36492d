// The tidy step against the sandbox Coder: a problem is a warning that names what stayed, never a
// failure of the run; dry-run sends no archive request.
import { describe, it, expect, beforeEach, afterEach } from '@jest/globals'
import { CoderClient } from '../../src/coder/client.js'
import type { StepContext } from '../../src/steps/step.js'
import { type TidyInput, tidyVersions } from '../../src/steps/tidy.js'
import { withVersionMarker } from '../../src/coder/version-identity.js'
import { startCoderSandbox, type CoderSandbox } from '../sandbox/coder/index.js'

let sandbox: CoderSandbox
let warnings: string[]
const context = (): StepContext => ({
  signal: new AbortController().signal,
  now: Date.now,
  log: {
    info: () => undefined,
    debug: () => undefined,
    warning: (text) => warnings.push(text),
    group: (_title, body) => body()
  }
})
const MARKED = withVersionMarker('m', 'abcdef0123456789', 'https://github.com/o/r/actions/runs/1')

beforeEach(async () => {
  warnings = []
  sandbox = await startCoderSandbox()
  sandbox.seedTemplate({ name: 'docker', versionName: 'v0' })
  for (const name of ['a', 'b', 'c', 'd']) {
    sandbox.seedVersion({ template: 'docker', name, message: MARKED })
  }
})
afterEach(async () => {
  await sandbox.close()
})

function input(overrides: Partial<TidyInput> = {}): TidyInput {
  return {
    settings: { keepVersions: 1, archiveFailed: false },
    dryRun: false,
    client: new CoderClient({
      url: sandbox.url,
      token: sandbox.token,
      retryDelayMs: 1,
      retries: 1
    }),
    organization: 'acme',
    template: 'docker',
    ours: null,
    testFailed: false,
    ...overrides
  }
}

const archived = (): string[] =>
  sandbox.backend
    .listVersions('acme', 'docker')
    .filter((v) => v.archived)
    .map((v) => v.name)

describe('tidyVersions', () => {
  it('archives beyond the newest N, oldest first', async () => {
    const result = await tidyVersions(input(), context())
    expect(result.ok && result.value.archived).toEqual(['a', 'b', 'c'])
    expect(archived()).toEqual(['a', 'b', 'c'])
    expect(warnings).toEqual([])
  })

  it('a version Coder refuses to archive is a warning that names it and why', async () => {
    sandbox.useVersion(sandbox.backend.findVersionByName('acme', 'docker', 'b')!.id)
    const result = await tidyVersions(input(), context())
    expect(result.ok && result.value.archived).toEqual(['a', 'c'])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^Version b was not archived \(keep-versions \/ archive-failed\): Coder refused: .+\. It stays in Coder\.$/
    )
  })

  it('dry-run lists and sends no archive request', async () => {
    const result = await tidyVersions(input({ dryRun: true }), context())
    expect(result.ok && result.value.wouldArchive).toEqual(['a', 'b', 'c'])
    expect(sandbox.requests.filter((r) => r.path.endsWith('/archive'))).toEqual([])
  })

  it('a list that cannot be read is a warning, not a failure', async () => {
    sandbox.failNextRequests('/api/v2/templates/', 503, 5, 'down for maintenance')
    const result = await tidyVersions(input(), context())
    expect(result.ok).toBe(true)
    expect(warnings.join('\n')).toMatch(/Archiving old versions stopped: .*HTTP 503/)
    expect(archived()).toEqual([])
  })

  it('an archive request that fails otherwise stops, and the warning names what stayed', async () => {
    sandbox.failNextRequests('/api/v2/templateversions/', 403, 5, 'forbidden')
    const result = await tidyVersions(input(), context())
    expect(result.ok).toBe(true)
    expect(result.ok && result.value.warning).toMatch(/These stay: a, b, c\.$/)
    expect(archived()).toEqual([])
  })

  it('a cancel while archiving is a warning that names what stayed', async () => {
    const cancel = new AbortController()
    const client = new CoderClient({
      url: sandbox.url,
      token: sandbox.token,
      signal: cancel.signal
    })
    sandbox.events.on('request', (request: { path: string }) => {
      if (request.path.endsWith('/archive')) cancel.abort()
    })
    const result = await tidyVersions(input({ client }), { ...context(), signal: cancel.signal })
    // The answer for a may come after the cancel: then the gate cannot tell, and says a stays.
    expect(result.ok && result.value.warning).toMatch(
      /^Archiving old versions stopped: the run was cancelled\. These stay: (a, )?b, c\.$/
    )
    expect(archived()).toEqual(['a'])
  })
})
