// The clients of a run: a coder-url whose token would travel in clear is warned about once, through
// the run's log, before any request (the rule itself: test/coder/cleartext.test.ts).
import { describe, expect, it } from '@jest/globals'
import { KubeConfig } from '@kubernetes/client-node'
import { createClients } from '../../src/clients.js'
import { type InputName, parseInputs, type RunContext } from '../../src/settings/parse.js'
import { recordingLog } from '../coder/helpers.js'

const CONTEXT: RunContext = {
  eventName: 'push',
  ref: 'refs/tags/v1.2.3',
  sha: '0123456789abcdef0123456789abcdef01234567',
  serverUrl: 'https://github.com',
  repository: 'acme/templates',
  runId: '77',
  runAttempt: '1',
  workspace: '/work/repo',
  subject: 'Add Go to the docker template'
}

function clientsFor(coderUrl: string): string[] {
  const inputs: Partial<Record<InputName, string>> = {
    'coder-url': coderUrl,
    'coder-token': 'coder-secret-token',
    template: 'docker',
    namespace: 'coder-tests',
    'gitops-repository': 'acme/gitops',
    'gitops-token': 'ghs_secret'
  }
  const parsed = parseInputs((name) => inputs[name] ?? '', CONTEXT, {
    isDirectory: (path) => path.startsWith('/work/repo'),
    readText: () => null
  })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
  const recorded = recordingLog()
  createClients(
    { settings: parsed.settings, kc: new KubeConfig(), context: CONTEXT, apiUrl: '' },
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
