// What the sandbox world holds after a run, read the same way by every end-to-end file.
import YAML from 'yaml'
import { GITOPS_PATH, GITOPS_REPO, OWNER, type World } from '../sandbox/world.js'

export function promoteRequests(w: World): number {
  return w.kube.requests.filter((r) => r.method === 'POST' && r.path.includes('/promote')).length
}

export function activeVersionName(w: World, template = 'docker'): string | undefined {
  const found = w.coder.backend.findTemplate(OWNER, template)
  return found ? w.coder.backend.findVersionById(found.activeVersionId)?.name : undefined
}

export function manifestInGit(
  w: World,
  testName: string,
  branch = 'main'
): Record<string, unknown> | null {
  const text = w.github.readFile(OWNER, GITOPS_REPO, branch, `${GITOPS_PATH}/${testName}.yaml`)
  return text === null ? null : YAML.parse(text)
}
