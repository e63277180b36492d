// Files that the GitOps tests read, relative to the repository root.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url))

export const ARGO_SCRIPT_PATH = 'config/gitops/argocd-health-codertemplatetest.lua'
export const FLUX_CHECK_PATH = 'config/gitops/flux-healthcheck-codertemplatetest.yaml'
export const RBAC_PATH = 'config/rbac/gate-role.yaml'
export const DOCS_PATH = 'docs/how-to/gitops.md'

export function readRepoFile(relativePath: string): string {
  return readFileSync(join(REPO_ROOT, relativePath), 'utf8')
}
