// The deployments adapter against the GitHub sandbox over real HTTP: a record is a deployment of the
// commit with its statuses, auto_inactive retires the earlier success, `previous` reads the newest
// success that names another version, and every exchange fits GitHub's description
// (@octokit/openapi).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import {
  deploymentAccessProblem,
  type DeploymentRecord,
  recordDeployment,
  recordedVersion
} from '../../src/workflow-repository/deployments.js'
import { createGitOpsOctokit } from '../../src/gitops/github/client/octokit.js'
import { loadGitHubDescription } from '../sandbox-tests/contracts/descriptions.js'
import { checkExchange } from '../sandbox-tests/contracts/exchange-check.js'
import { startGitHubSandbox, type GitHubSandbox } from '../sandbox/github/index.js'

const OWNER = 'acme'
const SHA = '3f2a9c1d5e7b8a6c4d2e0f1a3b5c7d9e1f2a3b4c'
const V1 = '11111111-1111-4111-8111-111111111111'
const V2 = '22222222-2222-4222-8222-222222222222'
const READ_ONLY = 'ghs_deployments_read'
let sandbox: GitHubSandbox
let repos = 0

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
  sandbox.addToken(READ_ONLY, { deployments: 'read' })
})

afterAll(async () => {
  await sandbox.close()
})

function call(token = sandbox.token) {
  repos += 1
  const repo = `templates-${repos}`
  sandbox.createRepo(OWNER, repo, { defaultBranch: 'main' })
  const octokit = createGitOpsOctokit({ token, baseUrl: sandbox.url, spaceWrites: false })
  return { octokit, owner: OWNER, repo }
}

function record(versionId: string, state: DeploymentRecord['state']): DeploymentRecord {
  return {
    environment: 'coder-docker',
    sha: SHA,
    description: `docker ${versionId.slice(0, 2)}`,
    payload: {
      template: 'docker',
      organization: 'acme',
      versionId,
      versionName: versionId === V1 ? 'v1' : 'v2',
      previousVersionId: '',
      testNames: ['docker-v1']
    },
    state,
    logUrl: 'https://github.example/acme/templates/actions/runs/1/attempts/1'
  }
}

describe('recordDeployment', () => {
  it('creates a deployment of the commit with statuses in_progress then the final one', async () => {
    const c = call()
    const id = await recordDeployment(c, record(V1, 'success'))
    const [stored] = sandbox.deployments(OWNER, c.repo)
    expect(stored).toMatchObject({
      id,
      sha: SHA,
      environment: 'coder-docker',
      payload: { template: 'docker', organization: 'acme', versionId: V1, versionName: 'v1' },
      production: false
    })
    expect(stored!.statuses.map((s) => s.state)).toEqual(['in_progress', 'success'])
  })

  it('auto_inactive: a new success retires the earlier one; a failure retires nothing', async () => {
    const c = call()
    await recordDeployment(c, record(V1, 'success'))
    await recordDeployment(c, record(V2, 'failure'))
    expect(sandbox.deployments(OWNER, c.repo)[0]!.statuses.at(-1)!.state).toBe('success')
    await recordDeployment(c, record(V2, 'success'))
    const states = sandbox.deployments(OWNER, c.repo).map((d) => d.statuses.at(-1)!.state)
    expect(states).toEqual(['inactive', 'failure', 'success'])
  })

  it('a token without deployments: write fails with the input and the permission named', async () => {
    const c = call(READ_ONLY)
    await expect(recordDeployment(c, record(V1, 'success'))).rejects.toThrow(/github-token/)
    expect(sandbox.deployments(OWNER, c.repo)).toEqual([])
  })
})

describe('deploymentAccessProblem (the preflight)', () => {
  it.each<[string, Parameters<GitHubSandbox['addToken']>[1], RegExp | null]>([
    ['a writer', {}, null],
    [
      'a reader',
      { role: 'read' },
      /may not write to acme\/templates-\d+, so it cannot record deployments/
    ],
    // An installation token whose permissions say nothing: cannot tell, so no problem.
    ['permissions all false', { repositoryPermissions: 'all-false' }, null],
    ['permissions omitted', { repositoryPermissions: 'omitted', role: 'read' }, null]
  ])('%s', async (_name, options, problem) => {
    const token = `ghs_access_${Math.random().toString(36).slice(2)}`
    sandbox.addToken(token, options)
    const found = await deploymentAccessProblem(call(token))
    if (problem === null) expect(found).toBeNull()
    else expect(found).toMatch(problem)
  })

  it('a repository the token cannot see', async () => {
    const c = call()
    expect(await deploymentAccessProblem({ ...c, repo: 'missing' })).toBe(
      'github-token cannot read acme/missing (HTTP 404)'
    )
  })
})

describe('recordedVersion (rollback-to: previous)', () => {
  const wanted = (except: string) => ({ template: 'docker', organization: 'acme', except })

  /** A success deployment with any payload, as another tool could write one. */
  async function foreign(c: ReturnType<typeof call>, payload: Record<string, unknown>) {
    const { data } = await c.octokit.rest.repos.createDeployment({
      owner: OWNER,
      repo: c.repo,
      ref: SHA,
      environment: 'coder-docker',
      payload,
      auto_merge: false,
      required_contexts: []
    })
    const id = (data as { id: number }).id
    await c.octokit.rest.repos.createDeploymentStatus({
      owner: OWNER,
      repo: c.repo,
      deployment_id: id,
      state: 'success'
    })
  }

  it('the newest success that names another version, also once it is inactive', async () => {
    const c = call()
    await recordDeployment(c, record(V1, 'success'))
    await recordDeployment(c, record(V2, 'success'))
    expect(await recordedVersion(c, 'coder-docker', wanted(V2))).toBe(V1)
    expect(await recordedVersion(c, 'coder-docker', wanted(V1))).toBe(V2)
    expect(await recordedVersion(c, 'other-environment', wanted(V2))).toBe('')
  })

  it('skips deployments that never reached success', async () => {
    const c = call()
    await recordDeployment(c, record(V1, 'failure'))
    await recordDeployment(c, record(V2, 'success'))
    expect(await recordedVersion(c, 'coder-docker', wanted(V2))).toBe('')
  })

  it("trusts only the gate's records of this template: another tool's newer success is skipped", async () => {
    const c = call()
    await recordDeployment(c, record(V1, 'success'))
    const V3 = '33333333-3333-4333-8333-333333333333'
    await foreign(c, { versionId: V3 })
    await foreign(c, { ...record(V3, 'success').payload, template: 'other' })
    await foreign(c, { ...record(V3, 'success').payload, organization: 'other-org' })
    expect(await recordedVersion(c, 'coder-docker', wanted(V2))).toBe(V1)
  })

  it('chooses by created_at, not by the order of the list', async () => {
    const c = call()
    await recordDeployment(c, record(V1, 'success'))
    await recordDeployment(c, record(V2, 'success'))
    // The later deployment in the list is the older one by created_at.
    const [first, second] = sandbox.deployments(OWNER, c.repo)
    first!.createdAt = '2026-12-02T00:00:00Z'
    second!.createdAt = '2026-12-01T00:00:00Z'
    const except = '44444444-4444-4444-8444-444444444444'
    expect(await recordedVersion(c, 'coder-docker', wanted(except))).toBe(V1)
  })
})

describe('the exchanges', () => {
  it('fit api.github.com.json', () => {
    const exchanges = sandbox.requests.filter((r) => r.path.includes('/deployments'))
    expect(exchanges.length).toBeGreaterThan(0)
    const description = loadGitHubDescription(exchanges)
    expect(exchanges.flatMap((r) => checkExchange(description, r))).toEqual([])
  }, 60_000)
})
