// The clients of one run, built once from the valid inputs: Coder REST, and Octokit for the GitOps
// repository (and, for comment-on-pr, for the workflow's own repository).
import { cleartextTokenWarning } from './coder/cleartext.js'
import { CoderClient } from './coder/client.js'
import { createGitOpsOctokit, type GitOpsOctokit } from './gitops/octokit.js'
import type { StepLog } from './steps/step.js'
import type { ValidInputs } from './steps/inputs.js'

export interface Clients {
  coder: CoderClient
  octokit: GitOpsOctokit
  /** Without the run's signal: the final read of the active version happens after a cancel too. */
  observer: CoderClient
}

export const GITHUB_COM_API = 'https://api.github.com'

export function createClients(inputs: ValidInputs, signal: AbortSignal, log: StepLog): Clients {
  const { coder } = inputs.settings
  // Before the first request that carries the token.
  const cleartext = cleartextTokenWarning(coder.url)
  if (cleartext) log.warning(cleartext)
  return {
    coder: new CoderClient({ url: coder.url, token: coder.token, signal }),
    observer: new CoderClient({ url: coder.url, token: coder.token, timeoutMs: 5000, retries: 0 }),
    octokit: githubClient(inputs.settings.gitops.token, inputs.apiUrl, log)
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
