// upsertComment against the GitHub sandbox over real HTTP: one comment per marker, created once and
// updated after; a marker in another account's comment is never ours.
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals'
import { createGitOpsOctokit } from '../../src/gitops/github/client/octokit.js'
import {
  isOwnMarkedComment,
  markerLine,
  upsertComment
} from '../../src/workflow-repository/pr-comment.js'
import { escapeMarkdown, escapeProse, markdownLink } from '../../src/report/comment.js'
import { startGitHubSandbox, type GitHubSandbox } from '../sandbox/github/index.js'

const OWNER = 'acme'
const MARKER = 'result:docker-v2'
const LINE = '<!-- coder-template-gate:result:docker-v2 -->'
const USER_TOKEN = 'ghp_user_token_value'
const NO_COMMENTS = 'ghs_contents_only_value'

let sandbox: GitHubSandbox
let repoCounter = 0

beforeAll(async () => {
  sandbox = await startGitHubSandbox()
  sandbox.addToken(USER_TOKEN, { kind: 'user', login: 'release-bot' })
  sandbox.addToken(NO_COMMENTS, { issues: 'none', pullRequests: 'none' })
})

afterAll(async () => {
  await sandbox.close()
})

/** A repository with pull request #1. */
function repoWithPull(): string {
  repoCounter += 1
  const repo = `comments-${repoCounter}`
  sandbox.createRepo(OWNER, repo, { defaultBranch: 'main' })
  sandbox.createBranch(OWNER, repo, 'feature')
  sandbox.writeFile(OWNER, repo, 'feature', 'template/main.tf', '# v2\n')
  sandbox.openPullRequest(OWNER, repo, { head: 'feature', title: 'Template v2' })
  return repo
}

function upsert(
  repo: string,
  body: string,
  options: { token?: string; login?: string; marker?: string } = {}
) {
  return upsertComment({
    octokit: createGitOpsOctokit({
      token: options.token ?? sandbox.token,
      baseUrl: sandbox.url,
      delayUnitMs: 1,
      retries: 1,
      spaceWrites: false
    }),
    owner: OWNER,
    repo,
    issueNumber: 1,
    marker: options.marker ?? MARKER,
    body,
    login: options.login,
    lostAnswerPauseMs: 1
  })
}

function writes(repo: string) {
  return sandbox.requests
    .filter((r) => r.path.includes(`/repos/${OWNER}/${repo}/issues/`) && r.method !== 'GET')
    .map((r) => `${r.method} ${r.status}`)
}

describe('isOwnMarkedComment', () => {
  it.each([
    ['ours', 'github-actions[bot]', `${LINE}\nPassed`, true],
    ['ours, login in other case', 'GitHub-Actions[bot]', `${LINE}\nPassed`, true],
    ['ours, edited on the web (CRLF)', 'github-actions[bot]', `${LINE}\r\nPassed`, true],
    ['ours, marker alone', 'github-actions[bot]', LINE, true],
    ['another account with our marker', 'alice', `${LINE}\nPassed`, false],
    ['ours without a marker', 'github-actions[bot]', 'Passed', false],
    ['ours, marker not on the first line', 'github-actions[bot]', `Quote:\n${LINE}`, false],
    ['ours, a quoted marker', 'github-actions[bot]', `> ${LINE}`, false],
    [
      'ours, another marker',
      'github-actions[bot]',
      '<!-- coder-template-gate:result:other -->',
      false
    ],
    ['ours, a longer marker', 'github-actions[bot]', `${LINE.replace(' -->', '-x -->')}`, false],
    ['no user', null, `${LINE}\nPassed`, false]
  ] as const)('%s', (_name, login, body, expected) => {
    const comment = { user: login === null ? null : { login }, body }
    expect(isOwnMarkedComment(comment, 'github-actions[bot]', LINE)).toBe(expected)
  })

  it.each(['', 'a b', 'x-->', 'result:<b>', '-leading', 'tab\t'])(
    'refuses the marker %j',
    (marker) => {
      expect(() => markerLine(marker)).toThrow('may hold only letters, digits and ._:/-')
    }
  )
})

describe('upsertComment', () => {
  it('creates one comment, then updates it; an identical body writes nothing', async () => {
    const repo = repoWithPull()
    const url = await upsert(repo, 'Testing version v2…')
    const [created] = sandbox.comments(OWNER, repo, 1)
    expect(url).toBe(`${sandbox.serverUrl}/${OWNER}/${repo}/pull/1#issuecomment-${created.id}`)
    expect(created).toMatchObject({
      user: 'github-actions[bot]',
      body: `${LINE}\nTesting version v2…`
    })
    expect(await upsert(repo, 'Passed: v2 promoted')).toBe(url)
    expect(await upsert(repo, 'Passed: v2 promoted')).toBe(url)
    expect(sandbox.comments(OWNER, repo, 1)).toEqual([
      expect.objectContaining({ id: created.id, body: `${LINE}\nPassed: v2 promoted` })
    ])
    expect(writes(repo)).toEqual(['POST 201', 'PATCH 200'])
  })

  it('a create answered 502 after it was stored is found again, not sent again: one comment', async () => {
    const repo = repoWithPull()
    const post = `/repos/${OWNER}/${repo}/issues/1/comments`
    sandbox.failAfterStoring(1, (method, path) => method === 'POST' && path === post)
    const url = await upsert(repo, 'Testing version v2…')
    const comments = sandbox.comments(OWNER, repo, 1)
    expect(comments).toEqual([expect.objectContaining({ body: `${LINE}\nTesting version v2…` })])
    expect(url).toBe(`${sandbox.serverUrl}/${OWNER}/${repo}/pull/1#issuecomment-${comments[0].id}`)
    expect(writes(repo)).toEqual(['POST 502'])
  })

  it('a create answered 502 before it was stored is sent again after a look: one comment', async () => {
    const repo = repoWithPull()
    const lists = () =>
      sandbox.requests.filter(
        (r) => r.method === 'GET' && r.path.includes(`/${repo}/issues/1/comments`)
      )
    await upsert(repo, 'first') // the account is known; now only the create fails
    const before = lists().length
    const stop = sandbox.beforeRequest((method, path) => {
      if (method === 'POST' && path.includes(`/${repo}/issues/1/comments`)) {
        stop()
        sandbox.injectServerErrors(1, 502)
      }
    })
    await upsert(repo, 'second', { marker: 'other' })
    expect(sandbox.comments(OWNER, repo, 1).map((c) => c.body.split('\n')[1])).toEqual([
      'first',
      'second'
    ])
    expect(writes(repo)).toEqual(['POST 201', 'POST 502', 'POST 201'])
    // One look before the first create, one after its lost answer.
    expect(lists().length - before).toBe(2)
  })

  it('another marker is another comment', async () => {
    const repo = repoWithPull()
    await upsert(repo, 'one')
    await upsert(repo, 'two', { marker: 'result:docker-v3' })
    expect(sandbox.comments(OWNER, repo, 1).map((c) => c.body)).toEqual([
      `${LINE}\none`,
      '<!-- coder-template-gate:result:docker-v3 -->\ntwo'
    ])
  })

  it('never edits a forged marker of another account, and writes its own', async () => {
    const repo = repoWithPull()
    sandbox.commentOnPullRequest(OWNER, repo, 1, `${LINE}\nPassed (forged)`, 'mallory')
    await upsert(repo, 'Failed: test-failed')
    await upsert(repo, 'Failed: test-failed, again')
    expect(sandbox.comments(OWNER, repo, 1).map((c) => [c.user, c.body])).toEqual([
      ['mallory', `${LINE}\nPassed (forged)`],
      ['github-actions[bot]', `${LINE}\nFailed: test-failed, again`]
    ])
  })

  it('finds its comment past the first page of comments', async () => {
    const repo = repoWithPull()
    for (let i = 0; i < 130; i++) sandbox.commentOnPullRequest(OWNER, repo, 1, `chatter ${i}`)
    await upsert(repo, 'first')
    for (let i = 0; i < 5; i++) sandbox.commentOnPullRequest(OWNER, repo, 1, `more ${i}`)
    await upsert(repo, 'second')
    const ours = sandbox.comments(OWNER, repo, 1).filter((c) => c.user === 'github-actions[bot]')
    expect(ours.map((c) => c.body)).toEqual([`${LINE}\nsecond`])
    const pages = sandbox.requests
      .filter((r) => r.method === 'GET' && r.path.includes(`/${repo}/issues/1/comments`))
      .map((r) => new URL(r.path, sandbox.url).searchParams.get('page'))
    expect(pages).toEqual(['1', '2', '1', '2'])
    // The sandbox pages as GitHub does: a Link header while there are more pages.
    const list = `${sandbox.url}/repos/${OWNER}/${repo}/issues/1/comments?per_page=100`
    const headers = { authorization: `token ${sandbox.token}` }
    const first = await fetch(`${list}&page=1`, { headers })
    expect(first.headers.get('link')).toMatch(/[?&]page=2>; rel="next"/)
    const last = await fetch(`${list}&page=2`, { headers })
    expect(last.headers.get('link')).not.toContain('rel="next"')
    expect(((await last.json()) as unknown[]).length).toBe(36)
  })

  it('a user token is known by GraphQL viewer: its comments are ours, the bot’s are not', async () => {
    const repo = repoWithPull()
    await upsert(repo, 'by the workflow token')
    await upsert(repo, 'by the user token', { token: USER_TOKEN })
    await upsert(repo, 'by the user token, updated', { token: USER_TOKEN })
    expect(sandbox.comments(OWNER, repo, 1).map((c) => [c.user, c.body])).toEqual([
      ['github-actions[bot]', `${LINE}\nby the workflow token`],
      ['release-bot', `${LINE}\nby the user token, updated`]
    ])
    expect(sandbox.requests.filter((r) => r.path === '/user')).toEqual([])
  })

  it('an App installation token finds its own comment (viewer), where GET /user answers 403', async () => {
    const repo = repoWithPull()
    sandbox.addToken('ghs_other_app_token', { login: 'gate-app[bot]', kind: 'installation' })
    await upsert(repo, 'first', { token: 'ghs_other_app_token' })
    await upsert(repo, 'second', { token: 'ghs_other_app_token' })
    expect(sandbox.comments(OWNER, repo, 1).map((c) => [c.user, c.body])).toEqual([
      ['gate-app[bot]', `${LINE}\nsecond`]
    ])
  })

  it('login overrides the account (another app’s installation token)', async () => {
    const repo = repoWithPull()
    sandbox.commentOnPullRequest(OWNER, repo, 1, `${LINE}\nold`, 'gate-app[bot]')
    sandbox.addToken('ghs_app_token_value', { login: 'gate-app[bot]' })
    await upsert(repo, 'new', { token: 'ghs_app_token_value', login: 'gate-app[bot]' })
    expect(sandbox.comments(OWNER, repo, 1).map((c) => [c.user, c.body])).toEqual([
      ['gate-app[bot]', `${LINE}\nnew`]
    ])
  })

  it('a token that may not comment fails naming github-token and the permission, not the token', async () => {
    const repo = repoWithPull()
    let error: unknown
    await upsert(repo, 'x', { token: NO_COMMENTS }).catch((e: unknown) => (error = e))
    const message = (error as Error).message
    expect(message).toContain('403 Resource not accessible by integration')
    expect(message).toContain('github-token needs `pull-requests: write`')
    expect(message).not.toContain(NO_COMMENTS)
    expect(sandbox.comments(OWNER, repo, 1)).toEqual([])
  })
})

describe('the text of the comment', () => {
  const WJ = '\u2060'
  it.each([
    ['plain text stays readable', 'pr-1-abc1234 v1.0.0 ok', 'pr-1-abc1234 v1.0.0 ok'],
    ['a link', '[x](https://evil)', `&#91;x&#93;&#40;https:${WJ}//evil&#41;`],
    ['a bare URL is not auto-linked', 'see https://evil.example', `see https:${WJ}//evil.example`],
    ['www is not auto-linked', 'www.evil.example', `www${WJ}.evil.example`],
    ['a mention', 'ping @acme/admins', `ping &#64;${WJ}acme/admins`],
    ['an issue reference', 'fixes #12', `fixes #${WJ}12`],
    ['HTML', '<img src=x onerror=alert(1)>', '&#60;img src=x onerror=alert&#40;1&#41;&#62;'],
    [
      'emphasis and code',
      '**b** _i_ `c` ~s~',
      '&#42;&#42;b&#42;&#42; &#95;i&#95; &#96;c&#96; &#126;s&#126;'
    ],
    ['a table cell break', 'a | b', 'a &#124; b'],
    ['an entity', '&amp;', '&#38;amp;'],
    ['a heading at the start', '# Title', `&#35;${WJ} Title`],
    ['a list item at the start', '- item', '&#45; item'],
    ['an ordered item at the start', '1. item', '1&#46; item'],
    ['a quote at the start', '> quoted', '&#62; quoted'],
    ['lines become one', 'one\n\n  two\r\nthree', 'one two three'],
    ['indentation is dropped', '    code block', 'code block']
  ])('%s', (_name, text, expected) => {
    expect(escapeMarkdown(text)).toBe(expected)
  })

  it.each([
    ['an https link', 'https://g.example/a/b', 'run 1', '[run 1](https://g.example/a/b)'],
    ['parentheses in the target', 'https://g.example/a)b', 'x', '[x](https://g.example/a%29b)'],
    ['a javascript: URL is no link', 'javascript:alert(1)', 'x', 'x'],
    ['a URL with spaces is no link', 'https://g.example/a b', 'x', 'x'],
    [
      'the label is escaped',
      'https://g.example',
      '[y](z)',
      '[&#91;y&#93;&#40;z&#41;](https://g.example)'
    ]
  ])('%s', (_name, url, label, expected) => {
    expect(markdownLink(url, label)).toBe(expected)
  })
})

describe("escapeProse: the gate's own sentences in the comment", () => {
  it.each([
    [
      'a command stays a code span',
      'run `coder templates versions list docker`.',
      '`coder templates versions list docker`'
    ],
    [
      'a URL becomes a link, its full stop stays outside',
      'open: https://github.com/a/b/pull/3.',
      '](https://github.com/a/b/pull/3).'
    ],
    ['a mention is broken', 'ask @admins', '&#64;\u2060admins'],
    ['markup is escaped', 'x <b>y</b>', '&#60;b&#62;y&#60;/b&#62;'],
    ['text after a code span keeps its space', '`a` then b', '`a` then b'],
    ['a URL of another scheme is text', 'javascript://x', 'javascript:\u2060//x']
  ])('%s', (_, text, expected) => {
    expect(escapeProse(text)).toContain(expected)
  })

  it('never leaves a javascript: link', () => {
    expect(escapeProse('see javascript:alert(1) and https://a.example/x')).not.toMatch(
      /\]\(javascript/
    )
  })
})
