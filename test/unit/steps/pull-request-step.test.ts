// The pull-request and merge steps in-process, on the in-memory Git host: open once and reuse it,
// merge as pull-request-merge says, never merge a foreign change, and turn auto-merge off when no
// run watches any more (a timeout, a foreign change, a cancel).
import { describe, expect, it } from '@jest/globals'
import type { MergeStrategy } from '../../../src/settings/settings.js'
import { commitManifest, type Committed } from '../../../src/steps/commit.js'
import { Journal } from '../../../src/steps/journal.js'
import { AUTO_MERGE_OFF_MS, mergeGatePullRequest } from '../../../src/steps/merge.js'
import { type OpenedPullRequest, openGatePullRequest } from '../../../src/steps/pull-request.js'
import { MemoryGitHost, MemoryHostError } from '../../gitops/memory/host.js'
import {
  commitInput,
  GATE_BRANCH,
  MANIFEST_PATH,
  pullRequestInput,
  settingsFor,
  stepContext
} from './step-world.js'

async function opened(host: MemoryGitHost, merge: MergeStrategy = 'immediate') {
  const settings = settingsFor({
    'gitops-mode': 'pull-request',
    'pull-request-merge': merge,
    'pull-request-labels': 'coder-template-gate',
    'merge-timeout-seconds': '600'
  })
  const committed = await commitManifest(commitInput(host, settings), stepContext().context)
  if (!committed.ok) throw new Error(committed.failure.message)
  const input = pullRequestInput(host, settings, committed.value)
  const pr = await openGatePullRequest(input, stepContext().context)
  if (!pr.ok) throw new Error(pr.failure.message)
  return { settings, committed: committed.value, input, pullRequest: pr.value }
}

const mergeOf = (
  world: { input: ReturnType<typeof pullRequestInput>; pullRequest: OpenedPullRequest },
  context: Parameters<typeof mergeGatePullRequest>[1] = stepContext().context
) => mergeGatePullRequest({ ...world.input, pullRequest: world.pullRequest }, context)

describe('pull-request step', () => {
  it('opens one pull request with the labels; a re-run reuses it', async () => {
    const host = new MemoryGitHost()
    const world = await opened(host)
    expect(world.pullRequest).toMatchObject({ number: 1, reused: false, merged: false })
    expect(world.pullRequest.headSha).toBe(world.committed.commitSha)
    expect(host.pull(1).labels).toEqual(['coder-template-gate'])
    const again = await openGatePullRequest(world.input, stepContext().context)
    expect(again).toMatchObject({ ok: true, value: { number: 1, reused: true } })
    expect(again.ok && again.detail).toBe('reused pull request #1 into main')
    expect(host.pulls).toHaveLength(1)
  })

  it('fails with the token advice when the branch is not there', async () => {
    const host = new MemoryGitHost()
    const settings = settingsFor({ 'gitops-mode': 'pull-request' })
    const committed = {
      branch: GATE_BRANCH,
      manifestPath: MANIFEST_PATH,
      pruned: [],
      commitSha: ''
    }
    const input = pullRequestInput(host, settings, committed as unknown as Committed)
    const result = await openGatePullRequest(input, stepContext().context)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.failure.kind).toBe('pull-request')
    expect(result.failure.message).toContain(`Branch ${GATE_BRANCH} does not exist`)
    expect(result.failure.advice).toEqual([
      'Check that gitops-token may open pull requests in the GitOps repository (pull request access).'
    ])
  })
})

describe('merge step', () => {
  it.each<MergeStrategy>(['immediate', 'auto'])(
    '%s: merged at once when nothing blocks; the base holds the manifest',
    async (strategy) => {
      const host = new MemoryGitHost()
      const world = await opened(host, strategy)
      const result = await mergeOf(world)
      expect(result).toMatchObject({ ok: true, detail: `merged #1 (${strategy})` })
      if (!result.ok) return
      expect(result.value.mergeCommitSha).toBe(host.git.branches.get('main'))
      expect(result.value.mergeCommitUrl).toBe(host.links.commit(result.value.mergeCommitSha))
      expect(host.git.fileAt('main', MANIFEST_PATH)).not.toBeNull()
    }
  )

  it('a re-run of a merged pull request reports it merged and asks nothing', async () => {
    const host = new MemoryGitHost()
    const world = await opened(host)
    await mergeOf(world)
    const again = await openGatePullRequest(world.input, stepContext().context)
    expect(again).toMatchObject({ ok: true, value: { merged: true, reused: true } })
    if (!again.ok) return
    host.calls.length = 0
    const merged = await mergeOf({ ...world, pullRequest: again.value })
    expect(merged.ok).toBe(true)
    expect(host.calls).toEqual(['waitForMerge'])
  })

  it('auto: waits on the fake clock while the host merges it', async () => {
    const host = new MemoryGitHost()
    const world = await opened(host, 'auto')
    host.requirementsMet = false
    let reads = 0
    host.onWaitRead = () => {
      if (++reads === 3) host.meetRequirements()
    }
    const { context, clock } = stepContext()
    const result = await mergeOf(world, context)
    expect(result.ok).toBe(true)
    expect(clock.slept).toHaveLength(2)
  })

  it('auto: a timeout turns auto-merge off and leaves the pull request open', async () => {
    const host = new MemoryGitHost()
    const world = await opened(host, 'auto')
    host.requirementsMet = false
    const { context, infos } = stepContext()
    const result = await mergeOf(world, context)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.failure).toMatchObject({ kind: 'pull-request', status: 'timed out' })
    expect(result.failure.advice[0]).toMatch(/^Auto-merge is off again; merge /)
    expect(result.facts).toMatchObject({ autoMergeOff: true })
    expect(host.pull(1)).toMatchObject({ state: 'open', autoMerge: null })
    expect(infos.some((line) => line.startsWith('Turned auto-merge off'))).toBe(true)
  })

  it('manual: says it waits for a person, times out, and had no auto-merge to turn off', async () => {
    const host = new MemoryGitHost()
    const world = await opened(host, 'manual')
    const { context, infos } = stepContext()
    const result = await mergeOf(world, context)
    expect(infos[0]).toBe(`Waiting up to 600 s for someone to merge ${world.pullRequest.url}.`)
    expect(result).toMatchObject({ ok: false, failure: { status: 'timed out' } })
    expect(result.ok || result.facts?.autoMergeOff).toBeUndefined()
    expect(host.calls).not.toContain('disableAutoMerge')
  })

  it('a foreign push before the merge: refused, nothing merged', async () => {
    const host = new MemoryGitHost()
    const world = await opened(host)
    const base = host.git.branches.get('main')
    host.push(GATE_BRANCH, 'apps/prod.yaml', 'replicas: 9\n')
    const result = await mergeOf(world)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.failure.kind).toBe('foreign-change')
    expect(result.failure.message).toContain(
      'it changes apps/prod.yaml, which the gate did not write'
    )
    expect(host.git.branches.get('main')).toBe(base)
    expect(host.pull(1).merged).toBe(false)
  })

  it('auto: a foreign push while waiting turns auto-merge off and names the path', async () => {
    const host = new MemoryGitHost()
    const world = await opened(host, 'auto')
    host.requirementsMet = false
    let pushed = ''
    host.onWaitRead = () => {
      if (!pushed) pushed = host.push(GATE_BRANCH, 'apps/prod.yaml', 'replicas: 9\n')
    }
    const result = await mergeOf(world)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.failure.kind).toBe('foreign-change')
    expect(pushed).not.toBe('')
    expect(result.failure.message).toContain('it changes apps/prod.yaml')
    expect(result.facts).toMatchObject({ autoMergeOff: true })
    expect(host.pull(1).autoMerge).toBeNull()
  })

  it('auto: a cancel during the wait is thrown, and auto-merge is off', async () => {
    const host = new MemoryGitHost()
    const world = await opened(host, 'auto')
    host.requirementsMet = false
    const { context, abort } = stepContext()
    host.onWaitRead = () => abort.abort(new Error('cancelled'))
    await expect(mergeOf(world, context)).rejects.toThrow('cancelled')
    expect(host.calls).toContain('disableAutoMerge')
    expect(host.pull(1)).toMatchObject({ merged: false, autoMerge: null })
  })

  it.each([
    ['turned off', true],
    ['still on', false]
  ])(
    'auto: a cancel during the wait keeps whether auto-merge is %s in the step’s facts',
    async (_name, canDisable) => {
      const host = new MemoryGitHost()
      const world = await opened(host, 'auto')
      host.requirementsMet = false
      host.canDisableAutoMerge = canDisable
      const { context, abort } = stepContext()
      host.onWaitRead = () => abort.abort(new Error('cancelled'))
      const journal = new Journal(context)
      await expect(
        journal.run('merge', (c) => mergeOf(world, c), { cancelGraceMs: AUTO_MERGE_OFF_MS + 500 })
      ).rejects.toThrow()
      const result = journal.entries.find((e) => e.name === 'merge')?.result
      expect(result).toMatchObject({ ok: false, failure: { status: 'cancelled' } })
      expect(result && !result.ok && result.facts).toMatchObject({ autoMergeOff: canDisable })
    }
  )

  it.each<[string, (host: MemoryGitHost) => void]>([
    [
      'an error during the wait (a 5xx after the retries, a 401)',
      (host) => {
        host.onWaitRead = () => {
          throw new Error('GitHub answered 502')
        }
      }
    ],
    [
      'a lost answer to enablePullRequestAutoMerge that landed',
      (host) => {
        const request = host.requestMerge
        host.requestMerge = async (merge, call) => {
          await request(merge, call)
          throw new Error('no answer from GitHub (time limit)')
        }
      }
    ],
    [
      'the deadline',
      (host) => {
        host.onWaitRead = () => {
          throw new MemoryHostError('merge-timeout', 'open')
        }
      }
    ]
  ])('auto: %s turns auto-merge off', async (_name, fault) => {
    const host = new MemoryGitHost()
    const world = await opened(host, 'auto')
    host.requirementsMet = false
    fault(host)
    const result = await mergeOf(world)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.facts).toMatchObject({ autoMergeOff: true })
    expect(host.pull(1).autoMerge).toBeNull()
  })

  it('auto: when turning auto-merge off fails, the advice says it is on and how to turn it off', async () => {
    const host = new MemoryGitHost()
    const world = await opened(host, 'auto')
    host.requirementsMet = false
    host.canDisableAutoMerge = false
    host.onWaitRead = () => {
      throw new Error('GitHub answered 401')
    }
    const { context, warnings } = stepContext()
    const result = await mergeOf(world, context)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.facts).toMatchObject({ autoMergeOff: false })
    const command = `gh pr merge 1 --repo ${host.repository} --disable-auto`
    expect(result.failure.advice?.[0]).toBe(
      `Auto-merge is still on: turn it off with \`${command}\`.`
    )
    expect(warnings.join('\n')).toContain(command)
  })
})
