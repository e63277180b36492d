// End to end, kubeconfig errors say what was given: a path, base64 text, text that is not a
// kubeconfig, or no kubeconfig anywhere each fail as an invalid input before any request, and the
// value is never shown. A coder-url with credentials names that rule and never echoes them.
import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { BUNDLE } from '../sandbox/action-runner.js'
import { startWorld, type World } from '../sandbox/world.js'
import { expectNoSecrets } from './expect.js'

if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run package`)

let world: World
beforeAll(async () => {
  world = await startWorld({ noSync: true })
})
afterAll(async () => {
  await world.close()
})

function requestCount(w: World): number {
  return w.coder.requests.length + w.kube.requests.length + w.github.requests.length
}

/** Every line of the run except the mask commands the runner consumes. */
function shown(text: string): string {
  return text
    .split('\n')
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n')
}

describe('a bad kubeconfig fails as an input error, before any request', () => {
  it.each([
    ['a path', () => '/home/runner/.kube/config', 'looks like a file path'],
    [
      'base64 text',
      () => Buffer.from(world.kube.kubeconfig()).toString('base64'),
      'looks base64-encoded: decode it (for example `base64 -d`)'
    ],
    ['garbage', () => 'not-a-kubeconfig-at-all', 'is plain text, not a kubeconfig'],
    ['YAML of another kind', () => 'kind: Secret\ndata:\n  a: b\n', 'YAML but not a kubeconfig'],
    ['not YAML', () => 'clusters: [\n  {name: x\n', 'is not YAML']
  ])('%s', async (_name, value, words) => {
    const given = value()
    const before = requestCount(world)
    const run = await world.run({ kubeconfig: given })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('Input "kubeconfig" is invalid: the value')
    expect(run.stdout).toContain(words)
    expect(run.stdout).not.toContain('current-context')
    expect(shown(run.everything)).not.toContain(given.trim().split('\n')[0])
    expect(requestCount(world)).toBe(before)
    expectNoSecrets(world, run, false)
  })

  it('no kubeconfig anywhere names the places looked at', async () => {
    const before = requestCount(world)
    // The runner gives no KUBECONFIG and a HOME without .kube/config (action-runner.ts).
    const run = await world.run({ kubeconfig: '' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('Input "kubeconfig" is invalid: no kubeconfig found')
    expect(run.stdout).toContain('the KUBECONFIG environment variable is not set')
    expect(run.stdout).toMatch(/\/\.kube\/config does not exist/)
    expect(run.stdout).not.toContain('localhost:8080')
    expect(requestCount(world)).toBe(before)
  })

  it('a coder-url with credentials names the rule and never echoes them', async () => {
    const before = requestCount(world)
    const url = new URL(world.coder.url)
    url.username = 'admin'
    url.password = 'hunter2-coder-password'
    const run = await world.run({ 'coder-url': url.toString() })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('Input "coder-url" is invalid: must not contain credentials')
    expect(shown(run.everything)).not.toContain('hunter2-coder-password')
    expect(shown(run.everything)).not.toContain('admin:')
    expect(run.stdout).toContain('::add-mask::hunter2-coder-password')
    expect(requestCount(world)).toBe(before)
  })
})
