// The preflight's GitOps check: the repository, the branch and its rules, read-only, through the
// host-neutral GitHost; in commit mode, the rules gitops-token bypasses become warnings.
import type { GitHost, GitOpsFacts } from '../gitops/host.js'
import type { Settings } from '../settings/settings.js'
import { clockOf, messageOf, type StepContext } from './step.js'

/** The preflight's GitOps facts: the branch, and the rules gitops-token bypasses. */
export interface GitOpsChecked {
  branch: string
  bypassed?: string[]
}

export async function checkGitOps(
  input: { settings: Settings; host: GitHost },
  context: StepContext
): Promise<{ value: GitOpsChecked; problems: string[] }> {
  const { gitops } = input.settings
  try {
    const call = { signal: context.signal, clock: clockOf(context) }
    const inspected = await input.host.inspect(gitops.branch, call)
    const facts = input.settings.mode === 'promote' ? readOnly(inspected) : inspected
    const problems = input.host
      .problems(facts, gitops)
      .map(({ problem, fix }) => `GitOps: ${problem} ${fix}`)
    if (
      !facts.rulesKnown &&
      facts.branchExists &&
      gitops.delivery === 'commit' &&
      facts === inspected
    )
      context.log.info(
        `GitOps: cannot tell whether ${facts.branch} requires a pull request; going on.`
      )
    const bypassed = gitops.delivery === 'commit' && facts === inspected ? bypassedRules(facts) : []
    for (const line of bypassed) context.log.warning(`GitOps: ${line}`)
    return { value: { branch: facts.branch, ...(bypassed.length ? { bypassed } : {}) }, problems }
  } catch (error) {
    return {
      value: { branch: gitops.branch },
      problems: [`GitOps: reading ${gitops.owner}/${gitops.repo} failed: ${messageOf(error)}`]
    }
  }
}

/** Commit mode: the rules gitops-token bypasses, as the summary says them. Pure. */
export function bypassedRules(facts: GitOpsFacts): string[] {
  return (facts.commitRules ?? [])
    .filter((rule) => rule.bypass)
    .map(
      (rule) =>
        `gitops-token bypasses ${rule.by} (rule ${rule.rule}) on ${facts.branch}: the gate commits to it directly.`
    )
}

/** The promote job only reads the GitOps repository: the checks of a write do not apply. */
function readOnly(facts: GitOpsFacts): GitOpsFacts {
  return {
    ...facts,
    pullRequestRequiredBy: null,
    commitRules: []
  }
}
