// Older versions of docker, each with the manifest the gate would have committed for it: what
// keep-tests chooses from. Shared by the keep-tests and commit-edge scenarios.
import { buildTestManifest, renderManifest } from '../../src/objects/manifest.js'
import { GITOPS_PATH, GITOPS_REPO, NAMESPACE, OWNER, type World } from '../sandbox/world.js'

/** The path of the gate's manifest for version `name` of docker (dots become dashes). */
export const manifestPathOf = (name: string) =>
  `${GITOPS_PATH}/docker-${name.replace(/\./g, '-')}.yaml`

/** Seeds the versions in this order (so created in it), `archived` ones archived. */
export function seedOlderVersions(w: World, names: string[], archived: string[] = []): void {
  for (const name of names) {
    w.coder.seedVersion({ template: 'docker', name, archived: archived.includes(name) })
    const manifest = buildTestManifest({
      testName: `docker-${name.replace(/\./g, '-')}`,
      namespace: NAMESPACE,
      controlPlane: 'coder',
      organization: OWNER,
      template: 'docker',
      version: name,
      parameters: [],
      timeoutSeconds: 900
    })
    w.github.writeFile(OWNER, GITOPS_REPO, 'main', manifestPathOf(name), renderManifest(manifest))
  }
}
