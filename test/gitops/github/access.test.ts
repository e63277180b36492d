// inspectGitOpsRepository against the GitHub sandbox over real HTTP, through createGitOpsOctokit:
// the repository, the branch, the token's write right, rulesets and classic protection.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { inspectGitOpsRepository } from '../../../src/gitops/github/access.js'
import type { GitOpsFacts } from '../../../src/gitops/host.js'
import { createGitOpsOctokit } from '../../../src/gitops/github/client/octokit.js'
import { DOCS, HttpFailure } from '../../sandbox/github/errors.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.js'

const OWNER = 'acme'
// Default token: a GITHUB_TOKEN with write access and no administration read.
const ADMIN_READ = 'ghs_access_admin_read'
const ADMIN = 'ghs_access_admin_role'
const READ_ONLY = 'ghs_access_read_only'
const OMITTED = 'ghs_access_omitted'
const ALL_FALSE = 'ghs_access_all_false'
const BAD = 'ghs_access_never_issued'

let sandbox: GitHubSandbox
let repoCounter = 0

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
  sandbox.addToken(ADMIN_READ, { administration: 'read' })
  sandbox.addToken(ADMIN, { role: 'admin' })
  sandbox.addReadOnlyToken(READ_ONLY)
  sandbox.addToken(OMITTED, { repositoryPermissions: 'omitted', administration: 'read' })
  sandbox.addToken(ALL_FALSE, { repositoryPermissions: 'all-false', administration: 'read' })
})

afterAll(async () => {
  await sandbox.close()
})

function newRepo(defaultBranch = 'main'): string {
  repoCounter += 1
  const repo = `access-${repoCounter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch })
  return repo
}

function inspect(repo: string, branch: string, token = ADMIN_READ) {
  const octokit = createGitOpsOctokit({ token, baseUrl: sandbox.url, delayUnitMs: 1, retries: 1 })
  return inspectGitOpsRepository({ octokit, owner: OWNER, repo, branch })
}

function requestsOf(repo: string) {
  return sandbox.requests.filter((r) => r.path.startsWith(`/repos/${OWNER}/${repo}`))
}

const found: GitOpsFacts = {
  repository: 'found',
  branch: 'main',
  branchExists: true,
  canWrite: true,
  pullRequestRequiredBy: null,
  rulesKnown: true,
  allowAutoMerge: false,
  commitRules: []
}

describe('inspectGitOpsRepository', () => {
  it('a found repository and branch with no rules: everything known, read-only', async () => {
    const repo = newRepo()
    expect(await inspect(repo, 'main')).toEqual(found)
    const requests = requestsOf(repo)
    expect(requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET', 'GET'])
    // The protection read answered "Branch not protected": known, not required.
    expect(requests.filter((r) => r.path.endsWith('/protection')).map((r) => r.status)).toEqual([
      404
    ])
  })

  it("branch '' is the repository's default branch; allowAutoMerge is the repository's", async () => {
    const repo = newRepo('trunk')
    sandbox.setRepoSettings(OWNER, repo, { allowAutoMerge: true })
    expect(await inspect(repo, '')).toEqual({ ...found, branch: 'trunk', allowAutoMerge: true })
  })

  it('a missing branch: branchExists false, rules not read', async () => {
    const repo = newRepo()
    const rest: GitOpsFacts = { ...found }
    delete rest.commitRules
    expect(await inspect(repo, 'release')).toEqual({
      ...rest,
      branch: 'release',
      branchExists: false,
      rulesKnown: false
    })
    expect(requestsOf(repo).some((r) => /\/rules\/|\/protection/.test(r.path))).toBe(false)
  })

  it('a missing repository (404), a bad token (401) and a refused read (403)', async () => {
    const none = {
      branchExists: false,
      canWrite: undefined,
      rulesKnown: false,
      allowAutoMerge: undefined
    }
    expect(await inspect('no-such-repo', 'main')).toMatchObject({ repository: 'missing', ...none })
    const repo = newRepo()
    expect(await inspect(repo, 'main', BAD)).toMatchObject({ repository: 'bad-token', ...none })
    // guess: a 403 on GET /repos/{o}/{r} (e.g. an IP allow list); scripted, the sandbox has none.
    const stop = sandbox.beforeRequest((method, path) => {
      if (method === 'GET' && path === `/repos/${OWNER}/${repo}`)
        throw new HttpFailure(403, 'Resource not accessible by integration', DOCS.getRepo)
    })
    try {
      expect(await inspect(repo, 'main')).toMatchObject({ repository: 'forbidden', ...none })
    } finally {
      stop()
    }
  })

  it("a ruleset requiring a pull request on the branch is 'a repository ruleset'", async () => {
    const repo = newRepo()
    const id = sandbox.addRuleset(OWNER, repo, { name: 'main rules', requirePullRequest: true })
    expect(await inspect(repo, 'main')).toEqual({
      ...found,
      pullRequestRequiredBy: 'a repository ruleset',
      commitRules: [{ rule: 'pull_request', by: `ruleset "main rules" (id ${id})`, bypass: false }]
    })
    // Another branch is not covered by the ~DEFAULT_BRANCH ruleset.
    sandbox.createBranch(OWNER, repo, 'gitops')
    expect(await inspect(repo, 'gitops')).toEqual({ ...found, branch: 'gitops' })
  })

  it('a ruleset that requires no pull request, or is not active, requires none', async () => {
    const repo = newRepo()
    sandbox.addRuleset(OWNER, repo, { rules: [{ type: 'deletion' }] })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: true, enforcement: 'evaluate' })
    expect(await inspect(repo, 'main')).toEqual(found)
  })

  it("classic protection requiring a pull request is 'classic branch protection'", async () => {
    const repo = newRepo()
    sandbox.protectBranch(OWNER, repo, 'main', { enforceAdmins: true })
    const by = 'classic branch protection'
    expect(await inspect(repo, 'main')).toEqual({
      ...found,
      pullRequestRequiredBy: by,
      commitRules: [{ rule: 'pull_request', by, bypass: false }]
    })
    // Protection with required checks only asks for no pull request, yet refuses a direct commit.
    sandbox.protectBranch(OWNER, repo, 'main', {
      requirePullRequest: false,
      requiredStatusChecks: ['ci'],
      enforceAdmins: true
    })
    expect(await inspect(repo, 'main')).toEqual({
      ...found,
      commitRules: [{ rule: 'required_status_checks', by, bypass: false }]
    })
  })

  it('a required_status_checks ruleset refuses a direct commit; an admin bypass actor passes', async () => {
    const repo = newRepo()
    const id = sandbox.addRuleset(OWNER, repo, {
      name: 'checks',
      requiredStatusChecks: ['ci'],
      bypassAdmins: true
    })
    const rule = { rule: 'required_status_checks', by: `ruleset "checks" (id ${id})` }
    // The write token is no bypass actor: current_user_can_bypass 'never'.
    expect((await inspect(repo, 'main', sandbox.token)).commitRules).toEqual([
      { ...rule, bypass: false }
    ])
    // The admin token is: 'always'.
    expect((await inspect(repo, 'main', ADMIN)).commitRules).toEqual([{ ...rule, bypass: true }])
    const reads = requestsOf(repo).filter((r) => r.path.endsWith(`/rulesets/${id}`))
    expect(reads.map((r) => r.status)).toEqual([200, 200])
  })

  it('classic protection: an admin bypasses unless enforce_admins is on', async () => {
    const repo = newRepo()
    sandbox.protectBranch(OWNER, repo, 'main', {
      requirePullRequest: false,
      requiredStatusChecks: ['ci']
    })
    const by = 'classic branch protection'
    expect((await inspect(repo, 'main', ADMIN)).commitRules).toEqual([
      { rule: 'required_status_checks', by, bypass: true }
    ])
    expect((await inspect(repo, 'main')).commitRules).toEqual([
      { rule: 'required_status_checks', by, bypass: false }
    ])
    sandbox.protectBranch(OWNER, repo, 'main', {
      requirePullRequest: false,
      requiredStatusChecks: ['ci'],
      enforceAdmins: true
    })
    expect((await inspect(repo, 'main', ADMIN)).commitRules).toEqual([
      { rule: 'required_status_checks', by, bypass: false }
    ])
  })

  it('both a ruleset and classic protection: the ruleset is named', async () => {
    const repo = newRepo()
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: true })
    sandbox.protectBranch(OWNER, repo, 'main')
    expect((await inspect(repo, 'main')).pullRequestRequiredBy).toBe('a repository ruleset')
  })

  it('protection unreadable without administration read (403): rules not known', async () => {
    const repo = newRepo()
    sandbox.protectBranch(OWNER, repo, 'main')
    expect(await inspect(repo, 'main', sandbox.token)).toEqual({ ...found, rulesKnown: false })
    const protection = requestsOf(repo).filter((r) => r.path.endsWith('/protection'))
    expect(protection.map((r) => r.status)).toEqual([403])
    // The ruleset is still read (read access suffices) and still named.
    const id = sandbox.addRuleset(OWNER, repo, { requirePullRequest: true })
    expect(await inspect(repo, 'main', sandbox.token)).toEqual({
      ...found,
      rulesKnown: false,
      pullRequestRequiredBy: 'a repository ruleset',
      commitRules: [
        { rule: 'pull_request', by: `ruleset "ruleset-${id}" (id ${id})`, bypass: false }
      ]
    })
  })

  it('a 404 on the protection that is not "Branch not protected" tells nothing', async () => {
    const repo = newRepo()
    // guess: what a token without admin rights may get instead of 403.
    const stop = sandbox.beforeRequest((_method, path) => {
      if (path.endsWith('/protection')) throw new HttpFailure(404, 'Not Found', DOCS.getProtection)
    })
    try {
      expect(await inspect(repo, 'main')).toEqual({ ...found, rulesKnown: false })
    } finally {
      stop()
    }
  })

  it('a rules read that fails (500) is "cannot tell", not a failure', async () => {
    const repo = newRepo()
    const stop = sandbox.beforeRequest((_method, path) => {
      if (path.includes('/rules/branches/')) throw new HttpFailure(500, 'Server Error', DOCS.rest)
    })
    try {
      expect(await inspect(repo, 'main')).toEqual({ ...found, rulesKnown: false })
    } finally {
      stop()
    }
  })

  it('write permission: none for a read-only token, unknown when GitHub does not say', async () => {
    const repo = newRepo()
    expect(await inspect(repo, 'main', READ_ONLY)).toMatchObject({
      repository: 'found',
      branchExists: true,
      canWrite: false
    })
    expect((await inspect(repo, 'main', OMITTED)).canWrite).toBeUndefined()
    // App tokens seen with every flag false, pull included: not this token's rights.
    expect((await inspect(repo, 'main', ALL_FALSE)).canWrite).toBeUndefined()
  })

  it('a cancel stays the cancel', async () => {
    const repo = newRepo()
    const controller = new AbortController()
    controller.abort(new Error('cancelled by the test'))
    const octokit = createGitOpsOctokit({ token: ADMIN_READ, baseUrl: sandbox.url, retries: 0 })
    await expect(
      inspectGitOpsRepository({
        octokit,
        owner: OWNER,
        repo,
        branch: 'main',
        signal: controller.signal
      })
    ).rejects.toThrow('cancelled by the test')
  })
})
