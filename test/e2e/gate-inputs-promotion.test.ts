// End to end, as gate.test.ts: the early failures (one invalid input; the rest of that table is in
// test/unit/steps/inputs-step.test.ts) and the promotion answers (one retry, one refusal to overwrite).
import { describe, expect, it } from '@jest/globals'
import { expectNoSecrets } from './expect.js'
import { activeVersionName, manifestInGit, promoteRequests } from './world-reads.js'
import { oneWorldPerTest } from './world-per-test.js'
import { GITOPS_REPO, OWNER } from '../sandbox/world.js'

const newWorld = oneWorldPerTest()

describe('inputs and early failures, end to end', () => {
  // One row: the refusal sends no request and writes nothing. The rest of the table runs through
  // the inputs step in test/unit/steps/inputs-step.test.ts, and each rule in test/unit/settings/inputs.test.ts.
  it.each<[string, Record<string, string>, string]>([
    ['a reserved template name', { template: 'new' }, 'Input "template" "new" is invalid']
  ])('refuses %s before any side effect', async (_, overrides, message) => {
    const w = await newWorld()
    const run = await w.run(overrides)
    expect(run.exitCode).toBe(1)
    expect(run.stdout.split('\n').filter((line) => line.startsWith('::error::'))).toEqual(
      expect.arrayContaining([expect.stringContaining(message)])
    )
    expect(w.coder.requests).toHaveLength(0)
    expect(w.kube.requests).toHaveLength(0)
    expect(w.github.requests).toHaveLength(0)
    expect(run.summary).toContain('Invalid input')
    expect(run.outputs['promotion-result']).toBe('')
    expectNoSecrets(w, run, false)
  })

  it('resolves the alias default to the real organization name in the manifest and the API path', async () => {
    const w = await newWorld.withDocker()
    const run = await w.run({ organization: 'default' })
    expect(run.exitCode).toBe(0)
    expect(manifestInGit(w, 'docker-v1-0-0')).toMatchObject({ spec: { template: 'acme.docker' } })
    expect(
      w.kube.requests.some((r) => r.path.includes('/codertemplates/acme.docker/promote'))
    ).toBe(true)
    expectNoSecrets(w, run)
  })

  it("fails on a failed import with Coder's message, and commits nothing", async () => {
    const w = await newWorld.withDocker()
    w.coder.failNextImport('terraform plan: Error: Missing required argument "image"')
    const commits = w.github.commits(OWNER, GITOPS_REPO, 'main').length
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('Missing required argument')
    expect(run.summary).toContain('<tr><td>push</td><td>failed</td>')
    expect(run.summary).toContain('<tr><td>commit</td><td>not run</td>')
    expect(w.github.commits(OWNER, GITOPS_REPO, 'main')).toHaveLength(commits)
    expect(activeVersionName(w)).toBe('v0.9.0')
    expectNoSecrets(w, run)
  })

  it('with create-template: true, warns that Coder activates the first version of a new template', async () => {
    const w = await newWorld()
    const run = await w.run({ 'create-template': 'true' })
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toMatch(
      /::warning::Template "docker" did not exist, so Coder created it with .* as its active version/
    )
    expect(run.outputs['promotion-result']).toBe('AlreadyActive')
    expectNoSecrets(w, run)
  })

  it('stops before any push when coder-k8s is not installed', async () => {
    const w = await newWorld({ kube: { serveTestGroup: false } })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toMatch(/coder-k8s is not installed/i)
    expect(w.coder.backend.listVersions(OWNER, 'docker')).toHaveLength(0)
    // The preflight only reads.
    expect(w.github.requests.filter((r) => r.method !== 'GET')).toHaveLength(0)
    expectNoSecrets(w, run)
  })
})

describe('promotion answers, end to end', () => {
  async function promoteWith(faults: unknown[]) {
    const w = await newWorld.withDocker()
    // Another promotable version, for the faults in which another writer activates a third one.
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
    w.kube.faults.promote.push(...(faults as never[]))
    const run = await w.run()
    expectNoSecrets(w, run)
    return { w, run }
  }

  // One retry and one refusal to overwrite: which answer is retried, re-read or final is the
  // adapter's table (test/kube/promote.test.ts, fault -> kind) and runPromotion's with an injected
  // sleep (test/unit/promotion/promotion.test.ts), so the e2e runs no longer sleep through every backoff.
  it.each([['429, then success', [{ kind: 'status', code: 429 }], 2]])(
    'promotes after %s',
    async (_, faults, requests) => {
      const { w, run } = await promoteWith(faults)
      expect(run.exitCode).toBe(0)
      expect(run.outputs['promotion-result']).toBe('Promoted')
      expect(activeVersionName(w)).toBe('v1.0.0')
      expect(promoteRequests(w)).toBe(requests)
    }
  )

  it.each([
    [
      'a third version after an unclear activation (409)',
      [{ kind: 'activation-unclear', activeAfter: 'third' }],
      'Another writer activated version'
    ]
  ])('fails on %s without overwriting anything', async (_, faults, text) => {
    const { w, run } = await promoteWith(faults)
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(text)
    expect(promoteRequests(w)).toBe(1)
    expect(activeVersionName(w)).not.toBe('v1.0.0')
  })
})
