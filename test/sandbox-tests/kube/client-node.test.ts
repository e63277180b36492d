// The gate's own Kubernetes client (@kubernetes/client-node) against the sandbox, over plain HTTP
// and HTTPS: create, get, a watch until the final status, and the promote subresource.
import { describe, it, expect, afterAll } from '@jest/globals'
import { CustomObjectsApi, KubeConfig, Watch } from '@kubernetes/client-node'
import { startKubeSandbox } from '../../sandbox/kube/server.js'
import type { KubeSandbox } from '../../sandbox/kube/server.js'
import { ALLOW_ALL_RULES } from '../../sandbox/kube/rbac.js'
import { FakeCoder, testManifest } from './helpers.js'

for (const tls of [false, true]) {
  describe(`@kubernetes/client-node against the sandbox (${tls ? 'https' : 'http'})`, () => {
    const coder = new FakeCoder('acme')
    const docker = coder.addTemplate('docker')
    coder.addVersion(docker, 'v1')
    let kube: KubeSandbox
    afterAll(async () => kube?.close())

    it('creates a test, watches it to Succeeded, reads it, and promotes its version', async () => {
      // The test creates a test object itself (the gate never does), so every verb.
      kube = await startKubeSandbox({
        coder,
        tls,
        controller: { stepDelayMs: 2 },
        rbac: { rules: ALLOW_ALL_RULES }
      })
      const kc = new KubeConfig()
      kc.loadFromString(kube.kubeconfig())
      const api = kc.makeApiClient(CustomObjectsApi)
      const created = await api.createNamespacedCustomObject({
        group: 'coder.com',
        version: 'v1alpha1',
        namespace: 'coder',
        plural: 'codertemplatetests',
        body: testManifest('docker-v1')
      })
      expect(created.spec.timeoutSeconds).toBe(900)

      const phases: string[] = []
      await new Promise<void>((resolve, reject) => {
        void new Watch(kc)
          .watch(
            '/apis/coder.com/v1alpha1/namespaces/coder/codertemplatetests',
            { fieldSelector: 'metadata.name=docker-v1', allowWatchBookmarks: true },
            (type, object) => {
              phases.push(`${type}:${object?.status?.phase ?? ''}`)
              if (object?.status?.phase === 'Succeeded') resolve()
            },
            (error) => (error ? reject(error) : undefined)
          )
          .then((abort) => {
            const off = kube.controller!.onFinal(() => setTimeout(() => abort.abort(), 20))
            void off
          }, reject)
      })
      expect(phases[0]).toMatch(/^ADDED:/)
      expect(phases.at(-1)).toBe('MODIFIED:Succeeded')

      const read = await api.getNamespacedCustomObject({
        group: 'coder.com',
        version: 'v1alpha1',
        namespace: 'coder',
        plural: 'codertemplatetests',
        name: 'docker-v1'
      })
      const versionID = read.status.templateVersionID
      const v2 = coder.addVersion(docker, 'v2')
      const promoted = await api.createNamespacedCustomObject({
        group: 'aggregation.coder.com',
        version: 'v1alpha1',
        namespace: 'coder',
        plural: 'codertemplates/acme.docker/promote',
        body: { spec: { versionID: v2.id } }
      })
      expect(promoted.status).toMatchObject({
        result: 'Promoted',
        previousActiveVersionID: versionID
      })
      await expect(
        api.getNamespacedCustomObject({
          group: 'coder.com',
          version: 'v1alpha1',
          namespace: 'coder',
          plural: 'codertemplatetests',
          name: 'missing'
        })
      ).rejects.toMatchObject({ code: 404 })
    })
  })
}
