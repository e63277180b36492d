import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadKubeConfig } from '../../src/kube/config.js'
import { assertCoderK8sServed } from '../../src/kube/discovery.js'
import {
  apiResourceList,
  sendJson,
  startKubeServer,
  tokenKubeconfig
} from './helpers/kubeServer.js'

// Only parsed, never used for TLS: a dummy PEM is enough.
const DUMMY_KEY_PEM = [
  '-----BEGIN PRIVATE KEY-----',
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDdummykeyline1',
  'QWERTYUIOPASDFGHJKLZXCVBNMqwertyuiopasdfghjklzxcvbnm0123dummyline2',
  '-----END PRIVATE KEY-----',
  ''
].join('\n')
const DUMMY_CERT_PEM = '-----BEGIN CERTIFICATE-----\nMIIBdummycert\n-----END CERTIFICATE-----\n'
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64')

function twoContextKubeconfig(): string {
  return `apiVersion: v1
kind: Config
current-context: alpha
clusters:
- name: alpha-cluster
  cluster:
    server: https://alpha.example:6443
- name: beta-cluster
  cluster:
    server: https://beta.example:6443
    insecure-skip-tls-verify: true
users:
- name: alpha-user
  user:
    token: alpha-secret-token
- name: beta-user
  user:
    client-certificate-data: ${b64(DUMMY_CERT_PEM)}
    client-key-data: ${b64(DUMMY_KEY_PEM)}
- name: basic-user
  user:
    username: admin
    password: hunter2-password
contexts:
- name: alpha
  context: { cluster: alpha-cluster, user: alpha-user }
- name: beta
  context: { cluster: beta-cluster, user: beta-user, namespace: coder }
`
}

describe('loadKubeConfig', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kube-config-test-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('loads content with a token user and returns the token as a secret', () => {
    const { kc, secrets } = loadKubeConfig({
      kubeconfig: tokenKubeconfig('https://k8s.example:6443', 'abc-token-123'),
      context: ''
    })
    expect(kc.getCurrentContext()).toBe('test')
    expect(kc.getCurrentCluster()?.server).toBe('https://k8s.example:6443')
    expect(secrets).toContain('abc-token-123')
  })

  it('uses the current-context when no context is given', () => {
    const { kc } = loadKubeConfig({ kubeconfig: twoContextKubeconfig(), context: '' })
    expect(kc.getCurrentCluster()?.server).toBe('https://alpha.example:6443')
    expect(kc.getCurrentUser()?.name).toBe('alpha-user')
  })

  it('honours the context and returns client key data in base64, PEM and per-line forms', () => {
    const { kc, secrets } = loadKubeConfig({ kubeconfig: twoContextKubeconfig(), context: 'beta' })
    expect(kc.getCurrentCluster()?.server).toBe('https://beta.example:6443')
    expect(kc.getCurrentUser()?.name).toBe('beta-user')
    expect(secrets).toContain(b64(DUMMY_KEY_PEM))
    expect(secrets).toContain(DUMMY_KEY_PEM.trim())
    expect(secrets).toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDdummykeyline1')
    // every user's secrets, not only the current one's
    expect(secrets).toContain('alpha-secret-token')
    expect(secrets).toContain('hunter2-password')
    // certificates are public; the PEM armour lines are not secrets
    expect(secrets).not.toContain(b64(DUMMY_CERT_PEM))
    expect(secrets).not.toContain('-----BEGIN PRIVATE KEY-----')
    expect(secrets).not.toContain('admin')
  })

  it('fails on a missing context, naming the available contexts', () => {
    expect(() => loadKubeConfig({ kubeconfig: twoContextKubeconfig(), context: 'gamma' })).toThrow(
      'kube context "gamma" does not exist in the kubeconfig; available contexts: alpha, beta'
    )
  })

  it('fails when the current-context does not exist', () => {
    const content = twoContextKubeconfig().replace(
      'current-context: alpha',
      'current-context: nope'
    )
    expect(() => loadKubeConfig({ kubeconfig: content, context: '' })).toThrow(
      /no usable current-context \("nope"\); set kube-context to one of: alpha, beta/
    )
  })

  it('fails when the context names an undefined cluster', () => {
    const content = twoContextKubeconfig().replace(
      '{ cluster: alpha-cluster, user: alpha-user }',
      '{ cluster: missing-cluster, user: alpha-user }'
    )
    expect(() => loadKubeConfig({ kubeconfig: content, context: 'alpha' })).toThrow(
      'kube context "alpha" names cluster "missing-cluster", which the kubeconfig does not define'
    )
  })

  it('does not echo the content of an invalid kubeconfig', () => {
    const content = 'users:\n- name: u\n  user:\n    token: leaked-token-xyz\n   bad: [indent\n'
    let message = ''
    try {
      loadKubeConfig({ kubeconfig: content, context: '' })
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toMatch(/^the value is not YAML, so not a kubeconfig/)
    expect(message).not.toContain('leaked-token-xyz')
  })

  it.each([
    ['a path', '/home/runner/.kube/config', 'looks like a file path'],
    ['base64 text', b64(twoContextKubeconfig()), 'looks base64-encoded'],
    ['garbage', 'hunter2-garbage', 'plain text, not a kubeconfig'],
    ['YAML of another kind', 'kind: Secret\ndata: { token: hunter2-garbage }\n', 'not a kubeconfig']
  ])('says what it was given when the input is %s, never echoing it', (_name, content, words) => {
    let error: (Error & { input?: string }) | null = null
    try {
      loadKubeConfig({ kubeconfig: content, context: '' })
    } catch (err) {
      error = err as Error
    }
    expect(error?.message).toContain(words)
    expect(error?.input).toBe('kubeconfig')
    expect(error?.message).not.toContain(content.trim())
    expect(error?.message).not.toContain('hunter2')
    expect(error?.message).not.toContain('current-context')
  })

  it('fails at once, naming the places looked at, when there is no kubeconfig anywhere', () => {
    const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME }
    delete process.env.KUBECONFIG
    process.env.HOME = dir
    try {
      expect(() => loadKubeConfig({ kubeconfig: '', context: '' })).toThrow(
        `the kubeconfig input is empty, the KUBECONFIG environment variable is not set, and ${join(dir, '.kube/config')} does not exist`
      )
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
  })

  it('reads token-file and auth-provider token files and masks their content', () => {
    const tokenFile = join(dir, 'token')
    writeFileSync(tokenFile, 'file-token-456\n')
    const saFile = join(dir, 'sa-token')
    writeFileSync(saFile, 'sa-token-789')
    const content = `apiVersion: v1
kind: Config
current-context: a
clusters:
- name: c
  cluster: { server: 'https://k.example' }
users:
- name: file-user
  user:
    token-file: ${tokenFile}
- name: provider-user
  user:
    auth-provider:
      name: oidc
      config:
        client-id: public-client-id
        client-secret: oidc-client-secret
        id-token: oidc-id-token
        refresh-token: oidc-refresh-token
        tokenFile: ${saFile}
contexts:
- name: a
  context: { cluster: c, user: file-user }
`
    const { secrets } = loadKubeConfig({ kubeconfig: content, context: '' })
    expect(secrets).toEqual(
      expect.arrayContaining([
        'file-token-456',
        'sa-token-789',
        'oidc-client-secret',
        'oidc-id-token',
        'oidc-refresh-token'
      ])
    )
    expect(secrets).not.toContain('public-client-id')
  })

  it('loads the default chain from KUBECONFIG when the content is empty', () => {
    const path = join(dir, 'default-config')
    writeFileSync(path, tokenKubeconfig('https://from-env.example', 'env-token-1', 'envctx'))
    const previous = process.env.KUBECONFIG
    process.env.KUBECONFIG = path
    try {
      const { kc, secrets } = loadKubeConfig({ kubeconfig: '', context: '' })
      expect(kc.getCurrentCluster()?.server).toBe('https://from-env.example')
      expect(secrets).toContain('env-token-1')
    } finally {
      if (previous === undefined) delete process.env.KUBECONFIG
      else process.env.KUBECONFIG = previous
    }
  })

  it('lets exec credential plugins authenticate (not blocked), with secret env values masked', async () => {
    const server = await startKubeServer(({ res, recorded }) =>
      sendJson(
        res,
        200,
        recorded.path === '/apis/coder.com/v1alpha1'
          ? apiResourceList('coder.com/v1alpha1', [
              { name: 'codertemplatetests', kind: 'CoderTemplateTest', verbs: ['get'] }
            ])
          : {}
      )
    )
    try {
      const credential = JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: { token: server.token }
      })
      const script = join(dir, 'exec-plugin.sh')
      writeFileSync(script, `#!/bin/sh\ncat <<'JSON'\n${credential}\nJSON\n`, { mode: 0o755 })
      const content = `apiVersion: v1
kind: Config
current-context: x
clusters:
- name: c
  cluster: { server: '${server.url}', insecure-skip-tls-verify: true }
users:
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ${script}
      interactiveMode: Never
      env:
      - { name: PLUGIN_REGION, value: eu-west-1 }
      - { name: PLUGIN_API_KEY, value: exec-env-api-key }
contexts:
- name: x
  context: { cluster: c, user: exec-user }
`
      const { kc, secrets } = loadKubeConfig({ kubeconfig: content, context: '' })
      expect(secrets).toContain('exec-env-api-key')
      expect(secrets).not.toContain('eu-west-1')
      await assertCoderK8sServed(kc, { needAggregation: false })
      expect(server.requests).toHaveLength(1)
      expect(server.requests[0]?.authorized).toBe(true)
    } finally {
      await server.close()
    }
  })
})
