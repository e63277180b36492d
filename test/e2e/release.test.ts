// End to end: a release with a person in the loop, as two jobs of one workflow run. The test job
// (`mode: test`) pushes, commits and waits; the promote job (`mode: promote`), after the approval,
// finds what the test job left and promotes it behind the guard, pushing and committing nothing.
import { describe, expect, it } from '@jest/globals'
import YAML from 'yaml'
import { expectCleanSuccess, expectNoSecrets, testedVersionOutputs } from './expect.js'
import { activeVersionName, manifestInGit, promoteRequests } from './world-reads.js'
import { oneWorldPerTest } from './world-per-test.js'
import { GITOPS_PATH, GITOPS_REPO, OWNER, type World } from '../sandbox/world.js'

const newWorld = oneWorldPerTest()

/** The test job; returns its previous-active-version-id, as the promote job gets it. */
async function testJob(w: World): Promise<string> {
  const run = await w.run({ mode: 'test' })
  expect(run.exitCode).toBe(0)
  expect(run.outputs['promotion-result']).toBe('Skipped')
  expect(activeVersionName(w)).toBe('v0.9.0')
  return run.outputs['previous-active-version-id']!
}

/** The promote job of the same workflow run, after the approval: a job of its own. */
function promoteJob(w: World, expected: string, overrides: Record<string, string> = {}) {
  return w.run({ mode: 'promote', 'expected-active-version-id': expected, ...overrides })
}

function worldEffects(w: World): { pushes: number; commits: number } {
  return {
    pushes: w.coder.cliInvocations.length,
    commits: w.github.commits(OWNER, GITOPS_REPO, 'main').length
  }
}

describe('a release with an approval, end to end', () => {
  it('test job, then promote job: promotes the tested version, pushing and committing nothing', async () => {
    const w = await newWorld.withDocker()
    const previous = await testJob(w)
    const before = worldEffects(w)
    const run = await promoteJob(w, previous)
    const tested = expectCleanSuccess(w, run)
    expect(run.outputs).toMatchObject({
      // commit-sha: the commit at which the manifest was read, the head of gitops-branch.
      ...testedVersionOutputs(w, tested.id),
      phase: 'Succeeded',
      'promotion-result': 'Promoted',
      'previous-active-version-id': previous,
      'active-version-id': tested.id
    })
    expect(worldEffects(w)).toEqual(before)
    expect(activeVersionName(w)).toBe('v1.0.0')
    expect(promoteRequests(w)).toBe(1)
    expect(run.summary).toContain('Promote job (<code>mode: promote</code>)')
    expect(run.summary).toContain('passed its test and was promoted')
    expectNoSecrets(w, run)
  })

  it('without the template: says to run the test job first, not to set create-template', async () => {
    const w = await newWorld()
    const run = await w.run({ mode: 'promote', 'create-template': 'true' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('so no test job pushed to it')
    expect(run.stdout).toContain('run the test job (mode: test) for this commit first')
    expect(run.stdout).not.toContain('set create-template: true')
    expect(promoteRequests(w)).toBe(0)
  })

  it('fails the locate step when expected-active-version-id is not a version of the template', async () => {
    const w = await newWorld.withDocker()
    await testJob(w)
    const missing = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'
    const run = await promoteJob(w, missing)
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(`Input "expected-active-version-id" names version ${missing}`)
    expect(run.outputs['promotion-result']).toBe('')
    expect(promoteRequests(w)).toBe(0)
  })

  it('fails clearly when no test job ran for this commit, and promotes nothing', async () => {
    const w = await newWorld.withDocker()
    const run = await w.run({ mode: 'promote' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('Coder holds no version "v1.0.0" of acme.docker')
    expect(run.stdout).toContain('Run the test job (mode: test) for this commit first')
    expect(run.outputs['promotion-result']).toBe('')
    expect(run.summary).toContain('troubleshooting')
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
    expect(manifestInGit(w, 'docker-v1-0-0')).toBeNull()
  })

  it('names a version of that name that this commit did not push', async () => {
    const w = await newWorld.withDocker()
    w.coder.seedVersion({ template: 'docker', name: 'v1.0.0', message: 'pushed by hand' })
    const run = await w.run({ mode: 'promote' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('was not pushed for commit 3f2a9c1d5e7b')
    expect(run.stdout).toContain('"pushed by hand"')
    expect(promoteRequests(w)).toBe(0)
  })

  it('refuses when another writer activated a version between the two jobs', async () => {
    const w = await newWorld.withDocker()
    const previous = await testJob(w)
    // While the approval waited, someone activated a hotfix.
    const hotfix = w.coder.seedVersion({ template: 'docker', name: 'v0.9.1', activate: true })
    const run = await promoteJob(w, previous)
    expect(run.exitCode).toBe(1)
    expect(run.outputs['promotion-result']).toBe('Refused')
    expect(run.stdout).toContain(`is v0.9.1 (${hotfix.id}) now`)
    expect(run.stdout).toContain("at the guard's starting point (expected-active-version-id")
    expect(run.outputs['active-version-id']).toBe(hotfix.id)
    // The active version when this job started, not expected-active-version-id.
    expect(run.outputs['previous-active-version-id']).toBe(hotfix.id)
    expect(activeVersionName(w)).toBe('v0.9.1')
    expect(promoteRequests(w)).toBe(0)
  })

  it('fails the integrity check when the manifest on the branch differs from the test', async () => {
    const w = await newWorld.withDocker()
    const previous = await testJob(w)
    // Someone changed the manifest after the test ran; the cluster keeps the tested spec.
    const changed = manifestInGit(w, 'docker-v1-0-0')!
    ;(changed.spec as Record<string, unknown>).parameters = [{ name: 'image', value: 'other' }]
    const path = `${GITOPS_PATH}/docker-v1-0-0.yaml`
    w.github.writeFile(OWNER, GITOPS_REPO, 'main', path, YAML.stringify(changed), 'Edit the test')
    const run = await promoteJob(w, previous)
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('does not prove version v1.0.0')
    expect(run.summary).toContain('spec.parameters')
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
  })

  it('previews with promote: dry-run; the read-only preflight skips the checks of a write', async () => {
    const w = await newWorld.withDocker()
    const previous = await testJob(w)
    // A rule that would stop a commit: the promote job commits nothing, so it does not matter.
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    const run = await promoteJob(w, previous, { promote: 'dry-run' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('WouldPromote')
    expect(activeVersionName(w)).toBe('v0.9.0')
    expect(run.summary).toContain('would be promoted')
  })
})
