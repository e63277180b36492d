// The clients of a run: a coder-url whose token would travel in clear is warned about once, through
// the run's log, before any request (the rule itself: test/coder/cleartext.test.ts).
import { describe, expect, it } from '@jest/globals'
import { KubeConfig } from '@kubernetes/client-node'
import { createClients } from '../../src/clients.js'
import { recordingLog } from '../coder/helpers.js'
import { parseWith, RUN_CONTEXT } from './settings/settings-fixture.js'

function clientsFor(coderUrl: string): string[] {
  const parsed = parseWith({ 'coder-url': coderUrl }, RUN_CONTEXT, {
    isDirectory: (path) => path.startsWith('/work/repo'),
    readText: () => null
  })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
  const recorded = recordingLog()
  createClients(
    { settings: parsed.settings, kc: new KubeConfig(), context: RUN_CONTEXT, apiUrl: '' },
    new AbortController().signal,
    recorded.log
  )
  return recorded.warnings
}

describe('createClients', () => {
  it.each([
    ['http on a remote host', 'http://coder.internal:3000', 1],
    ['https', 'https://coder.example.com', 0],
    ['http on the loopback', 'http://127.0.0.1:3000', 0]
  ])('%s: %i warning(s)', (_what, url, count) => {
    const warnings = clientsFor(url)
    expect(warnings).toHaveLength(count)
    if (count) expect(warnings[0]).toContain('the Coder session token travels in clear')
    expect(warnings.join('')).not.toContain('coder-secret-token')
  })
})
