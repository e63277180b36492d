// postPromotion against the sandbox's aggregated API (the real time budgets of coder-k8s):
// the `?timeout=` we send lowers the server's request deadline to our client timeout.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { loadKubeConfig } from '../../src/kube/config.js'
import { postPromotion } from '../../src/kube/promote-request.js'
import { startKubeSandbox } from '../sandbox/kube/server.js'
import type { KubeSandbox } from '../sandbox/kube/server.js'
import { FakeCoder } from '../sandbox-tests/kube/helpers.js'

const NS = 'coder'

describe('postPromotion: the server deadline follows the client timeout', () => {
  const coder = new FakeCoder('acme')
  const docker = coder.addTemplate('docker')
  const v1 = coder.addVersion(docker, 'v1')
  const v2 = coder.addVersion(docker, 'v2')
  let kube: KubeSandbox
  beforeAll(async () => {
    kube = await startKubeSandbox({ coder, controller: false })
  })
  afterAll(() => kube.close())

  const promote = (timeoutMs: number) =>
    postPromotion({
      kc: loadKubeConfig({ kubeconfig: kube.kubeconfig(), context: '' }).kc,
      namespace: NS,
      template: 'acme.docker',
      versionID: v2.id,
      dryRun: false,
      timeoutMs
    })

  it('a client timeout under the 15 s the activation needs is refused as not attempted', async () => {
    // Without ?timeout= the server would use its own 34 s and activate; with 14 s it must not.
    const answer = await promote(14000)
    expect(answer.httpStatus).toBe(504)
    expect(answer.message).toContain('was not attempted')
    expect(docker.activeVersionId).toBe(v1.id)
    expect(coder.activations).toHaveLength(0)
  })

  it('the default 30 s leaves the activation its budget: Promoted', async () => {
    const answer = await promote(30000)
    expect(answer.httpStatus).toBe(201)
    expect(answer.promotion?.status?.result).toBe('Promoted')
    expect(docker.activeVersionId).toBe(v2.id)
  })
})
