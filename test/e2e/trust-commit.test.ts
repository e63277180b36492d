// End to end: keep-tests never removes a newer run's manifest; a test deleted during the wait ends
// it at once; a commit whose answer was lost is looked for on the branch, the last attempt too; a
// version Coder refuses to archive is a warning; a third version on a re-read is Refused.
import { describe, expect, it } from '@jest/globals'
import type { ChildProcess } from 'node:child_process'
import { withVersionMarker } from '../../src/coder/version-identity.js'
import { buildTestManifest, renderManifest } from '../../src/objects/manifest.js'
import { GITOPS_REPO, NAMESPACE, OWNER } from '../sandbox/world.js'
import { expectNoSecrets } from './expect.js'
import { commandsTheRunnerRuns, errorAnnotations } from './runner-log.js'
import { manifestPathOf, seedOlderVersions } from './older-versions.js'
import { oneWorldPerTest, whenLogged } from './world-per-test.js'
import { promoteRequests } from './world-reads.js'

const newWorld = oneWorldPerTest()
const MUTATION = 'createCommitOnBranch'
const warnings = (stdout: string) =>
  commandsTheRunnerRuns(stdout).filter((c) => c.startsWith('::warning'))

describe('keep-tests never removes a newer run’s manifest, end to end', () => {
  it('two runs with keep-tests: 1: the older run commits last and keeps the newer manifest', async () => {
    const w = await newWorld.withDocker()
    seedOlderVersions(w, ['v0.5.0'])
    // Run A (v1.0.0) is stopped when its push reads the version times, before its commit.
    let stopped!: () => void
    const isStopped = new Promise<void>((resolve) => (stopped = resolve))
    let runA: ChildProcess | undefined
    // Its first list of the versions is the preflight's (the competing-writer check); the
    // second is the push's read of the version times.
    let lists = 0
    const onRequest = (request: { path: string }) => {
      if (runA && request.path.includes('include_archived=true') && ++lists === 2) {
        w.coder.events.off('request', onRequest)
        runA.kill('SIGSTOP')
        stopped()
      }
    }
    w.coder.events.on('request', onRequest)
    const older = w.run({ 'keep-tests': '1' }, {}, { onStart: (child) => (runA = child) })
    await isStopped
    // Run B (v1.0.1), pushed after A: it commits, tests and promotes first.
    const newer = await w.run({ 'keep-tests': '1' }, { ref: 'refs/tags/v1.0.1' })
    expect(newer.exitCode).toBe(0)
    expect(newer.outputs['pruned-manifests']).toBe(manifestPathOf('v0.5.0'))
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', manifestPathOf('v1.0.1'))).not.toBeNull()
    runA!.kill('SIGCONT')
    const run = await older
    // A read the version times before B pushed: B's version is unknown to A, so it stays.
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', manifestPathOf('v1.0.1'))).not.toBeNull()
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', manifestPathOf('v1.0.0'))).not.toBeNull()
    expect(run.outputs['pruned-manifests']).toBe('')
    expect(run.stdout).toContain(
      `keep-tests keeps ${manifestPathOf('v1.0.1')}: the creation time of its version`
    )
    expectNoSecrets(w, run)
  })

  it('keep-tests: 1 keeps the manifest of a version created after this run’s', async () => {
    const w = await newWorld.withDocker()
    seedOlderVersions(w, ['v0.5.0'])
    // Another run's version, created later than the one this run pushes, and its manifest.
    w.coder.seedVersion({ template: 'docker', name: 'v1.0.1', createdAt: '2099-01-01T00:00:00Z' })
    const path = manifestPathOf('v1.0.1')
    const manifest = buildTestManifest({
      testName: 'docker-v1-0-1',
      namespace: NAMESPACE,
      controlPlane: 'coder',
      organization: OWNER,
      template: 'docker',
      version: 'v1.0.1',
      parameters: [],
      timeoutSeconds: 900
    })
    w.github.writeFile(OWNER, GITOPS_REPO, 'main', path, renderManifest(manifest))
    const run = await w.run({ 'keep-tests': '1' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['pruned-manifests']).toBe(manifestPathOf('v0.5.0'))
    expect(w.github.readFile(OWNER, GITOPS_REPO, 'main', path)).not.toBeNull()
    expect(run.stdout).toContain(
      `keep-tests keeps ${path}: its version was created after this run's`
    )
  })
})

describe('a test deleted during the wait, end to end', () => {
  it('ends the wait at once, naming the deletion and where it likely came from', async () => {
    const w = await newWorld.withDocker({ syncPrune: true })
    // The test stays running: only the deletion can end this wait before its timeout.
    w.kube.controller!.script('docker-v1-0-0', { stepDelays: { WaitingForAgents: 600_000 } })
    const path = manifestPathOf('v1.0.0')
    const prune = whenLogged('Running / ', () => {
      w.github.writeFile(OWNER, GITOPS_REPO, 'main', path, null, 'Remove the test by hand')
    })
    const run = await w.run({ 'wait-timeout-seconds': '60' }, {}, prune)
    expect(prune.firedAt).toBeGreaterThan(0)
    expect(run.exitCode).toBe(1)
    const [error] = errorAnnotations(run.stdout)
    expect(error?.message).toContain(
      `CoderTemplateTest ${NAMESPACE}/docker-v1-0-0 was deleted (or is being deleted) before it was final`
    )
    expect(error?.message).toContain('removed from Git and the GitOps engine pruned the object')
    expect(run.summary).not.toContain('wait-timeout-seconds')
    expect(promoteRequests(w)).toBe(0)
  })
})

describe('a lost commit answer is looked for, end to end', () => {
  it.each([
    ["GitHub's GraphQL timeout at the first attempt", 0, undefined],
    ['another typeless GraphQL error at the first attempt', 0, 'Timeout on validation of query'],
    ["GitHub's GraphQL timeout at the last attempt", 2, undefined]
  ])('%s, stored: one commit, success reported', async (_, unstored, text) => {
    const w = await newWorld.withDocker()
    const before = w.github.commits(OWNER, GITOPS_REPO, 'main').length
    if (unstored) w.github.failGraphqlUnstored(unstored, MUTATION)
    w.github.timeOutAfterStoring(1, MUTATION, text)
    const run = await w.run()
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    expect(w.github.commits(OWNER, GITOPS_REPO, 'main')).toHaveLength(before + 1)
    expect(run.outputs['commit-sha']).toBe(w.github.branchHead(OWNER, GITOPS_REPO, 'main'))
    expectNoSecrets(w, run)
  })
})

describe('a commit found after a lost answer is ours by content, never by its message', () => {
  it('another writer’s commit with the gate’s own message lands meanwhile: not taken for ours', async () => {
    const w = await newWorld.withDocker()
    const before = w.github.commits(OWNER, GITOPS_REPO, 'main').length
    w.github.failGraphqlUnstored(1, MUTATION)
    let forged = ''
    w.github.beforeRequest((method, _path, body) => {
      if (forged || method !== 'POST' || !body.includes(MUTATION)) return
      const { headline, body: rest } = JSON.parse(body).variables.input.message
      const message = rest ? `${headline}\n\n${rest}` : headline
      forged = w.github.writeFile(OWNER, GITOPS_REPO, 'main', 'apps/prod.yaml', 'x\n', message)
    })
    const run = await w.run()
    expect(forged).not.toBe('')
    expect(run.exitCode).toBe(0)
    expect(run.outputs['commit-sha']).not.toBe(forged)
    expect(run.outputs['commit-sha']).toBe(w.github.branchHead(OWNER, GITOPS_REPO, 'main'))
    expect(w.github.commits(OWNER, GITOPS_REPO, 'main')).toHaveLength(before + 2)
    expect(run.outputs['promotion-result']).toBe('Promoted')
  })
})

describe('the small ones, end to end', () => {
  it('a version Coder refuses to archive is a warning naming it and why', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const marker = withVersionMarker(
      'older',
      'a'.repeat(40),
      'https://github.com/o/r/actions/runs/5'
    )
    for (const name of ['g1', 'g2'])
      w.coder.seedVersion({ template: 'docker', name, message: marker })
    w.coder.useVersion(w.coder.backend.findVersionByName(OWNER, 'docker', 'g1')!.id)
    const run = await w.run({ 'keep-versions': '1' })
    expect(run.exitCode).toBe(0)
    expect(warnings(run.stdout)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^::warning::Version g1 was not archived \(keep-versions \/ archive-failed\): Coder refused: /
        )
      ])
    )
  })

  it('a third version found by the re-read after an unclear answer is Refused', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
    w.kube.faults.promote.push({ kind: 'activation-unclear', activeAfter: 'third' })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.outputs['promotion-result']).toBe('Refused')
    expect(run.stdout).toContain('Another writer activated version')
    expect(promoteRequests(w)).toBe(1)
  })
})

describe('the preflight knows every rule against a direct commit, end to end', () => {
  it('a required_status_checks ruleset in commit mode fails the preflight; nothing is pushed', async () => {
    const w = await newWorld.withDocker()
    w.github.addRuleset(OWNER, GITOPS_REPO, { name: 'ci', requiredStatusChecks: ['ci'] })
    const head = w.github.branchHead(OWNER, GITOPS_REPO, 'main')
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    const [error] = errorAnnotations(run.stdout)
    expect(error?.message).toMatch(
      /ruleset "ci" \(id \d+\) refuses direct commits to main \(rule required_status_checks\)/
    )
    expect(error?.message).toContain('gitops-mode: pull-request')
    expect(w.coder.backend.findVersionByName(OWNER, 'docker', 'v1.0.0')).toBeNull()
    expect(w.github.branchHead(OWNER, GITOPS_REPO, 'main')).toBe(head)
    expect(w.kube.store.list(NAMESPACE)).toEqual([])
  })

  it('a token that may bypass the ruleset passes, and the summary says it bypassed it', async () => {
    const w = await newWorld.withDocker()
    w.github.addRuleset(OWNER, GITOPS_REPO, {
      name: 'ci',
      requiredStatusChecks: ['ci'],
      bypassAdmins: true
    })
    w.github.addToken('ghs_gitops_admin_token', { role: 'admin' })
    const run = await w.run({ 'gitops-token': 'ghs_gitops_admin_token' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    expect(run.summary).toMatch(
      /gitops-token bypasses ruleset &quot;ci&quot; \(id \d+\) \(rule required_status_checks\) on main/
    )
    expect(run.summary).not.toContain('ghs_gitops_admin_token')
    expect(Object.values(run.outputs).join('\n')).not.toContain('ghs_gitops_admin_token')
  })
})
