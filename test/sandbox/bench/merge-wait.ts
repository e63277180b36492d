// A manual merge wait, measured: the gate's waitForMerge (in-process, its real schedule: 5 s first
// pause, 1.5 times longer after each unchanged read, at most 30 s) against the GitHub sandbox for a
// pull request nobody merges. Real time over a bounded window (default 3 minutes, not 10): the pause
// reaches its 30 s cap after about 66 s, so minutes 2 and 3 are the rate of minutes 2 to 10.
import { createGitOpsOctokit } from '../../../src/gitops/github/client/octokit.js'
import { waitForMerge } from '../../../src/gitops/github/pull-request/wait-for-merge.js'
import { MergeTimeoutError } from '../../../src/gitops/github/pull-request/state.js'
import { startGitHubSandbox } from '../github/index.js'

export interface MergeWait {
  minutes: number
  firstMinute: number
  /** Requests per minute after the first minute. */
  afterFirstPerMinute: number
  notModified: number
}

export async function measureMergeWait(minutes: number): Promise<MergeWait> {
  const github = await startGitHubSandbox()
  try {
    github.createRepo('acme', 'gitops', { defaultBranch: 'main' })
    github.createBranch('acme', 'gitops', 'coder-template-gate/docker-v1')
    github.writeFile('acme', 'gitops', 'coder-template-gate/docker-v1', 't.yaml', 'kind: X\n')
    const number = github.openPullRequest('acme', 'gitops', {
      head: 'coder-template-gate/docker-v1'
    })
    const started = Date.now()
    const octokit = createGitOpsOctokit({ token: github.token, baseUrl: github.url })
    await waitForMerge({
      octokit,
      owner: 'acme',
      repo: 'gitops',
      number,
      deadline: started + minutes * 60_000
    }).catch((error: unknown) => {
      if (!(error instanceof MergeTimeoutError)) throw error
    })
    const reads = github.requests.filter((r) => r.method === 'GET' && r.path.includes('/pulls/'))
    const first = reads.filter((r) => r.at < started + 60_000).length
    return {
      minutes,
      firstMinute: first,
      afterFirstPerMinute: (reads.length - first) / Math.max(1, minutes - 1),
      notModified: reads.filter((r) => r.status === 304).length
    }
  } finally {
    await github.close()
  }
}
