// End to end, the promote step at its edges: another writer activating a version during the pause
// before a re-send (after a 429, after a 504 "not attempted") is never overwritten, and a SIGINT
// while a slow promote request is in flight ends in a summary that tells the truth: the version
// may be active (or is, when the final read shows it), with the command that checks it.
import { once } from 'node:events'
import { describe, expect, it } from '@jest/globals'
import { expectNoSecrets } from './expect.js'
import { activeVersionName, promoteRequests } from './world-reads.js'
import { oneWorldPerTest } from './world-per-test.js'
import { OWNER, TEMPLATES_REPO, type World } from '../sandbox/world.js'
import type { ActionRun } from '../sandbox/action-runner.js'
import type { PromoteFault } from '../sandbox/kube/index.js'

const newWorld = oneWorldPerTest()
const CHECK = `coder templates versions list docker -O ${OWNER}`

/** docker with v0.9.0 active, and v0.8.0 for another writer to pick. */
async function seeded(): Promise<World> {
  const w = await newWorld.withDocker()
  w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
  return w
}

const idOf = (w: World, name: string): string =>
  w.coder.backend.findVersionByName(OWNER, 'docker', name)!.id

/** The comment as a reader sees it: character references decoded, word joiners gone. */
function rendered(body: string): string {
  return body
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/\u2060/g, '')
}

function expectNeverNothingPromoted(run: ActionRun): void {
  expect(run.summary).not.toMatch(/nothing was promoted/i)
  expect(run.stdout).not.toMatch(/nothing was promoted/i)
}

describe('another writer during the pause before a re-send', () => {
  it.each<[string, PromoteFault]>([
    ['a 429', { kind: 'status', code: 429 }],
    ['a 504 not attempted', { kind: '504-not-attempted' }]
  ])('after %s: Refused, naming the version, and not overwritten', async (_, fault) => {
    const w = await seeded()
    // One retry only: the gate's first pause is 1 s.
    w.kube.faults.promote.push({
      ...fault,
      afterAnswer: () =>
        w.coder.activateVersion({ template: 'docker', version: 'v0.8.0', by: 'someone' })
    })
    const run = await w.run()
    const third = idOf(w, 'v0.8.0')
    expect(run.exitCode).toBe(1)
    expect(run.outputs).toMatchObject({
      'promotion-result': 'Refused',
      'previous-active-version-id': idOf(w, 'v0.9.0'),
      'active-version-id': third
    })
    expect(run.summary).toContain('the promotion was refused')
    // One text for a third version, whichever read of the promote loop found it.
    expect(run.summary).toContain(
      `Another writer activated version ${third} while this run promoted v1.0.0`
    )
    expect(run.stdout).toContain(
      `Another writer activated version ${third} while this run promoted v1.0.0`
    )
    expect(promoteRequests(w)).toBe(1)
    expect(activeVersionName(w)).toBe('v0.8.0')
    expectNoSecrets(w, run)
  })
})

describe('SIGINT while a slow promote request is in flight', () => {
  it('before Coder applied it: the version may be active, with the command that checks it', async () => {
    const w = await seeded()
    // The lookups take 5 s, then the activation applies: after the run has ended.
    w.kube.faults.promote.push({ kind: 'delay', ms: 5_000 })
    const pr = w.openTemplatesPullRequest()
    let sent = false
    const run = await w.run(
      { 'comment-on-pr': 'true' },
      { ...pr.context, runId: '7001' },
      {
        onStart: (child) =>
          w.kube.events.once('first-promote', () => {
            sent = true
            child.kill('SIGINT')
          })
      }
    )
    expect(sent).toBe(true)
    expect(run.exitCode).not.toBe(0)
    expect(run.signal).toBeNull()
    // active-version-id is the final read: the previous version, at that moment.
    expect(run.outputs['active-version-id']).toBe(idOf(w, 'v0.9.0'))
    expect(run.summary).toContain('the version may be active')
    expect(run.summary).toContain(CHECK)
    expect(run.stdout).toContain('may be active')
    expect(run.stdout).toContain(CHECK)
    expectNeverNothingPromoted(run)
    const [comment] = w.github.comments(OWNER, TEMPLATES_REPO, pr.number)
    expect(rendered(comment!.body)).toContain('may be active')
    expect(rendered(comment!.body)).toContain(CHECK)
    expect(rendered(comment!.body)).not.toMatch(/nothing was promoted/i)
    // And it does become active: "may" was the truth.
    if (activeVersionName(w) !== run.outputs['version-name'])
      await once(w.coder.events, 'activated')
    expect(activeVersionName(w)).toBe(run.outputs['version-name'])
    expectNoSecrets(w, run)
  })

  it('after Coder applied it: the final read shows the tested version active', async () => {
    const w = await seeded()
    // The activation applies at once; the answer takes 20 s (the cancel comes first).
    w.kube.faults.promote.push({ kind: 'slow-answer', ms: 20_000 })
    let sent = false
    const run = await w.run(
      {},
      {},
      {
        onStart: (child) =>
          w.coder.events.once('activated', () => {
            sent = true
            child.kill('SIGINT')
          })
      }
    )
    expect(sent).toBe(true)
    expect(run.exitCode).not.toBe(0)
    expect(run.signal).toBeNull()
    const ours = idOf(w, 'v1.0.0')
    expect(run.outputs['active-version-id']).toBe(ours)
    expect(run.summary).toContain('cancelled after the promote request; the version is active')
    expect(run.summary).toContain(`v1.0.0 (${ours}) is active`)
    expect(run.summary).toContain(CHECK)
    expect(run.summary).toContain('after the promote request was sent')
    expectNeverNothingPromoted(run)
    expect(activeVersionName(w)).toBe('v1.0.0')
    expectNoSecrets(w, run)
  })
})
