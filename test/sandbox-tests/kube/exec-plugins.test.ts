// Exec credential plugin fixtures (test/sandbox/kube/exec-plugins.ts) against the sandbox, with the
// real @kubernetes/client-node and, when installed, kubectl: what each plugin makes the client do,
// including where a credential shows up in an error (the gate must not print such errors raw).
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node'
import { kubeRequest, maskCredentialsWith } from '../../../src/kube/request.js'
import { ExecPlugins } from '../../sandbox/kube/exec-plugins.js'
import { findKubectl } from '../../sandbox/kube/kubectl-binary.js'
import { startKubeSandbox } from '../../sandbox/kube/server.js'
import type { KubeSandbox } from '../../sandbox/kube/server.js'
import { FakeCoder, testManifest } from './helpers.js'

const NS = 'coder-tests'
let kube: KubeSandbox
let plugins: ExecPlugins

beforeAll(async () => {
  kube = await startKubeSandbox({ coder: new FakeCoder('acme'), controller: false })
  kube.store.create(NS, testManifest('docker-v1'))
  plugins = new ExecPlugins(kube)
})
afterAll(async () => {
  await kube.close()
  plugins.cleanup()
})

const load = (kubeconfig: string): KubeConfig => {
  const kc = new KubeConfig()
  kc.loadFromString(kubeconfig)
  return kc
}

const getTest = (config: string | KubeConfig) => {
  const kc = typeof config === 'string' ? load(config) : config
  return kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group: 'coder.com',
    version: 'v1alpha1',
    namespace: NS,
    plural: 'codertemplatetests',
    name: 'docker-v1'
  })
}

describe('exec credential plugins with @kubernetes/client-node', () => {
  it('(b) a valid ExecCredential authenticates; client-node caches it by user name', async () => {
    const plugin = plugins.execCredential()
    const kc = load(plugin.kubeconfig)
    const before = kube.requests.length
    expect((await getTest(kc)).metadata.name).toBe('docker-v1')
    expect((await getTest(kc)).metadata.name).toBe('docker-v1')
    expect(kube.requests.slice(before).map((r) => r.status)).toEqual([200, 200])
    // client-node 2.x keeps the credential per KubeConfig, keyed by the user's name.
    expect(plugin.calls()).toBe(1)
    await getTest(plugin.kubeconfig)
    expect(plugin.calls()).toBe(2)
    const second = plugins.execCredential()
    expect(second.user).not.toBe(plugin.user)
  })

  it('(b) a token the server does not know gives 401 from the server', async () => {
    const plugin = plugins.execCredential({ token: 'not-the-sandbox-token' })
    const before = kube.requests.length
    await expect(getTest(plugin.kubeconfig)).rejects.toMatchObject({ code: 401 })
    expect(kube.requests.slice(before).map((r) => r.status)).toEqual([401])
  })

  it('(a) a bare token fails in client-node before any request, quoting the token’s start', async () => {
    const plugin = plugins.bareToken({ token: 'sandbox-secret-token-0123' })
    const before = kube.requests.length
    const error = (await getTest(plugin.kubeconfig).catch((e: unknown) => e)) as Error
    expect(error).toBeInstanceOf(SyntaxError)
    // Node's JSON.parse error shows the first characters of the output: a secret leak if printed.
    expect(error.message).toContain('sandbox-se')
    expect(plugin.calls()).toBe(1)
    expect(kube.requests.length).toBe(before)
  })

  it('(c) a failing plugin rejects with its stderr, which here carries the token', async () => {
    const plugin = plugins.failing()
    const before = kube.requests.length
    const error = (await getTest(plugin.kubeconfig).catch((e: unknown) => e)) as Error
    expect(error.message).toContain(kube.token)
    expect(kube.requests.length).toBe(before)
  })
})

const kubectl = findKubectl()
if (!kubectl) console.warn('kubectl is not installed: the exec plugin kubectl tests are skipped')
const withKubectl = kubectl ? describe : describe.skip

withKubectl('exec credential plugins with kubectl', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kube-exec-kubectl-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const run = (kubeconfig: string, args: string[]) => {
    const file = join(dir, `config-${Math.random().toString(36).slice(2)}`)
    writeFileSync(file, kubeconfig, { mode: 0o600 })
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        kubectl!,
        args,
        { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: file }, timeout: 20_000 },
        (e, stdout, stderr) =>
          resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr })
      )
    })
  }

  it('(b) kubectl authenticates with the ExecCredential', async () => {
    const result = await run(plugins.execCredential({ namespace: NS }).kubeconfig, [
      'get',
      'codertemplatetest',
      'docker-v1',
      '-o',
      'jsonpath={.metadata.name}'
    ])
    expect(result.stderr).toBe('')
    expect(result.stdout).toBe('docker-v1')
  })

  it('(a) kubectl refuses a bare token', async () => {
    const result = await run(plugins.bareToken({ namespace: NS }).kubeconfig, [
      'get',
      'codertemplatetests'
    ])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain('decoding stdout')
  })
})

describe('exec credential plugins with the gate (src/kube/request.ts)', () => {
  it('an error never quotes the plugin output, bare token or stderr', async () => {
    for (const plugin of [
      plugins.bareToken({ token: 'sandbox-secret-token-0123' }),
      plugins.failing({ stderr: 'denied for sandbox-secret-token-0123' })
    ]) {
      const error = (await kubeRequest(load(plugin.kubeconfig), {
        method: 'GET',
        path: '/apis',
        timeoutMs: 5000
      }).catch((e: unknown) => e)) as Error
      expect(error.message).toContain('cannot authenticate')
      expect(error.message).not.toMatch(/sandbox-se|0123/)
    }
  })

  it('masks the token that a plugin returns, once', async () => {
    const masked: string[] = []
    maskCredentialsWith((secret) => masked.push(secret))
    try {
      const plugin = plugins.execCredential({ token: kube.token })
      const kc = load(plugin.kubeconfig)
      for (let i = 0; i < 2; i++) await kubeRequest(kc, { method: 'GET', path: '/apis' })
      expect(masked).toEqual([kube.token])
    } finally {
      maskCredentialsWith(() => {})
    }
  })
})
