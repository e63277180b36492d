// readTestState against the sandbox API server: keep-tests asks whether a test still runs before it
// removes its manifest; a read that fails or is refused tells nothing (the manifest stays).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { loadKubeConfig } from '../../src/kube/config.js'
import { readTestState } from '../../src/kube/test-state.js'
import { startKubeSandbox, type KubeSandbox } from '../sandbox/kube/server.js'
import { FakeCoder, testManifest } from '../sandbox-tests/kube/helpers.js'

const NS = 'coder'
let kube: KubeSandbox

beforeAll(async () => {
  kube = await startKubeSandbox({ coder: new FakeCoder('acme'), controller: false })
  kube.store.create(NS, testManifest('running-one'))
  kube.store.create(NS, testManifest('passed-one'))
  kube.store.updateStatus(NS, 'passed-one', { phase: 'Succeeded' })
  kube.store.create(NS, testManifest('failed-one'))
  kube.store.updateStatus(NS, 'failed-one', { phase: 'Failed' })
  kube.store.create(NS, testManifest('new-one'))
})
afterAll(() => kube.close())

const read = (name: string) =>
  readTestState(
    loadKubeConfig({ kubeconfig: kube.kubeconfig(), context: '' }).kc,
    NS,
    name,
    new AbortController().signal
  )

describe('readTestState', () => {
  it.each([
    ['a test with no status yet', 'new-one', 'running'],
    ['a Succeeded test', 'passed-one', 'final'],
    ['a Failed test', 'failed-one', 'final'],
    ['a test that is not there', 'absent-one', 'absent']
  ])('%s: %s -> %s', async (_, name, state) => {
    expect(await read(name)).toBe(state)
  })

  it('a running phase is running', async () => {
    kube.store.updateStatus(NS, 'running-one', { phase: 'Running' })
    expect(await read('running-one')).toBe('running')
  })

  it('a refused read tells nothing: unread', async () => {
    kube.rbac.deny({ verb: 'get', group: 'coder.com', resource: 'codertemplatetests' })
    expect(await read('passed-one')).toBe('unread')
  })
})
