// The GitHub sandbox's preflight reads (repository, branches, rules, protection), pull requests
// (create, list, merge in three ways, close) and their issue side (labels, comments), driven over
// real HTTP by @actions/github's Octokit.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { getOctokit } from '@actions/github'
import type { GitOpsOctokit } from '../../../src/gitops/github/client/octokit.js'
import type { GitCommit } from '../../sandbox/contracts.js'
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.js'

const OWNER = 'acme'
const TOKEN = 'ghs_pulls'
const READ_ONLY = 'ghs_pulls_readonly'
const ADMIN = 'ghs_pulls_admin'

let sandbox: GitHubSandbox
let octokit: GitOpsOctokit
let repoCounter = 0
const events: GitCommit[] = []

beforeAll(async () => {
  sandbox = await startGitHubSandbox({ token: TOKEN })
  sandbox.addReadOnlyToken(READ_ONLY)
  sandbox.addToken(ADMIN, { role: 'admin', login: 'admin-user', kind: 'user' })
  sandbox.onCommit((commit) => events.push(commit))
  octokit = getOctokit(TOKEN, { baseUrl: sandbox.url })
})

afterAll(async () => {
  await sandbox.close()
})

function newRepo(): string {
  repoCounter += 1
  const repo = `pulls-${repoCounter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch: 'main', files: { 'README.md': '# r\n' } })
  return repo
}

/** A branch with one commit adding `path`. */
function branchWith(repo: string, branch: string, path = `tests/${branch}.yaml`): void {
  sandbox.createBranch(OWNER, repo, branch)
  sandbox.writeFile(OWNER, repo, branch, path, `${branch}\n`, `Add ${path}`)
}

function refusal(status: number, message: string) {
  return {
    status,
    response: expect.objectContaining({ data: expect.objectContaining({ message }) })
  }
}

async function openPull(repo: string, branch: string) {
  branchWith(repo, branch)
  const created = await octokit.rest.pulls.create({
    owner: OWNER,
    repo,
    head: branch,
    base: 'main',
    title: `Test ${branch}`,
    body: 'Opened by the gate'
  })
  return created.data
}

describe('preflight reads', () => {
  it('shows the token’s permissions and the merge settings on the repository', async () => {
    const repo = newRepo()
    sandbox.setRepoSettings(OWNER, repo, { allowAutoMerge: true, allowMergeCommit: false })
    const writer = await octokit.rest.repos.get({ owner: OWNER, repo })
    expect(writer.data).toMatchObject({
      full_name: `${OWNER}/${repo}`,
      default_branch: 'main',
      allow_auto_merge: true,
      allow_squash_merge: true,
      allow_merge_commit: false,
      allow_rebase_merge: true,
      delete_branch_on_merge: false,
      permissions: { admin: false, maintain: false, push: true, triage: true, pull: true }
    })
    expect(writer.data.node_id).toMatch(/^R_/)
    const reader = await getOctokit(READ_ONLY, { baseUrl: sandbox.url }).rest.repos.get({
      owner: OWNER,
      repo
    })
    expect(reader.data.permissions).toEqual({
      admin: false,
      maintain: false,
      push: false,
      triage: false,
      pull: true
    })
    const admin = await getOctokit(ADMIN, { baseUrl: sandbox.url }).rest.repos.get({
      owner: OWNER,
      repo
    })
    expect(admin.data.permissions?.admin).toBe(true)
    // As reported for GitHub App tokens: every permission false although the token can write.
    sandbox.addToken('ghs_pulls_app', { repositoryPermissions: 'all-false' })
    const app = await getOctokit('ghs_pulls_app', { baseUrl: sandbox.url }).rest.repos.get({
      owner: OWNER,
      repo
    })
    expect(app.data.permissions?.push).toBe(false)
  })

  it('reads a branch, and 404 "Branch not found" for a missing one', async () => {
    const repo = newRepo()
    const branch = await octokit.rest.repos.getBranch({ owner: OWNER, repo, branch: 'main' })
    expect(branch.data).toMatchObject({
      name: 'main',
      commit: { sha: sandbox.branchHead(OWNER, repo, 'main') },
      protected: false
    })
    await expect(
      octokit.rest.repos.getBranch({ owner: OWNER, repo, branch: 'nope' })
    ).rejects.toMatchObject(refusal(404, 'Branch not found'))
  })

  it('lists the active rules of a branch with their ruleset', async () => {
    const repo = newRepo()
    const id = sandbox.addRuleset(OWNER, repo, {
      requirePullRequest: { requiredApprovingReviewCount: 1 }
    })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: true, enforcement: 'evaluate' })
    const rules = await octokit.rest.repos.getBranchRules({ owner: OWNER, repo, branch: 'main' })
    expect(rules.data).toEqual([
      {
        type: 'pull_request',
        parameters: expect.objectContaining({ required_approving_review_count: 1 }),
        ruleset_source_type: 'Repository',
        ruleset_source: `${OWNER}/${repo}`,
        ruleset_id: id
      }
    ])
    const other = await octokit.rest.repos.getBranchRules({ owner: OWNER, repo, branch: 'dev' })
    expect(other.data).toEqual([])
    // A read-only token may read rules: the preflight needs no admin rights for them.
    const reader = getOctokit(READ_ONLY, { baseUrl: sandbox.url })
    expect(
      (await reader.rest.repos.getBranchRules({ owner: OWNER, repo, branch: 'main' })).data
    ).toHaveLength(1)
  })

  it('classic protection: 403 without admin rights, 404 "Branch not protected", 200 when set', async () => {
    const repo = newRepo()
    const admin = getOctokit(ADMIN, { baseUrl: sandbox.url })
    await expect(
      octokit.rest.repos.getBranchProtection({ owner: OWNER, repo, branch: 'main' })
    ).rejects.toMatchObject(refusal(403, 'Resource not accessible by integration'))
    await expect(
      admin.rest.repos.getBranchProtection({ owner: OWNER, repo, branch: 'main' })
    ).rejects.toMatchObject(refusal(404, 'Branch not protected'))
    sandbox.protectBranch(OWNER, repo, 'main', { requiredApprovingReviewCount: 2 })
    const protection = await admin.rest.repos.getBranchProtection({
      owner: OWNER,
      repo,
      branch: 'main'
    })
    expect(protection.data.required_pull_request_reviews).toMatchObject({
      required_approving_review_count: 2
    })
    const branch = await octokit.rest.repos.getBranch({ owner: OWNER, repo, branch: 'main' })
    expect(branch.data.protected).toBe(true)
  })
})

describe('pull requests', () => {
  it('opens one per head and base, and refuses a second one as GitHub does', async () => {
    const repo = newRepo()
    const pull = await openPull(repo, 'coder-template-gate/docker-v1')
    expect(pull).toMatchObject({
      number: 1,
      state: 'open',
      title: 'Test coder-template-gate/docker-v1',
      head: { ref: 'coder-template-gate/docker-v1', repo: { full_name: `${OWNER}/${repo}` } },
      base: { ref: 'main', sha: sandbox.branchHead(OWNER, repo, 'main') },
      user: { login: 'github-actions[bot]', type: 'Bot' },
      merged: false,
      auto_merge: null
    })
    expect(pull.html_url).toBe(`${sandbox.serverUrl}/${OWNER}/${repo}/pull/1`)
    expect(pull.node_id).toMatch(/^PR_/)
    const again = octokit.rest.pulls.create({
      owner: OWNER,
      repo,
      head: 'coder-template-gate/docker-v1',
      base: 'main',
      title: 'again'
    })
    await expect(again).rejects.toMatchObject({
      status: 422,
      response: expect.objectContaining({
        data: expect.objectContaining({
          message: 'Validation Failed',
          errors: [
            {
              resource: 'PullRequest',
              code: 'custom',
              message: `A pull request already exists for ${OWNER}:coder-template-gate/docker-v1.`
            }
          ]
        })
      })
    })
    sandbox.createBranch(OWNER, repo, 'empty')
    await expect(
      octokit.rest.pulls.create({ owner: OWNER, repo, head: 'empty', base: 'main', title: 'x' })
    ).rejects.toMatchObject({
      status: 422,
      response: expect.objectContaining({
        data: expect.objectContaining({
          errors: [
            {
              resource: 'PullRequest',
              code: 'custom',
              message: 'No commits between main and empty'
            }
          ]
        })
      })
    })
  })

  it('lists by head (owner:branch), base and state', async () => {
    const repo = newRepo()
    const first = await openPull(repo, 'gate/a')
    await openPull(repo, 'gate/b')
    const byHead = await octokit.rest.pulls.list({
      owner: OWNER,
      repo,
      head: `${OWNER}:gate/a`,
      base: 'main'
    })
    expect(byHead.data.map((p) => p.number)).toEqual([first.number])
    await octokit.rest.pulls.update({
      owner: OWNER,
      repo,
      pull_number: first.number,
      state: 'closed'
    })
    const open = await octokit.rest.pulls.list({ owner: OWNER, repo, head: `${OWNER}:gate/a` })
    expect(open.data).toEqual([])
    const closed = await octokit.rest.pulls.list({
      owner: OWNER,
      repo,
      head: `${OWNER}:gate/a`,
      state: 'closed'
    })
    expect(closed.data.map((p) => [p.number, p.state])).toEqual([[first.number, 'closed']])
    const all = await octokit.rest.pulls.list({ owner: OWNER, repo, state: 'all' })
    expect(all.data.map((p) => p.number)).toEqual([2, 1])
    // Closed through the API: closed_by is the token's account.
    const issue = await octokit.rest.issues.get({ owner: OWNER, repo, issue_number: first.number })
    expect(issue.data).toMatchObject({
      state: 'closed',
      closed_by: { login: 'github-actions[bot]' }
    })
    expect(issue.data.pull_request?.merged_at).toBeNull()
  })

  it('merges with a merge commit of two parents on the base branch and fires onCommit', async () => {
    const repo = newRepo()
    const pull = await openPull(repo, 'gate/merge')
    const base = sandbox.branchHead(OWNER, repo, 'main')!
    const head = sandbox.branchHead(OWNER, repo, 'gate/merge')!
    const seen = events.length
    const merged = await octokit.rest.pulls.merge({
      owner: OWNER,
      repo,
      pull_number: pull.number,
      merge_method: 'merge',
      sha: head
    })
    expect(merged.data).toEqual({
      sha: sandbox.branchHead(OWNER, repo, 'main'),
      merged: true,
      message: 'Pull Request successfully merged'
    })
    const tip = sandbox.commits(OWNER, repo, 'main').at(-1)!
    expect(tip.parents).toEqual([base, head])
    expect(tip.message).toBe(
      `Merge pull request #${pull.number} from ${OWNER}/gate/merge\n\nTest gate/merge`
    )
    expect(events.slice(seen).map((e) => [e.branch, [...e.changes]])).toEqual([
      ['main', [['tests/gate/merge.yaml', 'gate/merge\n']]]
    ])
    const after = await octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: pull.number })
    expect(after.data).toMatchObject({
      state: 'closed',
      merged: true,
      merge_commit_sha: tip.sha,
      merged_by: { login: 'github-actions[bot]' }
    })
    expect(after.data.merged_at).not.toBeNull()
  })

  it('squash makes one commit with one parent; rebase replays each commit', async () => {
    const repo = newRepo()
    const squashed = await openPull(repo, 'gate/squash')
    sandbox.writeFile(OWNER, repo, 'gate/squash', 'tests/second.yaml', '2\n', 'Second')
    const base = sandbox.branchHead(OWNER, repo, 'main')!
    await octokit.rest.pulls.merge({
      owner: OWNER,
      repo,
      pull_number: squashed.number,
      merge_method: 'squash'
    })
    const squash = sandbox.commits(OWNER, repo, 'main').at(-1)!
    expect(squash.parents).toEqual([base])
    expect(squash.message.split('\n')[0]).toBe(`Test gate/squash (#${squashed.number})`)
    expect([...squash.changes.keys()]).toEqual(['tests/gate/squash.yaml', 'tests/second.yaml'])

    const rebased = await openPull(repo, 'gate/rebase')
    sandbox.writeFile(OWNER, repo, 'gate/rebase', 'tests/third.yaml', '3\n', 'Third')
    const before = sandbox.commits(OWNER, repo, 'main').length
    await octokit.rest.pulls.merge({
      owner: OWNER,
      repo,
      pull_number: rebased.number,
      merge_method: 'rebase'
    })
    const history = sandbox.commits(OWNER, repo, 'main')
    expect(history.slice(before).map((c) => [c.message, c.parents.length])).toEqual([
      ['Add tests/gate/rebase.yaml', 1],
      ['Third', 1]
    ])
    expect(sandbox.readFile(OWNER, repo, 'main', 'tests/third.yaml')).toBe('3\n')
  })

  it('refuses merges as GitHub does: method, moved head, missing review, pending check', async () => {
    const repo = newRepo()
    sandbox.setRepoSettings(OWNER, repo, { allowMergeCommit: false })
    const pull = await openPull(repo, 'gate/refused')
    const merge = (options: { merge_method?: 'merge' | 'squash' | 'rebase'; sha?: string }) =>
      octokit.rest.pulls.merge({ owner: OWNER, repo, pull_number: pull.number, ...options })
    await expect(merge({ merge_method: 'merge' })).rejects.toMatchObject(
      refusal(405, 'Merge commits are not allowed on this repository.')
    )
    const stale = sandbox.branchHead(OWNER, repo, 'gate/refused')!
    sandbox.writeFile(OWNER, repo, 'gate/refused', 'tests/more.yaml', 'more\n')
    await expect(merge({ merge_method: 'squash', sha: stale })).rejects.toMatchObject(
      refusal(409, 'Head branch was modified. Review and try the merge again.')
    )
    sandbox.protectBranch(OWNER, repo, 'main', { requiredApprovingReviewCount: 1 })
    await expect(merge({ merge_method: 'squash' })).rejects.toMatchObject({
      status: 405,
      response: expect.objectContaining({
        data: expect.objectContaining({
          message: 'At least 1 approving review is required by reviewers with write access.',
          documentation_url: 'https://docs.github.com/articles/about-protected-branches'
        })
      })
    })
    const blocked = await octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: pull.number })
    expect([blocked.data.mergeable, blocked.data.mergeable_state]).toEqual([true, 'blocked'])
    sandbox.approvePullRequest(OWNER, repo, pull.number, 'reviewer')
    sandbox.unprotectBranch(OWNER, repo, 'main')
    sandbox.addRuleset(OWNER, repo, { requiredStatusChecks: ['ci'] })
    sandbox.setRepoSettings(OWNER, repo, { checksDurationMs: 3_600_000 })
    await expect(merge({ merge_method: 'squash' })).rejects.toMatchObject(
      refusal(
        405,
        'Repository rule violations found\n\nRequired status check "ci" is expected.\n\n'
      )
    )
    sandbox.setRepoSettings(OWNER, repo, { checksDurationMs: 0 })
    const done = await merge({ merge_method: 'squash' })
    expect(done.data.merged).toBe(true)
    await expect(merge({ merge_method: 'squash' })).rejects.toMatchObject(
      refusal(405, 'Pull Request is not mergeable')
    )
  })

  it('a conflicting pull request is dirty and not mergeable', async () => {
    const repo = newRepo()
    const pull = await openPull(repo, 'gate/conflict')
    sandbox.writeFile(OWNER, repo, 'main', 'tests/gate/conflict.yaml', 'main side\n')
    const read = await octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: pull.number })
    expect([read.data.mergeable, read.data.mergeable_state]).toEqual([false, 'dirty'])
    await expect(
      octokit.rest.pulls.merge({ owner: OWNER, repo, pull_number: pull.number })
    ).rejects.toMatchObject(refusal(405, 'Pull Request is not mergeable'))
  })

  it('mergeable_state is unknown while GitHub computes it, then blocked, then clean', async () => {
    const repo = newRepo()
    sandbox.setRepoSettings(OWNER, repo, { mergeabilityDelayMs: 1000 })
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: { requiredApprovingReviewCount: 1 } })
    const pull = await openPull(repo, 'gate/states')
    const states: string[] = []
    const read = async () => {
      const got = await octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: pull.number })
      if (states.at(-1) !== got.data.mergeable_state) states.push(got.data.mergeable_state)
      return got.data
    }
    expect((await read()).mergeable).toBeNull()
    while ((await read()).mergeable_state === 'unknown') await sleep(20)
    sandbox.approvePullRequest(OWNER, repo, pull.number)
    await read()
    expect(states).toEqual(['unknown', 'blocked', 'clean'])
  })

  it('scripted people: a human merges or closes by login', async () => {
    const repo = newRepo()
    const merged = await openPull(repo, 'gate/human-merge')
    const sha = sandbox.mergePullRequest(OWNER, repo, merged.number, { login: 'alice' })
    const read = await octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: merged.number })
    expect(read.data).toMatchObject({
      merged: true,
      merged_by: { login: 'alice' },
      merge_commit_sha: sha
    })
    const closed = await openPull(repo, 'gate/human-close')
    sandbox.closePullRequest(OWNER, repo, closed.number, 'bob')
    const issue = await octokit.rest.issues.get({ owner: OWNER, repo, issue_number: closed.number })
    expect(issue.data).toMatchObject({ state: 'closed', closed_by: { login: 'bob', type: 'User' } })
    expect(sandbox.pullRequest(OWNER, repo, closed.number)).toMatchObject({
      state: 'closed',
      merged: false,
      closedBy: 'bob'
    })
  })

  it('a read-only token cannot open, close or merge', async () => {
    const repo = newRepo()
    const pull = await openPull(repo, 'gate/ro')
    const reader = getOctokit(READ_ONLY, { baseUrl: sandbox.url })
    const forbidden = refusal(403, 'Resource not accessible by integration')
    branchWith(repo, 'gate/ro2')
    await expect(
      reader.rest.pulls.create({ owner: OWNER, repo, head: 'gate/ro2', base: 'main', title: 'x' })
    ).rejects.toMatchObject(forbidden)
    await expect(
      reader.rest.pulls.update({ owner: OWNER, repo, pull_number: pull.number, state: 'closed' })
    ).rejects.toMatchObject(forbidden)
    await expect(
      reader.rest.pulls.merge({ owner: OWNER, repo, pull_number: pull.number })
    ).rejects.toMatchObject(forbidden)
    expect(
      (await reader.rest.pulls.get({ owner: OWNER, repo, pull_number: pull.number })).status
    ).toBe(200)
  })
})

describe('labels and comments', () => {
  it('adds labels (creating unknown ones) and refuses a name GitHub cannot take', async () => {
    const repo = newRepo()
    const pull = await openPull(repo, 'gate/labels')
    const added = await octokit.rest.issues.addLabels({
      owner: OWNER,
      repo,
      issue_number: pull.number,
      labels: ['coder-template-gate', 'automated']
    })
    expect(added.data.map((l) => l.name)).toEqual(['coder-template-gate', 'automated'])
    const tooLong = 'x'.repeat(51)
    await expect(
      octokit.rest.issues.addLabels({
        owner: OWNER,
        repo,
        issue_number: pull.number,
        labels: [tooLong]
      })
    ).rejects.toMatchObject({
      status: 422,
      response: expect.objectContaining({
        data: expect.objectContaining({
          message: 'Validation Failed',
          errors: [{ value: tooLong, resource: 'Label', field: 'name', code: 'invalid' }]
        })
      })
    })
    const read = await octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: pull.number })
    expect(read.data.labels.map((l) => l.name)).toEqual(['coder-template-gate', 'automated'])
  })

  it('creates, lists and updates comments; a read-only token may only read', async () => {
    const repo = newRepo()
    const pull = await openPull(repo, 'gate/comments')
    sandbox.commentOnPullRequest(OWNER, repo, pull.number, 'LGTM', 'alice')
    const created = await octokit.rest.issues.createComment({
      owner: OWNER,
      repo,
      issue_number: pull.number,
      body: '<!-- coder-template-gate -->\nTesting…'
    })
    expect(created.status).toBe(201)
    expect(created.data.user?.login).toBe('github-actions[bot]')
    const updated = await octokit.rest.issues.updateComment({
      owner: OWNER,
      repo,
      comment_id: created.data.id,
      body: '<!-- coder-template-gate -->\nPassed'
    })
    expect(updated.data.body).toBe('<!-- coder-template-gate -->\nPassed')
    const listed = await octokit.rest.issues.listComments({
      owner: OWNER,
      repo,
      issue_number: pull.number
    })
    expect(listed.data.map((c) => [c.user?.login, c.body])).toEqual([
      ['alice', 'LGTM'],
      ['github-actions[bot]', '<!-- coder-template-gate -->\nPassed']
    ])
    const reader = getOctokit(READ_ONLY, { baseUrl: sandbox.url })
    const forbidden = refusal(403, 'Resource not accessible by integration')
    await expect(
      reader.rest.issues.createComment({ owner: OWNER, repo, issue_number: pull.number, body: 'x' })
    ).rejects.toMatchObject(forbidden)
    await expect(
      reader.rest.issues.updateComment({
        owner: OWNER,
        repo,
        comment_id: created.data.id,
        body: 'x'
      })
    ).rejects.toMatchObject(forbidden)
    await expect(
      reader.rest.issues.addLabels({ owner: OWNER, repo, issue_number: pull.number, labels: ['x'] })
    ).rejects.toMatchObject(forbidden)
    expect(
      (await reader.rest.issues.listComments({ owner: OWNER, repo, issue_number: pull.number }))
        .data
    ).toHaveLength(2)
    // A token with pull requests write but no issues write may still comment on a pull request.
    sandbox.addToken('ghs_pulls_only', { issues: 'none', pullRequests: 'write' })
    const prOnly = getOctokit('ghs_pulls_only', { baseUrl: sandbox.url })
    expect(
      (
        await prOnly.rest.issues.createComment({
          owner: OWNER,
          repo,
          issue_number: pull.number,
          body: 'y'
        })
      ).status
    ).toBe(201)
    // And one with neither may not.
    sandbox.addToken('ghs_contents_only', { issues: 'none', pullRequests: 'none' })
    await expect(
      getOctokit('ghs_contents_only', { baseUrl: sandbox.url }).rest.issues.createComment({
        owner: OWNER,
        repo,
        issue_number: pull.number,
        body: 'z'
      })
    ).rejects.toMatchObject(forbidden)
    expect(sandbox.comments(OWNER, repo, pull.number)).toHaveLength(3)
  })
})

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
