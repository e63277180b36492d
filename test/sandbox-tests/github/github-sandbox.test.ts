// The GitHub sandbox itself: git object identities and the wire answers of the contents API.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import type { GitCommit } from '../../sandbox/contracts.js'
import { gitBlobSha, startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.js'

describe('gitBlobSha', () => {
  it.each([
    // Values printed by `printf '<text>' | git hash-object --stdin` (git 2.x).
    ['hello world\n', '3b18e512dba79e4c8300dd08aeb37f8e728b8dad'],
    ['', 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'],
    [
      'apiVersion: coder.com/v1alpha1\nkind: CoderTemplateTest\nname: é\n',
      '621bdcf8d04eb956ee3e8018bc77b4d65a461196'
    ]
  ])('hashes %j like git hash-object', (text, sha) => {
    expect(gitBlobSha(text)).toBe(sha)
  })
})

describe('GitHub sandbox wire protocol', () => {
  let sandbox: GitHubSandbox
  const commits: GitCommit[] = []

  beforeAll(async () => {
    sandbox = await startGitHubSandbox({ token: 'ghs_sandboxtoken' })
    sandbox.onCommit((c) => commits.push(c))
    sandbox.createRepo('acme', 'wire', {
      defaultBranch: 'main',
      files: { 'a/b.txt': 'hello world\n' }
    })
  })

  afterAll(async () => {
    await sandbox.close()
  })

  async function call(
    method: string,
    path: string,
    body?: unknown,
    auth = 'token ghs_sandboxtoken'
  ) {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return {
      status: response.status,
      headers: response.headers,
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked field by field
      json: (await response.json()) as any
    }
  }

  const b64 = (text: string) => Buffer.from(text).toString('base64')
  const PUT_DOC = 'https://docs.github.com/rest/repos/contents#create-or-update-file-contents'

  it('answers 401 Bad credentials in GitHub’s error shape, and accepts Bearer', async () => {
    const bad = await call('GET', '/repos/acme/wire', undefined, 'token wrong')
    expect(bad.status).toBe(401)
    expect(bad.json).toEqual({
      message: 'Bad credentials',
      documentation_url: 'https://docs.github.com/rest',
      status: '401'
    })
    expect((await call('GET', '/repos/acme/wire', undefined, '')).status).toBe(401)
    const bearer = await call('GET', '/repos/acme/wire', undefined, 'Bearer ghs_sandboxtoken')
    expect(bearer.status).toBe(200)
    expect(bearer.json).toMatchObject({
      full_name: 'acme/wire',
      default_branch: 'main',
      html_url: `${sandbox.serverUrl}/acme/wire`
    })
    expect((await call('GET', '/repos/acme/nothing')).json.message).toBe('Not Found')
  })

  it('serves a file as base64 wrapped at 60 characters with its git blob sha', async () => {
    const long = 'x'.repeat(100) + '\n'
    sandbox.writeFile('acme', 'wire', 'main', 'long.txt', long)
    const file = await call('GET', '/repos/acme/wire/contents/long.txt?ref=main')
    expect(file.status).toBe(200)
    expect(file.json).toMatchObject({
      type: 'file',
      encoding: 'base64',
      path: 'long.txt',
      name: 'long.txt'
    })
    expect(file.json.content.split('\n').map((l: string) => l.length)).toEqual([60, 60, 16, 0])
    expect(Buffer.from(file.json.content, 'base64').toString()).toBe(long)
    expect(file.json.sha).toBe(gitBlobSha(long))
    // Octokit's encoding of the path (%2F) works too; a directory lists its entries.
    const encoded = await call('GET', '/repos/acme/wire/contents/a%2Fb.txt')
    expect(encoded.json.sha).toBe('3b18e512dba79e4c8300dd08aeb37f8e728b8dad')
    const dir = await call('GET', '/repos/acme/wire/contents/a')
    expect(dir.json.map((e: { path: string; type: string }) => [e.path, e.type])).toEqual([
      ['a/b.txt', 'file']
    ])
    expect((await call('GET', '/repos/acme/wire/contents/missing.txt')).status).toBe(404)
    const noRef = await call('GET', '/repos/acme/wire/contents/long.txt?ref=nope')
    expect([noRef.status, noRef.json.message]).toEqual([404, 'No commit found for the ref nope'])
  })

  it('creates (201), refuses a missing sha (422) or a stale sha (409), updates (200)', async () => {
    const path = '/repos/acme/wire/contents/dir/new.yaml'
    const created = await call('PUT', path, {
      message: 'add',
      content: b64('one\n'),
      branch: 'main'
    })
    expect(created.status).toBe(201)
    expect(created.json.content.sha).toBe(gitBlobSha('one\n'))
    expect(created.json.commit.sha).toMatch(/^[0-9a-f]{40}$/)
    expect(created.json.commit.message).toBe('add')
    expect(sandbox.commits('acme', 'wire', 'main').at(-1)?.sha).toBe(created.json.commit.sha)

    const noSha = await call('PUT', path, { message: 'again', content: b64('two\n') })
    expect(noSha.status).toBe(422)
    expect(noSha.json).toEqual({
      message: 'Invalid request.\n\n"sha" wasn\'t supplied.',
      documentation_url: PUT_DOC,
      status: '422'
    })
    const stale = await call('PUT', path, {
      message: 'again',
      content: b64('two\n'),
      sha: 'deadbeef'
    })
    expect([stale.status, stale.json.message]).toEqual([
      409,
      'dir/new.yaml does not match deadbeef'
    ])
    const updated = await call('PUT', path, {
      message: 'update',
      content: b64('two\n'),
      sha: gitBlobSha('one\n')
    })
    expect(updated.status).toBe(200)
    expect(sandbox.readFile('acme', 'wire', 'main', 'dir/new.yaml')).toBe('two\n')
    // The branch is checked before the sha.
    const noBranch = await call('PUT', path, {
      message: 'x',
      content: b64('x'),
      sha: 'bad',
      branch: 'gone'
    })
    expect([noBranch.status, noBranch.json.message]).toEqual([404, 'Branch gone not found'])
  })

  it('an injected conflict commits another writer’s file first, so the head really moves', async () => {
    const headBefore = sandbox.commits('acme', 'wire', 'main').at(-1)?.sha
    const seen = commits.length
    sandbox.injectConflicts(1, 409)

    const refused = await call('PUT', '/repos/acme/wire/contents/c.yaml', {
      message: 'c',
      content: b64('c')
    })

    const headAfter = sandbox.commits('acme', 'wire', 'main').at(-1)?.sha
    expect(refused.status).toBe(409)
    expect(refused.json.message).toBe(`is at ${headAfter} but expected ${headBefore}`)
    expect(headAfter).not.toBe(headBefore)
    expect(commits.slice(seen).map((c) => [...c.changes.keys()][0])).toEqual([
      expect.stringMatching(/^other-writer\//)
    ])
    expect(sandbox.readFile('acme', 'wire', 'main', 'c.yaml')).toBeNull()
  })

  it('injects rate limits with the headers GitHub sends', async () => {
    sandbox.injectRateLimit(1, { kind: 'primary', status: 403, seconds: 30 })
    const primary = await call('GET', '/repos/acme/wire')
    expect(primary.status).toBe(403)
    expect(primary.headers.get('x-ratelimit-remaining')).toBe('0')
    const reset = Number(primary.headers.get('x-ratelimit-reset'))
    expect(reset).toBeGreaterThan(Date.now() / 1000)
    expect(primary.json.message).toMatch(/^API rate limit exceeded/)

    sandbox.injectRateLimit(1, { kind: 'secondary', status: 429, seconds: 7 })
    const secondary = await call('GET', '/repos/acme/wire')
    expect(secondary.status).toBe(429)
    expect(secondary.headers.get('retry-after')).toBe('7')
    expect(secondary.json.message).toMatch(/secondary rate limit/)

    sandbox.injectServerErrors(1)
    expect((await call('GET', '/repos/acme/wire')).status).toBe(502)
    expect((await call('GET', '/repos/acme/wire')).status).toBe(200)
  })

  it('records requests without the token', () => {
    expect(sandbox.requests.length).toBeGreaterThan(0)
    expect(JSON.stringify(sandbox.requests)).not.toContain('ghs_sandboxtoken')
    const put = sandbox.requests.find((r) => r.method === 'PUT')
    expect(put?.headers?.authorization).toBe('token [REDACTED]')
    expect(put?.body).toContain('"message"')
  })
})
