// A kubeconfig exec credential plugin that never answers must not hang a request past its client
// timeout or the caller's abort (client-node gives the plugin no time limit of its own).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { KubeConfig } from '@kubernetes/client-node'
import { loadKubeConfig } from '../../src/kube/config.js'
import { assertCoderK8sServed } from '../../src/kube/discovery.js'
import { postPromotion } from '../../src/kube/promote-request.js'
import { KubeAuthTimeoutError, isAbortError, kubeRequest } from '../../src/kube/request.js'
import { sendJson, startKubeServer } from './helpers/kubeServer.js'
import type { ScriptedKubeServer } from './helpers/kubeServer.js'

let dir: string
let pidFile: string
let server: ScriptedKubeServer

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kube-exec-timeout-'))
  pidFile = join(dir, 'plugin-pids')
  server = await startKubeServer(({ res }) => sendJson(res, 200, {}))
})

afterAll(async () => {
  // End the plugin processes this file started (by their recorded PIDs).
  if (existsSync(pidFile)) {
    for (const line of readFileSync(pidFile, 'utf8').split('\n')) {
      const pid = Number(line)
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {
          // already gone
        }
      }
    }
  }
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A kubeconfig whose user's exec plugin records its PID and then sleeps, never printing a credential. */
function stuckPluginConfig(userName: string): KubeConfig {
  const script = join(dir, `${userName}.sh`)
  writeFileSync(script, `#!/bin/sh\necho $$ >> '${pidFile}'\nexec sleep 60\n`, { mode: 0o755 })
  // A user name per test: client-node caches exec credentials by user name across KubeConfigs.
  const content = `apiVersion: v1
kind: Config
current-context: x
clusters:
- name: c
  cluster: { server: '${server.url}' }
users:
- name: ${userName}
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ${script}
      interactiveMode: Never
contexts:
- name: x
  context: { cluster: c, user: ${userName} }
`
  return loadKubeConfig({ kubeconfig: content, context: '' }).kc
}

const message = (ms: number): string =>
  `the kubeconfig's credential plugin did not answer within ${ms} ms`

describe('kubeRequest with a stuck exec credential plugin', () => {
  it('fails with the credential plugin timeout once the client timeout passes', async () => {
    const before = server.requests.length
    const error = await kubeRequest(stuckPluginConfig('stuck-get'), {
      method: 'GET',
      path: '/apis/coder.com/v1alpha1',
      timeoutMs: 200
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(KubeAuthTimeoutError)
    expect((error as Error).message).toContain(message(200))
    expect((error as Error).message).toContain(server.url)
    expect(server.requests.length).toBe(before)
  })

  it("ends with an abort error when the caller's signal aborts during the authentication", async () => {
    const controller = new AbortController()
    const pending = kubeRequest(stuckPluginConfig('stuck-abort'), {
      method: 'GET',
      path: '/apis/coder.com/v1alpha1',
      signal: controller.signal,
      timeoutMs: 60000
    })
    setTimeout(() => controller.abort(), 100)
    const error = await pending.catch((e: unknown) => e)
    expect(isAbortError(error)).toBe(true)
  })

  it('bounds discovery by its timeout', async () => {
    await expect(
      assertCoderK8sServed(stuckPluginConfig('stuck-discovery'), {
        needAggregation: false,
        timeoutMs: 200
      })
    ).rejects.toThrow(message(200))
  })

  it('makes the promote throw (nothing was sent) instead of an unclear answer', async () => {
    const before = server.requests.length
    await expect(
      postPromotion({
        kc: stuckPluginConfig('stuck-promote'),
        namespace: 'coder',
        template: 'acme.docker',
        versionID: '11111111-2222-4333-8444-000000000201',
        dryRun: false,
        timeoutMs: 200
      })
    ).rejects.toThrow(message(200))
    expect(server.requests.length).toBe(before)
  })
})
