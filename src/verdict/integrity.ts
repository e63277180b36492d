// Gate integrity: the one object read that gave the verdict must prove what this run pushed.
// Anyone who can create tests can create our test's name first, with another spec
// (https://github.com/coder/coder-k8s/blob/main/docs/how-to/gitops.md).
import type { CoderTemplateTest, CoderTemplateTestSpec } from '../objects/coder-k8s.js'
import { specDifferences } from '../objects/manifest.js'
import { isUuid } from '../coder/version-identity.js'

export interface PushedVersion {
  id: string
  name: string
}

/**
 * Every reason why this object does not prove our version; empty when it does. `pushed` null: a
 * live test (`version.active`), which proves the version its status pins, whichever that is.
 */
export function integrityProblems(
  test: CoderTemplateTest,
  committedSpec: CoderTemplateTestSpec,
  pushed: PushedVersion | null
): string[] {
  const problems = specDifferences(committedSpec, test.spec)
  const status = test.status ?? {}
  if (pushed === null) {
    const id = status.templateVersionID
    if (!isUuid(id))
      problems.push(
        `status.templateVersionID: a version ID expected, found ${JSON.stringify(id ?? null)}`
      )
    return problems
  }
  if (!pushed.id || !pushed.name)
    problems.push('the pushed version is unknown, so nothing can prove it')
  if (status.templateVersionID !== pushed.id) {
    problems.push(
      `status.templateVersionID: pushed ${JSON.stringify(pushed.id)}, found ${JSON.stringify(status.templateVersionID ?? null)}`
    )
  }
  if (status.templateVersionName !== pushed.name) {
    problems.push(
      `status.templateVersionName: pushed ${JSON.stringify(pushed.name)}, found ${JSON.stringify(status.templateVersionName ?? null)}`
    )
  }
  return problems
}
