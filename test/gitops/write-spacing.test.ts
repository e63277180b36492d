// plugin-throttling's write spacing: kept by default (GitHub asks for writes at least 1 s apart,
// "Best practices for using the REST API"), off only with the tests' spaceWrites: false.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { createGitOpsOctokit } from '../../src/gitops/octokit.js'
import { startGitHubSandbox, type GitHubSandbox } from '../sandbox/github/index.js'

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
  it('by default, a second write waits for the plugin: at least about 1 s after the first', async () => {
    const [first, second] = await twoWrites(undefined, 'spacing-default')
    expect(second! - first!).toBeGreaterThanOrEqual(900)
  })

  it('spaceWrites: false sends both writes (each answered as usual)', async () => {
    const times = await twoWrites(false, 'spacing-off')
    expect(times).toHaveLength(2)
  })
})
