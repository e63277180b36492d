// Every GraphQL document the gate sends, against @octokit/graphql-schema, and the sandbox's
// answers to them: only the selected fields, of the schema's types. (The documents as sent in a
// whole run, with their variables, are checked in gate-requests.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { GITOPS_REPO, OWNER } from '../../sandbox/world.js'
import { type GitHubSandbox, startGitHubSandbox } from '../../sandbox/github/index.js'
import { selectedOnly } from '../../sandbox/github/selection.js'
import { documentProblems, exchangeProblems, gateDocuments } from './graphql-contract.js'

const TOKEN = 'ghs_contract'
let sandbox: GitHubSandbox
let branches = 0

beforeAll(async () => {
  sandbox = await startGitHubSandbox({ token: TOKEN })
  sandbox.createRepo(OWNER, GITOPS_REPO, {
    defaultBranch: 'main',
    settings: { allowAutoMerge: true }
  })
  // A required review keeps each pull request blocked, so auto-merge is accepted.
  sandbox.addRuleset(OWNER, GITOPS_REPO, {
    requirePullRequest: { requiredApprovingReviewCount: 1 }
  })
})

afterAll(async () => {
  await sandbox.close()
})

/** A fresh open pull request: its node id, head commit and head branch. */
function openPull(): { nodeId: string; headSha: string; branch: string } {
  const branch = `contract-${++branches}`
  sandbox.createBranch(OWNER, GITOPS_REPO, branch)
  sandbox.writeFile(OWNER, GITOPS_REPO, branch, `f${branches}.yaml`, 'a: 1\n', 'change')
  const number = sandbox.openPullRequest(OWNER, GITOPS_REPO, { head: branch })
  const pull = sandbox.pullRequest(OWNER, GITOPS_REPO, number)!
  return { nodeId: pull.nodeId, headSha: pull.headSha, branch }
}

async function graphql(query: string, variables: Record<string, unknown>) {
  const response = await fetch(`${sandbox.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables })
  })
  expect(response.status).toBe(200)
  return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] }
}

/** The variables the gate sends with a document: every mutation of its takes one `input`. */
function inputFor(query: string, pull: { nodeId: string; headSha: string; branch: string }) {
  if (/CreateCommitOnBranchInput/.test(query)) {
    // The gate's commit: onto the pull request's branch, pinned to its head (change.ts).
    const contents = Buffer.from('kind: CoderTemplateTest\n').toString('base64')
    return {
      input: {
        branch: { repositoryNameWithOwner: `${OWNER}/${GITOPS_REPO}`, branchName: pull.branch },
        expectedHeadOid: pull.headSha,
        message: {
          headline: 'Test acme.docker version v1',
          body: 'written by coder-template-gate.'
        },
        fileChanges: { additions: [{ path: 'tests/t.yaml', contents }], deletions: [] }
      }
    }
  }
  const input: Record<string, unknown> = { pullRequestId: pull.nodeId }
  if (/EnablePullRequestAutoMergeInput/.test(query)) {
    Object.assign(input, { mergeMethod: 'SQUASH', expectedHeadOid: pull.headSha })
  }
  return { input }
}

const documents = gateDocuments()

describe("the gate's GraphQL documents", () => {
  it('are found in src/ (enablePullRequestAutoMerge and createCommitOnBranch at least)', () => {
    expect(documents.some((d) => d.includes('enablePullRequestAutoMerge'))).toBe(true)
    expect(documents.some((d) => d.includes('createCommitOnBranch'))).toBe(true)
  })

  it.each(documents.map((d) => [d.split('\n')[0], d]))(
    '%s validates against GitHub’s schema',
    (_name, document) => {
      expect(documentProblems(document)).toEqual([])
    }
  )

  it.each(documents.map((d) => [d.split('\n')[0], d]))(
    '%s: the sandbox answers only the selection, of the schema’s types',
    async (_name, document) => {
      const variables = inputFor(document, openPull())
      const answer = await graphql(document, variables)
      expect(answer.errors).toBeUndefined()
      expect(exchangeProblems(document, variables, answer)).toEqual([])
    }
  )
})

describe('the sandbox answers only the selected fields', () => {
  // The sandbox's own parser reads aliases and inline fragments; named fragments (`...Name`) it
  // does not serve, and the gate sends none.
  const WIDE = `mutation Wide($input: EnablePullRequestAutoMergeInput!) {
    enablePullRequestAutoMerge(input: $input) {
      pullRequest { n: number id autoMergeRequest { ... on AutoMergeRequest { mergeMethod } } }
    }
  }`

  it('under aliases and through inline fragments, and the answer fits the schema', async () => {
    const pull = openPull()
    const variables = { input: { pullRequestId: pull.nodeId, mergeMethod: 'MERGE' } }
    const answer = await graphql(WIDE, variables)
    const pullRequest = (answer.data!.enablePullRequestAutoMerge as Record<string, unknown>)
      .pullRequest as Record<string, unknown>
    expect(Object.keys(pullRequest)).toEqual(['n', 'id', 'autoMergeRequest'])
    expect(pullRequest.autoMergeRequest).toEqual({ mergeMethod: 'MERGE' })
    expect(exchangeProblems(WIDE, variables, answer)).toEqual([])
  })

  it('the filter drops what was not selected (and keeps errors as they are)', () => {
    const query = '{ viewer { login } }'
    const answer = { data: { viewer: { login: 'octocat', id: 'U_1' } }, errors: [{ message: 'x' }] }
    expect(selectedOnly({ query }, answer)).toEqual({
      data: { viewer: { login: 'octocat' } },
      errors: [{ message: 'x' }]
    })
    expect(selectedOnly({ query: '{ not parsed' }, answer)).toBe(answer)
  })

  it('the check finds an unselected field, a wrong enum and a variable the schema lacks', () => {
    const query = `mutation M($input: EnablePullRequestAutoMergeInput!) {
      enablePullRequestAutoMerge(input: $input) { pullRequest { number autoMergeRequest { mergeMethod } } }
    }`
    const good = { input: { pullRequestId: 'PR_1' } }
    const extra = {
      data: {
        enablePullRequestAutoMerge: {
          pullRequest: { number: 1, title: 't', autoMergeRequest: null }
        }
      }
    }
    expect(exchangeProblems(query, good, extra).join()).toContain('is not its selection')
    const badEnum = {
      data: {
        enablePullRequestAutoMerge: {
          pullRequest: { number: 1, autoMergeRequest: { mergeMethod: 'FAST_FORWARD' } }
        }
      }
    }
    expect(exchangeProblems(query, good, badEnum).join()).toContain('FAST_FORWARD')
    const okAnswer = {
      data: { enablePullRequestAutoMerge: { pullRequest: { number: 1, autoMergeRequest: null } } }
    }
    expect(
      exchangeProblems(query, { input: { pullRequestId: 'PR_1', bogus: 1 } }, okAnswer).join()
    ).toContain('bogus')
    expect(exchangeProblems(query, good, okAnswer)).toEqual([])
  })
})
