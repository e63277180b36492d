// The GitHub sandbox's Git Data API, compare, and branch rules enforcement, driven over real HTTP
// by @actions/github's Octokit (the client under createGitOpsOctokit, without its throttling
// plugin, whose one-second spacing of writes only slows these tests down).
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { getOctokit } from '@actions/github'
import type { GitOpsOctokit } from '../../../src/gitops/github/client/octokit.js'
import type { GitCommit } from '../../sandbox/contracts.js'
import { gitBlobSha, startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.js'

const OWNER = 'acme'
const HELLO = 'hello world\n'
const HELLO_SHA = '3b18e512dba79e4c8300dd08aeb37f8e728b8dad'

let sandbox: GitHubSandbox
let octokit: GitOpsOctokit
let repoCounter = 0
const events: GitCommit[] = []

beforeAll(async () => {
  sandbox = await startGitHubSandbox({ token: 'ghs_gitdata' })
  sandbox.onCommit((commit) => events.push(commit))
  octokit = client(sandbox.url)
})

afterAll(async () => {
  await sandbox.close()
})

function client(baseUrl: string, token = 'ghs_gitdata'): GitOpsOctokit {
  return getOctokit(token, { baseUrl })
}

function newRepo(files: Record<string, string> = { 'README.md': '# r\n' }): string {
  repoCounter += 1
  const repo = `data-${repoCounter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch: 'main', files })
  return repo
}

/** Octokit's RequestError, as far as these tests read it. */
function refusal(status: number, message: string) {
  return {
    status,
    response: expect.objectContaining({ data: expect.objectContaining({ message }) })
  }
}

/** One commit through the Git Data API, as the action will write it. */
async function commitFiles(
  repo: string,
  branch: string,
  tree: Array<{ path: string; content?: string; sha?: string | null }>,
  message = 'gate: write'
) {
  const ref = await octokit.rest.git.getRef({ owner: OWNER, repo, ref: `heads/${branch}` })
  const parent = await octokit.rest.git.getCommit({
    owner: OWNER,
    repo,
    commit_sha: ref.data.object.sha
  })
  const newTree = await octokit.rest.git.createTree({
    owner: OWNER,
    repo,
    base_tree: parent.data.tree.sha,
    tree: tree.map((entry) => ({ mode: '100644' as const, type: 'blob' as const, ...entry }))
  })
  const commit = await octokit.rest.git.createCommit({
    owner: OWNER,
    repo,
    message,
    tree: newTree.data.sha,
    parents: [ref.data.object.sha]
  })
  return { parent: ref.data.object.sha, commit: commit.data.sha, tree: newTree.data.sha }
}

describe('Git Data API', () => {
  it('reads a branch ref (singular `ref`) and answers 404 for an unknown one', async () => {
    const repo = newRepo()
    const ref = await octokit.rest.git.getRef({ owner: OWNER, repo, ref: 'heads/main' })
    expect(ref.data).toMatchObject({
      ref: 'refs/heads/main',
      object: { sha: sandbox.branchHead(OWNER, repo, 'main'), type: 'commit' }
    })
    expect(ref.data.url).toBe(`${sandbox.url}/repos/${OWNER}/${repo}/git/refs/heads/main`)
    await expect(
      octokit.rest.git.getRef({ owner: OWNER, repo, ref: 'heads/nope' })
    ).rejects.toMatchObject(refusal(404, 'Not Found'))
  })

  it('stores blobs, trees and commits under the SHAs git computes', async () => {
    const repo = newRepo()
    const utf8 = await octokit.rest.git.createBlob({ owner: OWNER, repo, content: HELLO })
    const base64 = await octokit.rest.git.createBlob({
      owner: OWNER,
      repo,
      content: Buffer.from(HELLO).toString('base64'),
      encoding: 'base64'
    })
    expect(utf8.status).toBe(201)
    expect([utf8.data.sha, base64.data.sha]).toEqual([HELLO_SHA, HELLO_SHA])
    const blob = await octokit.rest.git.getBlob({ owner: OWNER, repo, file_sha: HELLO_SHA })
    expect(Buffer.from(blob.data.content, 'base64').toString()).toBe(HELLO)

    // Printed by `git hash-object -t tree --stdin` for a.txt, dir.txt and dir/b.txt (all HELLO):
    // git sorts "dir.txt" before the subtree "dir".
    const tree = await octokit.rest.git.createTree({
      owner: OWNER,
      repo,
      tree: [
        { path: 'dir/b.txt', mode: '100644', type: 'blob', sha: HELLO_SHA },
        { path: 'a.txt', mode: '100644', type: 'blob', content: HELLO },
        { path: 'dir.txt', mode: '100644', type: 'blob', sha: HELLO_SHA }
      ]
    })
    expect(tree.data.sha).toBe('4da190cc15ea6ef9e4d7ed122b156227b52b19b4')
    expect(tree.data.tree.map((e) => [e.path, e.type])).toEqual([
      ['a.txt', 'blob'],
      ['dir.txt', 'blob'],
      ['dir', 'tree']
    ])
    const deep = await octokit.rest.git.getTree({
      owner: OWNER,
      repo,
      tree_sha: tree.data.sha,
      recursive: 'true'
    })
    expect(deep.data.tree.map((e) => e.path)).toEqual(['a.txt', 'dir.txt', 'dir', 'dir/b.txt'])

    // Printed by `git hash-object -t commit --stdin` for this author, date and message.
    const ann = { name: 'Ann', email: 'ann@example.com', date: '2023-11-14T22:13:20Z' }
    const commit = await octokit.rest.git.createCommit({
      owner: OWNER,
      repo,
      message: 'First',
      tree: tree.data.sha,
      parents: [],
      author: ann,
      committer: ann
    })
    expect(commit.status).toBe(201)
    expect(commit.data.sha).toBe('b8ebf75b7058c0ab48e95f4b8f20b69d57f668ad')
    const read = await octokit.rest.git.getCommit({
      owner: OWNER,
      repo,
      commit_sha: commit.data.sha
    })
    expect(read.data).toMatchObject({ message: 'First', tree: { sha: tree.data.sha }, parents: [] })
    expect(read.data.author).toEqual(ann)
  })

  it('moves a branch only on the ref update, which fires onCommit with the changed paths', async () => {
    const repo = newRepo({ 'keep.txt': 'k\n', 'gone.yaml': 'old\n' })
    const seen = events.length
    const written = await commitFiles(repo, 'main', [
      { path: 'tests/new.yaml', content: 'new\n' },
      { path: 'gone.yaml', sha: null }
    ])
    // Blobs, trees and commits alone move nothing.
    expect(events.length).toBe(seen)
    expect(sandbox.branchHead(OWNER, repo, 'main')).toBe(written.parent)

    const updated = await octokit.rest.git.updateRef({
      owner: OWNER,
      repo,
      ref: 'heads/main',
      sha: written.commit
    })
    expect(updated.data.object.sha).toBe(written.commit)
    const mine = events.slice(seen)
    expect(mine).toHaveLength(1)
    expect(mine[0]).toMatchObject({ repo, branch: 'main', sha: written.commit })
    expect([...mine[0].changes]).toEqual([
      ['gone.yaml', null],
      ['tests/new.yaml', 'new\n']
    ])
    expect(sandbox.readFile(OWNER, repo, 'main', 'tests/new.yaml')).toBe('new\n')
    expect(sandbox.readFile(OWNER, repo, 'main', 'gone.yaml')).toBeNull()
    expect(sandbox.commits(OWNER, repo, 'main').at(-1)).toMatchObject({
      sha: written.commit,
      parent: written.parent,
      message: 'gate: write',
      author: { name: 'github-actions[bot]' }
    })
  })

  it('refuses tree entries GitHub refuses', async () => {
    const repo = newRepo()
    const head = await octokit.rest.git.getCommit({
      owner: OWNER,
      repo,
      commit_sha: sandbox.branchHead(OWNER, repo, 'main')!
    })
    await expect(
      octokit.rest.git.createTree({
        owner: OWNER,
        repo,
        base_tree: head.data.tree.sha,
        tree: [{ path: 'missing.txt', mode: '100644', type: 'blob', sha: null }]
      })
    ).rejects.toMatchObject(refusal(422, 'GitRPC::BadObjectState'))
    await expect(
      octokit.rest.git.createTree({
        owner: OWNER,
        repo,
        tree: [{ path: 'x.txt', mode: '100644', type: 'blob' }]
      })
    ).rejects.toMatchObject(
      refusal(
        422,
        'Must supply either tree.sha or tree.content. Request will be rejected if both are present.'
      )
    )
    await expect(
      octokit.rest.git.createCommit({ owner: OWNER, repo, message: 'x', tree: 'f'.repeat(40) })
    ).rejects.toMatchObject(refusal(422, 'Tree SHA does not exist'))
  })

  it('refuses a non-fast-forward update unless forced', async () => {
    const repo = newRepo()
    const first = await commitFiles(repo, 'main', [{ path: 'a.txt', content: 'a\n' }])
    sandbox.writeFile(OWNER, repo, 'main', 'other.txt', 'someone else\n')
    await expect(
      octokit.rest.git.updateRef({ owner: OWNER, repo, ref: 'heads/main', sha: first.commit })
    ).rejects.toMatchObject(refusal(422, 'Update is not a fast forward'))
    await octokit.rest.git.updateRef({
      owner: OWNER,
      repo,
      ref: 'heads/main',
      sha: first.commit,
      force: true
    })
    expect(sandbox.branchHead(OWNER, repo, 'main')).toBe(first.commit)
    expect(sandbox.readFile(OWNER, repo, 'main', 'other.txt')).toBeNull()
  })

  it('an injected conflict moves the branch between read and ref update', async () => {
    const repo = newRepo()
    const written = await commitFiles(repo, 'main', [{ path: 'mine.yaml', content: 'mine\n' }])
    sandbox.injectConflicts(1, 409)
    await expect(
      octokit.rest.git.updateRef({ owner: OWNER, repo, ref: 'heads/main', sha: written.commit })
    ).rejects.toMatchObject(refusal(422, 'Update is not a fast forward'))
    const history = sandbox.commits(OWNER, repo, 'main')
    expect(history.at(-1)?.author.name).toBe('other-writer')
    expect(history.at(-1)?.parent).toBe(written.parent)
    // Re-reading and writing again succeeds: the fault was used up.
    const again = await commitFiles(repo, 'main', [{ path: 'mine.yaml', content: 'mine\n' }])
    await octokit.rest.git.updateRef({ owner: OWNER, repo, ref: 'heads/main', sha: again.commit })
    expect(sandbox.readFile(OWNER, repo, 'main', 'mine.yaml')).toBe('mine\n')
    expect(sandbox.readFile(OWNER, repo, 'main', 'other-writer/change-1.txt')).not.toBeNull()
  })

  it('creates, lists, and deletes branch refs', async () => {
    const repo = newRepo()
    const head = sandbox.branchHead(OWNER, repo, 'main')!
    const seen = events.length
    const created = await octokit.rest.git.createRef({
      owner: OWNER,
      repo,
      ref: 'refs/heads/coder-template-gate/docker-v1',
      sha: head
    })
    expect(created.status).toBe(201)
    expect(created.data.ref).toBe('refs/heads/coder-template-gate/docker-v1')
    // A new branch is a branch move too: its listeners see the whole tree.
    expect(events.slice(seen).map((e) => [e.branch, [...e.changes.keys()]])).toEqual([
      ['coder-template-gate/docker-v1', ['README.md']]
    ])
    await expect(
      octokit.rest.git.createRef({
        owner: OWNER,
        repo,
        ref: 'refs/heads/coder-template-gate/docker-v1',
        sha: head
      })
    ).rejects.toMatchObject(refusal(422, 'Reference already exists'))
    const matching = await octokit.rest.git.listMatchingRefs({
      owner: OWNER,
      repo,
      ref: 'heads/coder-template-gate/'
    })
    expect(matching.data.map((r) => r.ref)).toEqual(['refs/heads/coder-template-gate/docker-v1'])
    const deleted = await octokit.rest.git.deleteRef({
      owner: OWNER,
      repo,
      ref: 'heads/coder-template-gate/docker-v1'
    })
    expect(deleted.status).toBe(204)
    await expect(
      octokit.rest.git.updateRef({
        owner: OWNER,
        repo,
        ref: 'heads/coder-template-gate/docker-v1',
        sha: head
      })
    ).rejects.toMatchObject(refusal(422, 'Reference does not exist'))
  })

  it('compares two branches: status, ahead/behind, commits, merge base', async () => {
    const repo = newRepo()
    const base = sandbox.branchHead(OWNER, repo, 'main')!
    sandbox.createBranch(OWNER, repo, 'feature')
    sandbox.writeFile(OWNER, repo, 'feature', 'f1.txt', '1\n', 'feature one')
    sandbox.writeFile(OWNER, repo, 'feature', 'f2.txt', '2\n', 'feature two')
    const ahead = await octokit.rest.repos.compareCommitsWithBasehead({
      owner: OWNER,
      repo,
      basehead: 'main...feature'
    })
    expect(ahead.data).toMatchObject({
      status: 'ahead',
      ahead_by: 2,
      behind_by: 0,
      total_commits: 2,
      merge_base_commit: { sha: base }
    })
    expect(ahead.data.commits.map((c) => c.commit.message)).toEqual(['feature one', 'feature two'])
    expect(ahead.data.commits[0].commit.author?.name).toBe('other-writer')
    expect(ahead.data.files?.map((f) => [f.filename, f.status])).toEqual([
      ['f1.txt', 'added'],
      ['f2.txt', 'added']
    ])
    sandbox.writeFile(OWNER, repo, 'main', 'm.txt', 'm\n', 'main moves')
    const diverged = await octokit.rest.repos.compareCommitsWithBasehead({
      owner: OWNER,
      repo,
      basehead: 'main...feature'
    })
    expect(diverged.data).toMatchObject({ status: 'diverged', ahead_by: 2, behind_by: 1 })
    const behind = await octokit.rest.repos.compareCommitsWithBasehead({
      owner: OWNER,
      repo,
      basehead: `${sandbox.branchHead(OWNER, repo, 'main')}...${base}`
    })
    expect(behind.data).toMatchObject({ status: 'behind', ahead_by: 0, behind_by: 1 })
  })

  it('a read-only token can read but not write objects', async () => {
    const repo = newRepo()
    sandbox.addReadOnlyToken('ghs_gitdata_readonly')
    const reader = client(sandbox.url, 'ghs_gitdata_readonly')
    const ref = await reader.rest.git.getRef({ owner: OWNER, repo, ref: 'heads/main' })
    expect(ref.status).toBe(200)
    await expect(
      reader.rest.git.createBlob({ owner: OWNER, repo, content: 'x' })
    ).rejects.toMatchObject(refusal(403, 'Resource not accessible by integration'))
  })

  it('serves the same API under the GHES prefix /api/v3, with URLs under it', async () => {
    const repo = newRepo()
    const ghes = client(`${sandbox.url}/api/v3`)
    const ref = await ghes.rest.git.getRef({ owner: OWNER, repo, ref: 'heads/main' })
    expect(ref.data.url).toBe(`${sandbox.url}/api/v3/repos/${OWNER}/${repo}/git/refs/heads/main`)
    const blob = await ghes.rest.git.createBlob({ owner: OWNER, repo, content: HELLO })
    expect(blob.data.sha).toBe(gitBlobSha(HELLO))
    expect(sandbox.requests.at(-1)?.path).toBe(`/api/v3/repos/${OWNER}/${repo}/git/blobs`)
  })
})

describe('branch rules on writes', () => {
  const VIOLATION =
    'Repository rule violations found\n\nChanges must be made through a pull request.\n\n'

  it('a ruleset requiring pull requests refuses ref updates (422) and contents writes (409)', async () => {
    const repo = newRepo()
    sandbox.addRuleset(OWNER, repo, { requirePullRequest: true })
    const written = await commitFiles(repo, 'main', [{ path: 'x.yaml', content: 'x\n' }])
    await expect(
      octokit.rest.git.updateRef({ owner: OWNER, repo, ref: 'heads/main', sha: written.commit })
    ).rejects.toMatchObject(refusal(422, VIOLATION))
    await expect(
      octokit.rest.repos.createOrUpdateFileContents({
        owner: OWNER,
        repo,
        path: 'x.yaml',
        message: 'x',
        content: Buffer.from('x\n').toString('base64')
      })
    ).rejects.toMatchObject(refusal(409, VIOLATION))
    expect(sandbox.readFile(OWNER, repo, 'main', 'x.yaml')).toBeNull()
    // Other branches are not covered by a ~DEFAULT_BRANCH ruleset.
    sandbox.createBranch(OWNER, repo, 'work')
    const onWork = await commitFiles(repo, 'work', [{ path: 'x.yaml', content: 'x\n' }])
    await octokit.rest.git.updateRef({ owner: OWNER, repo, ref: 'heads/work', sha: onWork.commit })
    expect(sandbox.readFile(OWNER, repo, 'work', 'x.yaml')).toBe('x\n')
  })

  it('classic protection refuses with the protected-branch answers', async () => {
    const repo = newRepo()
    sandbox.protectBranch(OWNER, repo, 'main', { requiredApprovingReviewCount: 1 })
    const written = await commitFiles(repo, 'main', [{ path: 'x.yaml', content: 'x\n' }])
    await expect(
      octokit.rest.git.updateRef({ owner: OWNER, repo, ref: 'heads/main', sha: written.commit })
    ).rejects.toMatchObject(refusal(422, 'Protected branch update failed for refs/heads/main.'))
    const put = octokit.rest.repos.createOrUpdateFileContents({
      owner: OWNER,
      repo,
      path: 'x.yaml',
      message: 'x',
      content: Buffer.from('x\n').toString('base64')
    })
    await expect(put).rejects.toMatchObject({
      status: 409,
      response: expect.objectContaining({
        data: {
          message: 'Could not create file: Changes must be made through a pull request.',
          documentation_url: 'https://docs.github.com/articles/about-protected-branches',
          status: '409'
        }
      })
    })
    // An admin token is not held to classic protection (enforce_admins off).
    sandbox.addToken('ghs_gitdata_admin', { role: 'admin' })
    await client(sandbox.url, 'ghs_gitdata_admin').rest.git.updateRef({
      owner: OWNER,
      repo,
      ref: 'heads/main',
      sha: written.commit
    })
    expect(sandbox.readFile(OWNER, repo, 'main', 'x.yaml')).toBe('x\n')
  })
})
