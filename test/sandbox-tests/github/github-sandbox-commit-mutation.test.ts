// The GitHub sandbox's createCommitOnBranch over plain fetch: a commit of additions and deletions
// that moves the branch (and fires onCommit), STALE_DATA on a moved head, the rules of a REST ref
// update, and one content-creating request per mutation under the secondary limits.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { GitCommit } from '../../sandbox/contracts.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.js'

const OWNER = 'acme'
const TOKEN = 'ghs_commit_mutation'
const COMMIT = `mutation Commit($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid url } }
}`

let sandbox: GitHubSandbox
let repoCounter = 0
const events: GitCommit[] = []

beforeAll(async () => {
  // Content-creating requests: 4 a minute, so that the fifth mutation is refused.
  sandbox = await startGitHubSandbox({ token: TOKEN, secondaryLimits: { contentPerMinute: 4 } })
  sandbox.onCommit((commit) => events.push(commit))
})

afterAll(() => sandbox.close())

function newRepo(): string {
  const repo = `mutation-${++repoCounter}`
  sandbox.createRepo(OWNER, repo, { files: { 'README.md': '# r\n', 'old.yaml': 'old: 1\n' } })
  return repo
}

function commitInput(repo: string, expectedHeadOid: string | null) {
  return {
    input: {
      branch: { repositoryNameWithOwner: `${OWNER}/${repo}`, branchName: 'main' },
      expectedHeadOid,
      message: { headline: 'Test acme.docker version v1', body: 'written by coder-template-gate.' },
      fileChanges: {
        additions: [{ path: 'tests/t.yaml', contents: Buffer.from('a: 1\n').toString('base64') }],
        deletions: [{ path: 'old.yaml' }]
      }
    }
  }
}

async function send(variables: unknown) {
  const response = await fetch(`${sandbox.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: COMMIT, variables })
  })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

describe('createCommitOnBranch in the sandbox', () => {
  it('commits the changes on the expected head, moves the branch, and limits it as content', async () => {
    const repo = newRepo()
    const head = sandbox.branchHead(OWNER, repo, 'main')!
    const { status, json } = await send(commitInput(repo, head))
    expect(status).toBe(200)
    const oid = sandbox.branchHead(OWNER, repo, 'main')!
    expect(json).toEqual({
      data: {
        createCommitOnBranch: {
          commit: { oid, url: `${sandbox.serverUrl}/${OWNER}/${repo}/commit/${oid}` }
        }
      }
    })
    const commit = sandbox.commits(OWNER, repo, 'main').at(-1)!
    expect(commit).toMatchObject({
      parents: [head],
      message: 'Test acme.docker version v1\n\nwritten by coder-template-gate.'
    })
    expect(commit.changes).toEqual(
      new Map([
        ['old.yaml', null],
        ['tests/t.yaml', 'a: 1\n']
      ])
    )
    expect(events.at(-1)).toMatchObject({ repo, branch: 'main', sha: oid })
    expect(sandbox.secondaryLimitStats()?.contentAccepted).toBe(1)
  })

  it('a head that moved is STALE_DATA, as GitHub answers it; nothing is written', async () => {
    const repo = newRepo()
    const stale = sandbox.branchHead(OWNER, repo, 'main')!
    sandbox.writeFile(OWNER, repo, 'main', 'other.txt', 'x\n')
    const head = sandbox.branchHead(OWNER, repo, 'main')
    const { json } = await send(commitInput(repo, stale))
    expect(json).toEqual({
      data: { createCommitOnBranch: null },
      errors: [
        {
          type: 'STALE_DATA',
          path: ['createCommitOnBranch'],
          locations: [{ line: 2, column: 3 }],
          message: `Expected branch to point to "${stale}" but it did not.  Pull and try again.`
        }
      ]
    })
    expect(sandbox.branchHead(OWNER, repo, 'main')).toBe(head)
  })

  it('classic protection and a ruleset refuse it as they refuse a ref update', async () => {
    const repo = newRepo()
    sandbox.protectBranch(OWNER, repo, 'main')
    const head = sandbox.branchHead(OWNER, repo, 'main')!
    const classic = await send(commitInput(repo, head))
    expect(classic.json.errors).toEqual([
      expect.objectContaining({ type: 'BRANCH_PROTECTION_RULE_VIOLATION' })
    ])
    sandbox.unprotectBranch(OWNER, repo, 'main')
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: true })
    // guess (graphql-commit.ts): a ruleset's refusal is UNPROCESSABLE with the REST text.
    const ruleset = await send(commitInput(repo, head))
    expect(ruleset.json.errors).toEqual([
      expect.objectContaining({
        type: 'UNPROCESSABLE',
        message:
          'Repository rule violations found\n\nChanges must be made through a pull request.\n\n'
      })
    ])
    // Every mutation counted as content-creating, refused or not: the fifth meets the limit.
    const limited = await send(commitInput(repo, head))
    expect(limited.status).toBe(403)
    expect(String(limited.json.message)).toMatch(/secondary rate limit/)
    expect(sandbox.secondaryLimitStats()).toMatchObject({ contentAccepted: 4, refusedContent: 1 })
    expect(sandbox.branchHead(OWNER, repo, 'main')).toBe(head)
  })
})
