// plugin-throttling's write spacing: kept by default (GitHub asks for writes at least 1 s apart,
// "Best practices for using the REST API"), off only with the tests' spaceWrites: false.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { createGitOpsOctokit } from '../../../../src/gitops/github/client/octokit.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.js'

const OWNER = 'acme'
const REPO = 'spacing'
let sandbox: GitHubSandbox

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
  sandbox.createRepo(OWNER, REPO, { defaultBranch: 'main' })
})

afterAll(async () => {
  await sandbox.close()
})

/** Two blob writes sent at once; the times the sandbox received them. */
async function twoWrites(spaceWrites: boolean | undefined, throttleId: string): Promise<number[]> {
  const octokit = createGitOpsOctokit({
    token: sandbox.token,
    baseUrl: sandbox.url,
    throttleId,
    ...(spaceWrites === undefined ? {} : { spaceWrites })
  })
  const write = (content: string) =>
    octokit.rest.git.createBlob({ owner: OWNER, repo: REPO, content, encoding: 'utf-8' })
  const before = sandbox.requests.length
  await Promise.all([write('a\n'), write('b\n')])
  return sandbox.requests
    .slice(before)
    .filter((r) => r.method === 'POST' && r.path.endsWith('/git/blobs'))
    .map((r) => r.at)
}

describe('write spacing', () => {
  it('by default, a second write waits for the plugin: well apart from the first', async () => {
    const [first, second] = await twoWrites(undefined, 'spacing-default')
    // The plugin spaces the sends 1 s apart; the sandbox times arrivals, which a loaded machine
    // shifts by a few hundred ms (866 ms seen). Unspaced writes arrive within a few ms.
    expect(second! - first!).toBeGreaterThanOrEqual(500)
  })

  it('spaceWrites: false sends both writes (each answered as usual)', async () => {
    const times = await twoWrites(false, 'spacing-off')
    expect(times).toHaveLength(2)
  })
})
