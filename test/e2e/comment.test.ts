// End to end, comment-on-pr: on a pull_request event the run writes one comment on the workflow's
// own pull request and updates it on later runs (never a second); a token that may not comment
// gives a warning and the gate's result stands; other events post nothing. Foreign text in the
// comment never becomes markup, a mention or a link.
import { describe, expect, it } from '@jest/globals'
import { OWNER, TEMPLATES_REPO, type World } from '../sandbox/world.js'
import { expectNoSecrets } from './expect.js'
import { oneWorldPerTest } from './world-per-test.js'

const MARKER = /^<!-- coder-template-gate:result:docker-pr-\d+-[0-9a-f]{7} -->\n/
const COMMENT_ON_PR = { 'comment-on-pr': 'true', promote: 'false' }

const startOneWorld = oneWorldPerTest()

async function newWorld(): Promise<World> {
  const world = await startOneWorld()
  world.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
  return world
}

/** The comment as a reader sees it: character references decoded, word joiners gone. */
function rendered(body: string): string {
  return body
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/\u2060/g, '')
}

function comments(w: World, number: number) {
  return w.github.comments(OWNER, TEMPLATES_REPO, number)
}

/** Requests to the comments of the workflow's own repository. */
function commentRequests(w: World): string[] {
  return w.github.requests
    .filter((r) => r.path.includes(`/repos/${OWNER}/${TEMPLATES_REPO}/issues`))
    .map((r) => `${r.method} ${r.status}`)
}

describe('comment-on-pr, end to end', () => {
  it('creates one comment on the first run and updates the same one on the next', async () => {
    const w = await newWorld()
    const pr = w.openTemplatesPullRequest()
    const first = await w.run(COMMENT_ON_PR, { ...pr.context, runId: '5001' })
    expect(first.exitCode).toBe(0)
    const [created] = comments(w, pr.number)
    expect(comments(w, pr.number)).toHaveLength(1)
    expect(created!.user).toBe('github-actions[bot]')
    expect(created!.body).toMatch(MARKER)
    const version = `pr-${pr.number}-${pr.headSha.slice(0, 7)}`
    expect(first.outputs['version-name']).toBe(version)
    const text = rendered(created!.body)
    expect(text).toContain(`docker ${version} passed its test (promotion skipped)`)
    // Version name and ID, the test result and the run, as the comment shows them.
    expect(text).toContain(`${version} (${first.outputs['version-id']})`)
    expect(text).toMatch(/\| Test result \| Succeeded \/ Succeeded: /)
    expect(created!.body).toContain('(https://github.example/acme/templates/actions/runs/5001')
    expect(first.stdout).toContain(`Commented on pull request #${pr.number}`)

    // A new push to the pull request, after a page of chatter: the same comment, updated.
    for (let i = 0; i < 3; i++)
      w.github.commentOnPullRequest(OWNER, TEMPLATES_REPO, pr.number, 'lgtm')
    const second = await w.run(COMMENT_ON_PR, { ...pr.context, runId: '5002' })
    expect(second.exitCode).toBe(0)
    const ours = comments(w, pr.number).filter((c) => MARKER.test(c.body))
    expect(ours).toHaveLength(1)
    expect(ours[0]!.id).toBe(created!.id)
    expect(ours[0]!.body).toContain('/actions/runs/5002')
    expect(ours[0]!.body).not.toContain('/actions/runs/5001')
    expect(commentRequests(w).filter((r) => !r.startsWith('GET'))).toEqual([
      'POST 201',
      'PATCH 200'
    ])
    expectNoSecrets(w, second)
  })

  it('writes the annotation before the comment, so a slow comment cannot delay or lose it', async () => {
    const w = await newWorld()
    const pr = w.openTemplatesPullRequest()
    const run = await w.run(COMMENT_ON_PR, pr.context)
    expect(run.exitCode).toBe(0)
    const annotation = run.stdout.indexOf('::notice')
    const commented = run.stdout.indexOf(`Commented on pull request #${pr.number}`)
    expect(annotation).toBeGreaterThanOrEqual(0)
    expect(commented).toBeGreaterThan(annotation)
  })

  it.each([
    ['a read-only token (403)', 'read-only', `${OWNER}/${TEMPLATES_REPO}`, '403'],
    ['a repository the token cannot see (404)', 'default', `${OWNER}/elsewhere`, '404']
  ])('with %s, warns and the gate still succeeds', async (_name, token, repository, status) => {
    const w = await newWorld()
    const pr = w.openTemplatesPullRequest()
    const readOnly = 'ghs_read_only_token_for_comments'
    w.github.addReadOnlyToken(readOnly)
    const run = await w.run(
      { ...COMMENT_ON_PR, 'github-token': token === 'read-only' ? readOnly : w.github.token },
      { ...pr.context, repository }
    )
    expect(run.exitCode).toBe(0)
    expect(run.outputs['version-name']).toMatch(/^pr-/)
    expect(run.stdout).toMatch(
      new RegExp(`^::warning::Could not comment on pull request #${pr.number}: .*${status}`, 'm')
    )
    expect(run.stdout).toContain('pull-requests: write')
    expect(comments(w, pr.number)).toHaveLength(0)
    expect(run.everything).not.toContain(`\n${readOnly}`)
    expectNoSecrets(w, run)
  })

  it('posts nothing on an event that is not a pull request', async () => {
    const w = await newWorld()
    const pr = w.openTemplatesPullRequest()
    const run = await w.run({ 'comment-on-pr': 'true' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    expect(commentRequests(w)).toEqual([])
    expect(comments(w, pr.number)).toHaveLength(0)
  })

  it('escapes foreign text, keeps the failure and gives the advice', async () => {
    const w = await newWorld()
    const pr = w.openTemplatesPullRequest()
    const name = `docker-pr-${pr.number}-${pr.headSha.slice(0, 7)}`
    w.kube.controller!.script(name, {
      failAt: {
        step: 'WaitingForAgents',
        reason: 'AgentStartError',
        message:
          '<img src=x onerror=alert(1)> @acme/admins [click](https://evil.example) #1 **bold** | cell'
      }
    })
    const run = await w.run(COMMENT_ON_PR, pr.context)
    expect(run.exitCode).toBe(1)
    expect(run.outputs.reason).toBe('AgentStartError')
    const [comment] = comments(w, pr.number)
    const body = comment!.body.replace(MARKER, '')
    const text = rendered(body)
    expect(text).toContain('Failed / AgentStartError: <img src=x onerror=alert(1)> @acme/admins')
    expect(text).toContain('What to do next')
    expect(text).toContain(`kubectl get codertemplatetest -n coder-tests ${name} -o yaml`)
    for (const raw of [
      '<img',
      '@acme',
      '](https://evil',
      'https://evil',
      '**bold**',
      '#1 ',
      '| cell'
    ]) {
      expect(body).not.toContain(raw)
    }
    // Every line of the facts table keeps its two cells: the message's `|` is not a column.
    for (const line of body.split('\n').filter((l) => l.startsWith('| '))) {
      expect(line.split('|')).toHaveLength(4)
    }
    expectNoSecrets(w, run)
  })
})
