// End to end: the committed bundle, `node dist/index.js`, run the way the GitHub runner runs it,
// against the sandbox world. Each test asserts the exit code, the outputs, the summary and what
// the world saw — and that no secret shows anywhere.
import { describe, expect, it } from '@jest/globals'
import {
  activeVersionName,
  expectNoSecrets,
  manifestInGit,
  oneWorldPerTest,
  promoteRequests
} from './expect.js'
import { GITOPS_PATH, GITOPS_REPO, NAMESPACE, OWNER } from '../sandbox/world.js'

const newWorld = oneWorldPerTest()

describe('the gate, end to end', () => {
  it('pushes, commits, waits, verifies and promotes exactly the tested version', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const previous = w.coder.backend.findTemplate(OWNER, 'docker')!.activeVersionId
    const run = await w.run()
    expect(run.stderr).toBe('')
    expect(run.exitCode).toBe(0)
    const pushed = w.coder.backend.findVersionByName(OWNER, 'docker', 'v1.0.0')!
    expect(run.outputs).toEqual({
      'version-name': 'v1.0.0',
      'version-id': pushed.id,
      'test-name': 'docker-v1-0-0',
      'manifest-path': `${GITOPS_PATH}/docker-v1-0-0.yaml`,
      'commit-sha': w.github.commits(OWNER, GITOPS_REPO, 'main').at(-1)!.sha,
      phase: 'Succeeded',
      reason: 'Succeeded',
      message: expect.stringContaining(
        'was ready, and the workspace is deleted'
      ) as unknown as string,
      'promotion-result': 'Promoted',
      'previous-active-version-id': previous,
      'active-version-id': pushed.id,
      'pull-request-number': '',
      'pull-request-url': '',
      'pruned-manifests': ''
    })
    expect(activeVersionName(w)).toBe('v1.0.0')
    expect(manifestInGit(w, 'docker-v1-0-0')).toMatchObject({
      spec: {
        template: 'acme.docker',
        version: { name: 'v1.0.0' },
        timeoutSeconds: 900,
        controlPlaneRef: { name: 'coder' }
      }
    })
    const promote = w.kube.requests.filter((r) => r.path.includes('/promote'))
    expect(promote).toHaveLength(1)
    expect(promote[0]!.path).toBe(
      `/apis/aggregation.coder.com/v1alpha1/namespaces/${NAMESPACE}/codertemplates/acme.docker/promote?timeout=30s`
    )
    expect(JSON.parse(promote[0]!.body!)).toMatchObject({ spec: { versionID: pushed.id } })
    expect(run.summary).toContain('✅ docker v1.0.0 passed its test and was promoted')
    expect(run.summary).toContain('Timeline of the test')
    expect(run.stdout).toContain('::notice')
    expectNoSecrets(w, run)
  })

  it('fails on a failed test, with reason, message and advice, and promotes nothing', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    w.kube.controller!.script('docker-v1-0-0', {
      failAt: {
        step: 'WaitingForAgents',
        reason: 'AgentStartError',
        message: 'The startup script exited 1.'
      }
    })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.outputs).toMatchObject({
      phase: 'Failed',
      reason: 'AgentStartError',
      'promotion-result': ''
    })
    expect(run.stdout).toContain('::error')
    expect(run.summary).toContain('AgentStartError')
    expect(run.summary).toContain('startup script failed')
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
    expectNoSecrets(w, run)
  })

  it('refuses a squatted test name with another spec', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    // Someone created our test name first, with a parameter of their own.
    w.kube.store.create(NAMESPACE, {
      apiVersion: 'coder.com/v1alpha1',
      kind: 'CoderTemplateTest',
      metadata: { name: 'docker-v1-0-0', namespace: NAMESPACE },
      spec: {
        controlPlaneRef: { name: 'coder' },
        template: 'acme.docker',
        version: { name: 'v1.0.0' },
        parameters: [{ name: 'image', value: 'evil' }]
      }
    })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.summary).toContain('spec.parameters: committed nothing, found')
    expect(run.stdout).toContain('does not prove version v1.0.0')
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
    expectNoSecrets(w, run)
  })

  it('refuses a test whose status names another version ID', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const other = w.coder.backend.findTemplate(OWNER, 'docker')!.activeVersionId
    w.kube.controller!.script('docker-v1-0-0', { overrideVersionID: other })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.summary).toContain('status.templateVersionID')
    expect(promoteRequests(w)).toBe(0)
    expectNoSecrets(w, run)
  })

  it('waits while the status is of an older generation', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    let finalAt = 0
    w.kube.controller!.script('docker-v1-0-0', {
      staleGeneration: { mode: 'old-observed-generation', forMs: 1500 },
      onFinal: (info) => (finalAt = info.at)
    })
    const run = await w.run()
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    // The stale Succeeded was written first; the promotion waited for the fresh write.
    expect(w.kube.firstPromoteAt! - finalAt).toBeGreaterThanOrEqual(1500)
    expectNoSecrets(w, run)
  })

  it('waits through a controller that is down before the first status', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    w.kube.controller!.script('docker-v1-0-0', { downForMs: 1500 })
    const run = await w.run()
    expect(run.exitCode).toBe(0)
    expect(run.summary).toContain('(no status)')
    expectNoSecrets(w, run)
  })

  it('waits through a controller outage in the middle of the test, and promotes only after it', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    w.kube.controller!.script('docker-v1-0-0', { stepDelayMs: 100 })
    let recoveredAt = 0
    const run = await w.run(
      {},
      {},
      {
        onStdout: (text) => {
          if (recoveredAt === 0 && text.includes('Running / WaitingForBuild')) {
            recoveredAt = -1
            w.kube.controller!.setDown(true)
            setTimeout(() => {
              expect(promoteRequests(w)).toBe(0)
              recoveredAt = Date.now()
              w.kube.controller!.setDown(false)
            }, 1500)
          }
        }
      }
    )
    expect(recoveredAt).toBeGreaterThan(0)
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    expect(w.kube.firstPromoteAt!).toBeGreaterThan(recoveredAt)
    expectNoSecrets(w, run)
  })

  it('re-reads and re-watches when watch streams drop', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    w.kube.controller!.script('docker-v1-0-0', { stepDelayMs: 300 })
    let dropped = 0
    const timer = setInterval(() => (dropped += w.kube.dropWatches()), 400)
    const run = await w.run().finally(() => clearInterval(timer))
    expect(dropped).toBeGreaterThan(0)
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('Promoted')
    const watches = w.kube.requests.filter((r) => r.path.includes('watch=')).length
    expect(watches).toBeGreaterThan(1)
    expectNoSecrets(w, run)
  })

  it('tests without promoting with promote: false', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const previous = w.coder.backend.findTemplate(OWNER, 'docker')!.activeVersionId
    const run = await w.run(
      { promote: 'false' },
      {
        eventName: 'pull_request',
        ref: 'refs/pull/7/merge',
        payload: {
          number: 7,
          pull_request: {
            number: 7,
            title: 'Try Go',
            head: { sha: 'abcdef1234567890abcdef1234567890abcdef12' }
          }
        }
      }
    )
    expect(run.exitCode).toBe(0)
    expect(run.outputs).toMatchObject({
      'version-name': 'pr-7-abcdef1',
      'promotion-result': 'Skipped',
      'active-version-id': previous,
      'previous-active-version-id': previous
    })
    expect(promoteRequests(w)).toBe(0)
    expect(activeVersionName(w)).toBe('v0.9.0')
    expect(run.summary).toContain('promotion skipped')
    expectNoSecrets(w, run)
  })

  it('previews with promote: dry-run and changes nothing', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const run = await w.run({ promote: 'dry-run' })
    expect(run.exitCode).toBe(0)
    expect(run.outputs['promotion-result']).toBe('WouldPromote')
    expect(w.kube.requests.find((r) => r.path.includes('/promote'))!.path).toContain('dryRun=All')
    expect(activeVersionName(w)).toBe('v0.9.0')
    expectNoSecrets(w, run)
  })

  it('gives the same end state on a re-run: no new version, commit, test or promotion', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const first = await w.run()
    expect(first.exitCode).toBe(0)
    const versions = w.coder.backend.listVersions(OWNER, 'docker').length
    const commits = w.github.commits(OWNER, GITOPS_REPO, 'main').length
    const tests = w.kube.store.list(NAMESPACE).length
    // Another workflow run of the same commit: a new run URL, the same inputs.
    const second = await w.run({}, { runId: '4243' })
    expect(second.exitCode).toBe(0)
    expect(second.stdout).toContain('already pushed')
    expect(second.outputs['commit-sha']).toBe('')
    expect(second.outputs['promotion-result']).toBe('AlreadyActive')
    expect(second.outputs['version-id']).toBe(first.outputs['version-id'])
    expect(w.coder.backend.listVersions(OWNER, 'docker')).toHaveLength(versions)
    expect(w.github.commits(OWNER, GITOPS_REPO, 'main')).toHaveLength(commits)
    expect(w.kube.store.list(NAMESPACE)).toHaveLength(tests)
    expect(activeVersionName(w)).toBe('v1.0.0')
    expectNoSecrets(w, second)
  })

  it('refuses a version of our name that this commit did not push (a moved tag, a manual push)', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    w.coder.seedVersion({ template: 'docker', name: 'v1.0.0', message: 'pushed by hand' })
    const commits = w.github.commits(OWNER, GITOPS_REPO, 'main').length
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('this commit did not push it')
    expect(w.github.commits(OWNER, GITOPS_REPO, 'main')).toHaveLength(commits)
    expect(promoteRequests(w)).toBe(0)
    expectNoSecrets(w, run)
  })

  it('retries the commit after a concurrent writer moved the branch', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    w.github.injectConflicts(2, 409)
    const run = await w.run()
    expect(run.exitCode).toBe(0)
    expect(manifestInGit(w, 'docker-v1-0-0')).not.toBeNull()
    expectNoSecrets(w, run)
  })

  it('fails when Git holds a different manifest under the test name, and leaves it unchanged', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const first = await w.run({ version: 'V2.0_rc1' })
    expect(first.exitCode).toBe(0)
    const before = w.github.readFile(
      OWNER,
      GITOPS_REPO,
      'main',
      `${GITOPS_PATH}/docker-v2-0-rc1.yaml`
    )
    // v2-0-rc1 maps to the same test name as V2.0_rc1.
    const run = await w.run({ version: 'v2-0-rc1' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('already exists on branch main')
    expect(run.stdout).toContain('spec is immutable')
    expect(run.summary).toContain('<tr><td>commit</td><td>failed</td>')
    expect(run.summary).toContain('<tr><td>sync</td><td>not run</td>')
    expect(
      w.github.readFile(OWNER, GITOPS_REPO, 'main', `${GITOPS_PATH}/docker-v2-0-rc1.yaml`)
    ).toBe(before)
    expect(activeVersionName(w)).toBe('V2.0_rc1')
    expectNoSecrets(w, run)
  })

  it('times out with the last phase when the controller never finishes', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    w.kube.controller!.script('docker-v1-0-0', { downForMs: 60_000 })
    const run = await w.run({ 'wait-timeout-seconds': '2' })
    expect(run.exitCode).toBe(1)
    expect(run.summary).toContain('timed out')
    expect(run.stdout).toContain('was not final within 2 s')
    expect(run.summary).toContain('<tr><td>test</td><td>timed out</td>')
    expect(promoteRequests(w)).toBe(0)
    expectNoSecrets(w, run)
  })

  it('times out when GitOps never creates the test', async () => {
    const w = await newWorld({ noSync: true })
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const run = await w.run({ 'sync-timeout-seconds': '2' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('did not appear in the cluster within 2 s')
    expect(run.stdout).toContain('does not exist yet')
    expectNoSecrets(w, run)
  })

  it('stops promptly on SIGINT while waiting, writes the summary and promotes nothing', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    w.kube.controller!.script('docker-v1-0-0', { downForMs: 60_000 })
    let sentAt = 0
    const run = await w.run(
      {},
      {},
      {
        onStdout: (text, child) => {
          if (!sentAt && text.includes('waiting for the controller')) {
            sentAt = Date.now()
            child.kill('SIGINT')
          }
        }
      }
    )
    expect(sentAt).toBeGreaterThan(0)
    expect(run.exitCode).not.toBe(0)
    expect(run.signal).toBeNull()
    expect(run.summary).toContain('cancelled; nothing was promoted')
    expect(run.summary).toContain('<tr><td>test</td><td>cancelled</td>')
    expect(promoteRequests(w)).toBe(0)
    expectNoSecrets(w, run)
  })

  it('downloads the deployment CLI once and takes it from the tool cache after', async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const toolCache = (await import('node:fs')).mkdtempSync(
      `${(await import('node:os')).tmpdir()}/gate-tools-`
    )
    const first = await w.run({ 'coder-cli': '' }, { toolCache })
    expect(first.exitCode).toBe(0)
    const second = await w.run({ 'coder-cli': '', version: 'v1.0.1' }, { toolCache })
    expect(second.exitCode).toBe(0)
    expect(w.coder.requests.filter((r) => r.path.startsWith('/bin/coder-')).length).toBe(1)
    expectNoSecrets(w, second)
  })
})

describe('inputs and early failures, end to end', () => {
  // One row: the refusal sends no request and writes nothing. The rest of the table runs through
  // the inputs step in test/unit/inputs-step.test.ts, and each rule in test/unit/inputs.test.ts.
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
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    const run = await w.run({ organization: 'default' })
    expect(run.exitCode).toBe(0)
    expect(manifestInGit(w, 'docker-v1-0-0')).toMatchObject({ spec: { template: 'acme.docker' } })
    expect(
      w.kube.requests.some((r) => r.path.includes('/codertemplates/acme.docker/promote'))
    ).toBe(true)
    expectNoSecrets(w, run)
  })

  it("fails on a failed import with Coder's message, and commits nothing", async () => {
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
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
    const w = await newWorld()
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    // Another promotable version, for the faults in which another writer activates a third one.
    w.coder.seedVersion({ template: 'docker', name: 'v0.8.0' })
    w.kube.faults.promote.push(...(faults as never[]))
    const run = await w.run()
    expectNoSecrets(w, run)
    return { w, run }
  }

  // One retry and one refusal to overwrite: which answer is retried, re-read or final is the
  // adapter's table (test/kube/promote.test.ts, fault -> kind) and runPromotion's with an injected
  // sleep (test/unit/promotion.test.ts), so the e2e runs no longer sleep through every backoff.
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
