// kubectl fidelity: the real kubectl talks to the sandbox with a temporary kubeconfig.
// Skips with a message when kubectl is not installed (Debian: apt-get install -y kubernetes-client).
// KUBECTL=<path> selects another binary.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { findKubectl } from '../../sandbox/kube/kubectl-binary.js'
import { startKubeSandbox } from '../../sandbox/kube/server.js'
import type { KubeSandbox } from '../../sandbox/kube/server.js'
import { FakeCoder, eventually, testManifest } from './helpers.js'

const kubectl = findKubectl()
if (!kubectl) console.warn('kubectl is not installed: the kubectl fidelity tests are skipped')
const suite = kubectl ? describe : describe.skip

suite('kubectl against the sandbox', () => {
  const coder = new FakeCoder('acme')
  const docker = coder.addTemplate('docker')
  coder.addVersion(docker, 'v1')
  const v2 = coder.addVersion(docker, 'v2')
  let kube: KubeSandbox
  let dir: string
  let env: NodeJS.ProcessEnv

  const run = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(kubectl!, args, { env, timeout: 20_000 }, (error, stdout, stderr) => {
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr
        })
      })
    })

  beforeAll(async () => {
    kube = await startKubeSandbox({
      coder,
      controller: { stepDelayMs: 2, pollIntervalMs: 5, secondMs: 5 },
      tls: true
    })
    dir = mkdtempSync(join(tmpdir(), 'kube-sandbox-kubectl-'))
    const kubeconfig = join(dir, 'config')
    writeFileSync(kubeconfig, kube.kubeconfig({ namespace: 'coder' }), { mode: 0o600 })
    // HOME points at the temp dir so kubectl's discovery cache does not leak between runs.
    env = { PATH: process.env.PATH, HOME: dir, KUBECONFIG: kubeconfig }
  })
  afterAll(async () => {
    await kube.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('kubectl get --raw /apis/coder.com/v1alpha1 prints the APIResourceList', async () => {
    const result = await run(['get', '--raw', '/apis/coder.com/v1alpha1'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const list = JSON.parse(result.stdout)
    expect(list.kind).toBe('APIResourceList')
    expect(list.resources[0].name).toBe('codertemplatetests')
  })

  it('kubectl get codertemplatetests -n <ns> prints the printer columns', async () => {
    kube.store.create('coder', testManifest('docker-v1'))
    await eventually(() => kube.store.get('coder', 'docker-v1')?.status?.phase === 'Succeeded')
    const result = await run(['get', 'codertemplatetests', '-n', 'coder'])
    expect(result.code).toBe(0)
    const [header, row] = result.stdout.trim().split('\n')
    expect(header.split(/\s+/)).toEqual(['NAME', 'PHASE', 'TEMPLATE', 'VERSION', 'REASON', 'AGE'])
    expect(row.split(/\s+/).slice(0, 5)).toEqual([
      'docker-v1',
      'Succeeded',
      'acme.docker',
      'v1',
      'Succeeded'
    ])
    const json = await run(['get', 'codertemplatetest', 'docker-v1', '-n', 'coder', '-o', 'json'])
    expect(JSON.parse(json.stdout).status.phase).toBe('Succeeded')
    const missing = await run(['get', 'codertemplatetests', 'nope', '-n', 'coder'])
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain('codertemplatetests.coder.com "nope" not found')
  })

  it('kubectl create --raw .../promote -f body.json promotes', async () => {
    const file = join(dir, 'body.json')
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'aggregation.coder.com/v1alpha1',
        kind: 'CoderTemplateVersionPromotion',
        spec: { versionID: v2.id }
      })
    )
    const result = await run([
      'create',
      '--raw',
      '/apis/aggregation.coder.com/v1alpha1/namespaces/coder/codertemplates/acme.docker/promote',
      '-f',
      file
    ])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).status.result).toBe('Promoted')
    expect(docker.activeVersionId).toBe(v2.id)
    const again = await run([
      'get',
      '--raw',
      '/apis/aggregation.coder.com/v1alpha1/namespaces/coder/codertemplates/acme.docker'
    ])
    expect(JSON.parse(again.stdout).status.activeVersionID).toBe(v2.id)
  })

  it('the token stays out of the command line and kubectl output', async () => {
    const result = await run(['get', 'codertemplatetests', '-n', 'coder', '-v', '6'])
    expect(result.stdout + result.stderr).not.toContain(kube.token)
  })
})
