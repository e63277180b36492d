// The commit step in-process, on the in-memory Git host (test/gitops/memory/host.ts): a re-run
// changes nothing, a different spec is a conflict, a protected branch asks for pull-request mode,
// keep-tests removes in the same commit, and a lost race is retried.
import { describe, expect, it } from '@jest/globals'
import { commitManifest } from '../../../src/steps/commit.js'
import type { TestState } from '../../../src/gitops/prune.js'
import { buildTestManifest, parseManifest, renderManifest } from '../../../src/objects/manifest.js'
import { MemoryGitHost } from '../../gitops/memory/host.js'
import {
  commitInput,
  GATE_BRANCH,
  hostCall,
  MANIFEST_PATH,
  settingsFor,
  stepContext
} from './step-world.js'

const manifestText = (version: string, timeoutSeconds = 900) =>
  renderManifest(
    buildTestManifest({
      organization: 'acme',
      template: 'docker',
      version,
      testName: `docker-${version}`,
      namespace: 'coder-tests',
      controlPlane: 'coder',
      parameters: [],
      timeoutSeconds
    })
  )

describe('commit step, commit mode', () => {
  it('commits the manifest once; a re-run finds it and makes no commit', async () => {
    const host = new MemoryGitHost()
    const settings = settingsFor()
    const first = await commitManifest(commitInput(host, settings), stepContext().context)
    expect(first).toMatchObject({ ok: true, value: { branch: 'main', onBase: true } })
    if (!first.ok) return
    expect(first.value.commitSha).toMatch(/^[0-9a-f]{40}$/)
    expect(first.value.commitUrl).toBe(host.links.commit(first.value.commitSha))
    const written = parseManifest(host.git.fileAt('main', MANIFEST_PATH)!.content)
    expect(written?.spec.version?.name).toBe('v2')
    const head = host.git.branches.get('main')

    const again = await commitManifest(commitInput(host, settings), stepContext().context)
    expect(again).toMatchObject({ ok: true, value: { commitSha: '' } })
    expect(again.ok && again.value.commitUrl).toBeUndefined()
    expect(again.ok && again.detail).toContain('was already on acme/gitops@main; no commit')
    expect(host.git.branches.get('main')).toBe(head)
  })

  it('fails as a conflict when the path holds another spec, and changes nothing', async () => {
    const host = new MemoryGitHost({ files: { [MANIFEST_PATH]: manifestText('v2', 60) } })
    const head = host.git.branches.get('main')
    const result = await commitManifest(commitInput(host, settingsFor()), stepContext().context)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.failure.kind).toBe('commit')
    expect(result.failure.message).toContain('with a different spec')
    expect(result.failure.advice).toEqual([
      'Use a new version name, or remove the old manifest if it is really unused.'
    ])
    expect(host.git.branches.get('main')).toBe(head)
  })

  it('asks for pull-request mode when the branch refuses a direct write', async () => {
    const host = new MemoryGitHost()
    host.protectedBranches.add('main')
    const result = await commitManifest(commitInput(host, settingsFor()), stepContext().context)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.failure.advice[0]).toContain('Set `gitops-mode: pull-request`')
  })

  it('with any other error, advises on the token', async () => {
    const host = new MemoryGitHost({ defaultBranch: 'trunk' })
    const result = await commitManifest(commitInput(host, settingsFor()), stepContext().context)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.failure.message).toBe('Branch main does not exist in acme/gitops.')
    expect(result.failure.advice).toEqual([
      'Check that gitops-token may write to the GitOps repository (write access).'
    ])
  })

  it('keep-tests: removes the oldest manifests of the template in the same commit', async () => {
    const files = {
      'coder-template-tests/docker-v0.yaml': manifestText('v0'),
      'coder-template-tests/docker-v1.yaml': manifestText('v1'),
      'coder-template-tests/notes.txt': 'not a manifest\n'
    }
    const host = new MemoryGitHost({ files })
    const times = {
      v0: '2026-01-01T00:00:00Z',
      v1: '2026-02-01T00:00:00Z',
      v2: '2026-03-01T00:00:00Z'
    }
    const input = commitInput(host, settingsFor({ 'keep-tests': '2' }), 'v2', times)
    const result = await commitManifest(input, stepContext().context)
    expect(result).toMatchObject({
      ok: true,
      value: { pruned: ['coder-template-tests/docker-v0.yaml'] }
    })
    const tree = [...host.git.resolve('main')!.files.keys()].sort()
    expect(tree).toEqual([
      'coder-template-tests/docker-v1.yaml',
      MANIFEST_PATH,
      'coder-template-tests/notes.txt'
    ])
  })

  // keep-tests never removes a newer version's manifest, nor one whose test still runs.
  it.each<[string, Record<string, string>, TestState | null, string[], string]>([
    [
      'a newer version (an older run commits last)',
      { v0: '2026-01-01T00:00:00Z', v1: '2026-09-01T00:00:00Z', v2: '2026-03-01T00:00:00Z' },
      null,
      ['coder-template-tests/docker-v0.yaml'],
      "keep-tests keeps coder-template-tests/docker-v1.yaml: its version was created after this run's"
    ],
    [
      'a test still running',
      { v0: '2026-01-01T00:00:00Z', v1: '2026-02-01T00:00:00Z', v2: '2026-03-01T00:00:00Z' },
      'running',
      [],
      'keep-tests keeps coder-template-tests/docker-v0.yaml: its test is still running in the cluster'
    ],
    [
      'a test the cluster cannot tell about',
      { v0: '2026-01-01T00:00:00Z', v1: '2026-02-01T00:00:00Z', v2: '2026-03-01T00:00:00Z' },
      'unread',
      [],
      'keep-tests keeps coder-template-tests/docker-v0.yaml: the cluster could not tell'
    ]
  ])('keep-tests: 1 keeps %s', async (_, times, state, pruned, line) => {
    const files = {
      'coder-template-tests/docker-v0.yaml': manifestText('v0'),
      'coder-template-tests/docker-v1.yaml': manifestText('v1')
    }
    const host = new MemoryGitHost({ files })
    const input = commitInput(host, settingsFor({ 'keep-tests': '1' }), 'v2', times)
    const asked: string[] = []
    if (state)
      input.testState = async (name) => {
        asked.push(name)
        return state
      }
    const { context, infos } = stepContext()
    const result = await commitManifest(input, context)
    expect(result).toMatchObject({ ok: true, value: { pruned } })
    expect(infos.join('\n')).toContain(line)
    if (state) expect(asked).toEqual(['docker-v0', 'docker-v1'])
  })

  it('retries a lost race on the fake clock and says how often', async () => {
    const host = new MemoryGitHost()
    host.raceNextWrite('main')
    const { context, infos, clock } = stepContext()
    const result = await commitManifest(commitInput(host, settingsFor()), context)
    expect(result.ok).toBe(true)
    expect(infos).toContain('another writer moved the branch first 1 times')
    expect(clock.slept).toHaveLength(1)
    expect(host.git.fileAt('main', MANIFEST_PATH)).not.toBeNull()
  })

  it('a cancel is thrown, not reported as a commit failure', async () => {
    const host = new MemoryGitHost()
    const { context, abort } = stepContext()
    abort.abort(new Error('cancelled'))
    await expect(commitManifest(commitInput(host, settingsFor()), context)).rejects.toThrow(
      'cancelled'
    )
  })
})

describe('commit step, pull-request mode', () => {
  const prMode = () => settingsFor({ 'gitops-mode': 'pull-request' })

  it("commits to the gate's branch from the base, never to the base", async () => {
    const host = new MemoryGitHost()
    const base = host.git.branches.get('main')
    const result = await commitManifest(commitInput(host, prMode()), stepContext().context)
    expect(result).toMatchObject({ ok: true, value: { branch: GATE_BRANCH, onBase: false } })
    expect(host.git.branches.get('main')).toBe(base)
    expect(host.git.fileAt(GATE_BRANCH, MANIFEST_PATH)).not.toBeNull()
  })

  it('needs no branch when the base holds the same test already', async () => {
    const host = new MemoryGitHost({ files: { [MANIFEST_PATH]: manifestText('v2') } })
    const result = await commitManifest(commitInput(host, prMode()), stepContext().context)
    expect(result).toMatchObject({ ok: true, value: { onBase: true, commitSha: '' } })
    expect(host.git.branches.has(GATE_BRANCH)).toBe(false)
  })

  it('moves a spent branch (merged, the manifest gone since) to the base, then commits', async () => {
    const host = new MemoryGitHost()
    const first = await commitManifest(commitInput(host, prMode()), stepContext().context)
    expect(first.ok).toBe(true)
    const open = { head: GATE_BRANCH, base: 'main', title: 't', body: 'b', labels: [] }
    host.mergeByHand((await host.openPullRequest(open, hostCall())).number)
    host.push('main', MANIFEST_PATH, null, 'alice')
    const again = await commitManifest(commitInput(host, prMode()), stepContext().context)
    expect(again).toMatchObject({ ok: true, value: { branch: GATE_BRANCH, onBase: false } })
    if (!again.ok) return
    expect(again.value.commitSha).not.toBe('')
    expect(host.calls).toContain('forwardSpentBranch')
  })
})
