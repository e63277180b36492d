// The clients of one run, built once from the valid inputs: Coder REST, and the Git host of the GitOps
// repository, GitHub over Octokit (and, for comment-on-pr, Octokit for the workflow's repository).
import { cleartextTokenWarning } from './coder/cleartext.js'
import { CoderClient } from './coder/client.js'
import { GitHubHost } from './gitops/github/host.js'
import type { GitHost } from './gitops/host.js'
import { createGitOpsOctokit, type GitOpsOctokit } from './gitops/github/client/octokit.js'
import type { StepLog } from './steps/step.js'
import type { ValidInputs } from './steps/inputs.js'

export interface Clients {
  coder: CoderClient
  /** The Git host of the GitOps repository, as the steps see it (gitops/host.ts). */
  host: GitHost
  /** Without the run's signal: the final read of the active version happens after a cancel too. */
  observer: CoderClient
}

const GITHUB_COM_API = 'https://api.github.com'

export function createClients(inputs: ValidInputs, signal: AbortSignal, log: StepLog): Clients {
  const { coder, gitops } = inputs.settings
  // Before the first request that carries the token.
  const cleartext = cleartextTokenWarning(coder.url)
  if (cleartext) log.warning(cleartext)
  const octokit = githubClient(gitops.token, inputs.apiUrl, log)
  const { owner, repo } = gitops
  return {
    coder: new CoderClient({ url: coder.url, token: coder.token, signal }),
    observer: new CoderClient({ url: coder.url, token: coder.token, timeoutMs: 5000, retries: 0 }),
    host: new GitHubHost({ octokit, owner, repo, serverUrl: inputs.context.serverUrl })
  }
}

export function githubClient(token: string, apiUrl: string, log: StepLog): GitOpsOctokit {
  return createGitOpsOctokit({
    token,
    baseUrl: apiUrl || GITHUB_COM_API,
    log: { warning: log.warning, debug: log.debug }
  })
}

/** Child processes (kube exec credential plugins) need none of the action's secret inputs. */
export function forgetSecretInputs(names: readonly string[]): void {
  for (const name of names) delete process.env[`INPUT_${name.toUpperCase()}`]
}
