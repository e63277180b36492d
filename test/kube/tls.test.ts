// The kubeconfig's TLS settings reach the wire: the cluster CA verifies the server, and the client
// certificate authenticates the user (client-node 2.x dispatcher).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadKubeConfig } from '../../src/kube/config.js'
import { assertCoderK8sServed } from '../../src/kube/discovery.js'
import { postPromotion } from '../../src/kube/promote-request.js'
import { apiResourceList } from './helpers/kubeServer.js'

let dir: string
let server: Server
let url: string
const pem = (name: string): string => readFileSync(join(dir, name), 'utf8')
const b64 = (name: string): string => Buffer.from(pem(name)).toString('base64')
const seen: { path: string; clientCN: string | undefined }[] = []

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kube-tls-test-'))
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '1',
    '-subj',
    '/CN=test-ca'
  )
  for (const [name, subject] of [
    ['server', '/CN=127.0.0.1'],
    ['client', '/CN=gate-user/O=gate']
  ] as const) {
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject
    )
    const ext = join(dir, `${name}.ext`)
    writeFileSync(
      ext,
      name === 'server' ? 'subjectAltName=IP:127.0.0.1\n' : 'extendedKeyUsage=clientAuth\n'
    )
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '1',
      '-extfile',
      ext
    )
  }
  server = createServer(
    {
      key: pem('server.key'),
      cert: pem('server.crt'),
      ca: pem('ca.crt'),
      requestCert: true,
      rejectUnauthorized: true
    },
    (req, res) => {
      const cert = (req.socket as TLSSocket).getPeerCertificate()
      const path = new URL(req.url ?? '/', 'https://x').pathname
      seen.push({
        path,
        clientCN: typeof cert.subject?.CN === 'string' ? cert.subject.CN : undefined
      })
      req.resume()
      req.on('end', () => {
        res.setHeader('Content-Type', 'application/json')
        if (req.method === 'POST') {
          res.statusCode = 201
          res.end(
            JSON.stringify({
              kind: 'CoderTemplateVersionPromotion',
              spec: { versionID: 'v' },
              status: { result: 'Promoted' }
            })
          )
          return
        }
        res.end(
          JSON.stringify(
            apiResourceList('coder.com/v1alpha1', [
              { name: 'codertemplatetests', kind: 'CoderTemplateTest', verbs: ['get'] }
            ])
          )
        )
      })
    }
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  rmSync(dir, { recursive: true, force: true })
})

function kubeconfig(caName: string): string {
  return `apiVersion: v1
kind: Config
current-context: tls
clusters:
- name: tls
  cluster:
    server: ${url}
    certificate-authority-data: ${b64(caName)}
users:
- name: cert-user
  user:
    client-certificate-data: ${b64('client.crt')}
    client-key-data: ${b64('client.key')}
contexts:
- name: tls
  context: { cluster: tls, user: cert-user }
`
}

describe('TLS and client certificates from the kubeconfig', () => {
  it('verifies the server with the CA data and authenticates with the client certificate', async () => {
    const { kc, secrets } = loadKubeConfig({ kubeconfig: kubeconfig('ca.crt'), context: '' })
    expect(secrets).toContain(b64('client.key'))
    expect(secrets).toContain(pem('client.key').trim())
    seen.length = 0
    await assertCoderK8sServed(kc, { needAggregation: false })
    const answer = await postPromotion({
      kc,
      namespace: 'coder',
      template: 'acme.docker',
      versionID: 'v',
      dryRun: false
    })
    expect(answer.httpStatus).toBe(201)
    expect(seen).toEqual([
      { path: '/apis/coder.com/v1alpha1', clientCN: 'gate-user' },
      {
        path: '/apis/aggregation.coder.com/v1alpha1/namespaces/coder/codertemplates/acme.docker/promote',
        clientCN: 'gate-user'
      }
    ])
  })

  it('refuses a server its CA does not vouch for, naming the server', async () => {
    // the server's own certificate as the "CA": not a CA, so verification fails
    const { kc } = loadKubeConfig({ kubeconfig: kubeconfig('client.crt'), context: '' })
    const error = await assertCoderK8sServed(kc, { needAggregation: false }).catch((e: Error) => e)
    expect((error as Error).message).toContain(`cannot reach the Kubernetes API server at ${url}`)
    const answer = await postPromotion({
      kc,
      namespace: 'coder',
      template: 'acme.docker',
      versionID: 'v',
      dryRun: false
    })
    expect(answer.httpStatus).toBe(0)
  })
})
