// Where the gate's work lives in the GitOps repository, on any Git host: the manifest's path and the
// branch of pull-request mode. Pure.

/** Where the manifest of a test lives in the GitOps repository: `<gitops-path>/<test-name>.yaml`. */
export function manifestPathOf(folder: string, testName: string): string {
  return folder ? `${folder}/${testName}.yaml` : `${testName}.yaml`
}

/** The branch of pull-request mode (action.yml, gitops-mode). */
export function pullRequestBranch(testName: string): string {
  return `coder-template-gate/${testName}`
}
