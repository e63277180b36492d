// End to end, a report people act on: every failure kind ends with a summary and a log
// epilogue that say what happened and what to do next — the failed step's own detail, the test
// workspace, links to the version in Coder, the GitOps commit or pull request and the run, version
// names beside their IDs, the kubectl command where a test exists, and what stays behind.
import { describe, expect, it } from '@jest/globals'
import { buildTestManifest, renderManifest } from '../../src/objects/manifest.js'
import { type ActionRun, type RunOptions } from '../sandbox/action-runner.js'
import { summaryAsText } from '../sandbox/summary-text.js'
import {
  GITOPS_PATH,
  GITOPS_REPO,
  NAMESPACE,
  OWNER,
  type World,
  type WorldOptions
} from '../sandbox/world.js'
import { expectNoSecrets } from './expect.js'
import { promoteRequests } from './world-reads.js'
import { oneWorldPerTest, whenLogged } from './world-per-test.js'

const startOneWorld = oneWorldPerTest()

async function newWorld(options: WorldOptions = {}, seed = true): Promise<World> {
  const world = await startOneWorld(options)
  if (seed) world.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
  return world
}

const TEST = 'docker-v1-0-0'
const RUN_URL = 'https://github.example/acme/templates/actions/runs/4242/attempts/1'
const INSPECT = `kubectl get codertemplatetest -n ${NAMESPACE} ${TEST} -o yaml`
/** Where the runner says the action comes from: the troubleshooting links point there. */
const ACTION_ENV = { GITHUB_ACTION_REPOSITORY: 'acme/coder-template-gate', GITHUB_ACTION_REF: 'v1' }

function runGate(
  w: World,
  inputs: Record<string, string> = {},
  options: RunOptions = {}
): Promise<ActionRun> {
  return w.run(inputs, {}, { ...options, extraEnv: { ...ACTION_ENV, ...options.extraEnv } })
}

interface Expected {
  kind: string
  /** The row of the step that failed or was cut, its result, and a part of its detail. */
  row?: [string, string, string]
  /** The tested version was pushed. */
  pushed?: boolean
  /** The active version at the start, by name. */
  previous?: string
  commit?: boolean
  testExists?: boolean
  /** Parts of the "what stays behind" lines. */
  stays: string[]
}

const escapeRe = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

function versionId(w: World, name: string): string {
  return w.coder.backend.findVersionByName(OWNER, 'docker', name)!.id
}

function expectFailureReport(w: World, run: ActionRun, expected: Expected): void {
  expect(run.exitCode).toBe(1)
  const text = summaryAsText(run.summary)
  const log = run.stdout
  // The failure kind, linked to its section of docs/troubleshooting.md.
  const doc = `https://github.example/acme/coder-template-gate/blob/v1/docs/troubleshooting.md#${expected.kind}`
  expect(run.summary).toContain(`href="${doc}"`)
  expect(log).toContain(`Troubleshooting: ${doc}`)
  // The run: a real link, never "this run".
  expect(run.summary).toContain(`href="${RUN_URL}"`)
  expect(run.summary).not.toContain('>this run<')
  expect(log).toContain(`Workflow run: ${RUN_URL}`)
  if (expected.row) {
    const [name, result, detail] = expected.row
    const row = new RegExp(`<tr><td>${name}</td><td>${result}</td><td>[^<]*</td><td>([^<]*)</td>`)
    const shown = row.exec(run.summary)?.[1]
    expect(shown).toContain(detail)
    expect(shown).not.toBe('–')
  }
  const coder = (name: string): string =>
    `${w.coder.url}/templates/acme/docker/versions/${encodeURIComponent(name)}`
  if (expected.pushed) {
    const id = versionId(w, 'v1.0.0')
    expect(text).toMatch(
      new RegExp(`Tested version +${escapeRe(`v1.0.0 (${id}), in Coder (${coder('v1.0.0')})`)}`)
    )
    expect(log).toContain(`Tested version: v1.0.0 (${id}) ${coder('v1.0.0')}`)
  }
  if (expected.previous) {
    const id = versionId(w, expected.previous)
    expect(text).toMatch(
      new RegExp(`Previous active version +${expected.previous} \\(${id}\\), in Coder`)
    )
    expect(log).toContain(`Previous active version: ${expected.previous} (${id})`)
  }
  if (expected.commit) {
    const sha = run.outputs['commit-sha']!
    const url = `${w.github.serverUrl}/${OWNER}/${GITOPS_REPO}/commit/${sha}`
    expect(run.summary).toContain(`href="${url}"`)
    expect(log).toContain(`GitOps commit: ${url}`)
  }
  if (expected.testExists) {
    expect(run.summary).toContain(`<code>${INSPECT}</code>`)
    expect(log).toContain(`Inspect the test: ${INSPECT}`)
  } else {
    expect(log).not.toContain('Inspect the test:')
  }
  // What stays behind, in the summary and at the end of the log.
  expect(text).toContain('What stays behind, and how to clean it up:')
  const epilogue = log.slice(log.lastIndexOf('What stays behind:'))
  for (const part of expected.stays) {
    expect(text).toContain(part)
    expect(epilogue).toContain(part)
  }
  expect(promoteRequests(w)).toBeLessThanOrEqual(1)
  expectNoSecrets(w, run, expected.kind !== 'invalid-input')
}

describe('the failure report, end to end, for every failure kind', () => {
  it('invalid input', async () => {
    const w = await newWorld({}, false)
    const run = await runGate(w, { template: 'new' })
    expect(run.summary).toContain('Input &quot;template&quot; &quot;new&quot; is invalid')
    expectFailureReport(w, run, {
      kind: 'invalid-input',
      stays: ['Nothing: the run changed nothing in Coder, Git or the cluster.']
    })
  })

  it('preflight', async () => {
    const w = await newWorld({}, false)
    const run = await runGate(w)
    expectFailureReport(w, run, {
      kind: 'preflight',
      row: ['preflight', 'failed', 'The preflight found what this run cannot do: 1 check failed'],
      stays: ['Nothing: the run changed nothing in Coder, Git or the cluster.']
    })
  })

  it('push', async () => {
    const w = await newWorld()
    w.coder.failNextImport('terraform plan: Error: Missing required argument "image"')
    const run = await runGate(w)
    expectFailureReport(w, run, {
      kind: 'push',
      row: ['push', 'failed', 'Missing required argument'],
      previous: 'v0.9.0',
      stays: [
        'Coder may hold a version named v1.0.0 whose import failed or was cancelled',
        'coder templates versions list docker -O acme --include-archived'
      ]
    })
  })

  it('commit', async () => {
    const w = await newWorld()
    // Someone wrote a test of this name with another spec: the spec is immutable.
    const foreign = buildTestManifest({
      testName: TEST,
      namespace: NAMESPACE,
      controlPlane: 'coder',
      organization: OWNER,
      template: 'docker',
      version: 'v1.0.0',
      parameters: [{ name: 'image', value: 'other' }],
      timeoutSeconds: 900
    })
    w.github.writeFile(
      OWNER,
      GITOPS_REPO,
      'main',
      `${GITOPS_PATH}/${TEST}.yaml`,
      renderManifest(foreign)
    )
    const run = await runGate(w)
    expectFailureReport(w, run, {
      kind: 'commit',
      row: ['commit', 'failed', 'already exists on branch main'],
      pushed: true,
      previous: 'v0.9.0',
      stays: [
        `Version v1.0.0 (${versionId(w, 'v1.0.0')}) stays in Coder, inactive`,
        'coder templates versions archive docker v1.0.0 -O acme --yes',
        'Nothing was committed to acme/gitops@main'
      ]
    })
  })

  it('pull request', async () => {
    const w = await newWorld({
      gitopsRepoSettings: { allowAutoMerge: true, mergeabilityDelayMs: 20, autoMergeDelayMs: 20 }
    })
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    const run = await runGate(w, {
      'gitops-mode': 'pull-request',
      'pull-request-merge': 'manual',
      'merge-timeout-seconds': '1'
    })
    const [pr] = w.github.pullRequests(OWNER, GITOPS_REPO)
    expect(run.summary).toContain(`<a href="${run.outputs['pull-request-url']}">#${pr!.number}</a>`)
    expect(run.stdout).toContain(`Pull request: ${run.outputs['pull-request-url']}`)
    expectFailureReport(w, run, {
      kind: 'pull-request',
      row: ['merge', 'timed out', `#${pr!.number}`],
      pushed: true,
      previous: 'v0.9.0',
      stays: [
        `Pull request #${pr!.number} stays open: ${run.outputs['pull-request-url']}`,
        `delete the branch coder-template-gate/${TEST}`
      ]
    })
  })

  it('sync timeout', async () => {
    const w = await newWorld({ noSync: true })
    const run = await runGate(w, { 'sync-timeout-seconds': '2' })
    expectFailureReport(w, run, {
      kind: 'sync-timeout',
      row: ['sync', 'timed out', 'did not appear in the cluster within 2 s'],
      pushed: true,
      previous: 'v0.9.0',
      commit: true,
      stays: [
        `The manifest ${GITOPS_PATH}/${TEST}.yaml stays in acme/gitops@main; remove it`,
        `No test ${NAMESPACE}/${TEST} appeared in the cluster yet`
      ]
    })
  })

  it('test failed', async () => {
    const w = await newWorld()
    w.kube.controller!.script(TEST, {
      failAt: { step: 'WaitingForAgents', reason: 'AgentStartError', message: 'exit 1.' }
    })
    const run = await runGate(w)
    const workspace = w.kube.store.get(NAMESPACE, TEST)!.status!.workspaceName!
    expect(workspace).toMatch(/^ktt-/)
    // The test workspace and its owner as the status names them, in the facts and the advice.
    expect(summaryAsText(run.summary)).toMatch(
      new RegExp(`Test workspace +${workspace}, owner [0-9a-f-]{36}`)
    )
    expect(run.summary).toContain(`startup log of the test workspace ${workspace} in Coder`)
    expect(run.stdout).toMatch(new RegExp(`Test workspace: ${workspace} \\(owner [0-9a-f-]{36}\\)`))
    expectFailureReport(w, run, {
      kind: 'test-failed',
      row: ['test', 'failed', 'The test failed: AgentStartError: exit 1'],
      pushed: true,
      previous: 'v0.9.0',
      commit: true,
      testExists: true,
      stays: [
        `The manifest ${GITOPS_PATH}/${TEST}.yaml stays in acme/gitops@main, and with it the failed test: Argo CD shows the application Degraded and Flux's health check fails until the manifest is removed`,
        'Remove the file, or set keep-tests',
        `The test ${NAMESPACE}/${TEST} stays in the cluster while its manifest is in Git`,
        `its workspace ${workspace}`
      ]
    })
  })

  it('wait timeout', async () => {
    const w = await newWorld()
    w.kube.controller!.script(TEST, { downForMs: 60_000 })
    const run = await runGate(w, { 'wait-timeout-seconds': '2' })
    expectFailureReport(w, run, {
      kind: 'wait-timeout',
      row: ['test', 'timed out', 'was not final within 2 s'],
      pushed: true,
      previous: 'v0.9.0',
      commit: true,
      testExists: true,
      stays: [`The test ${NAMESPACE}/${TEST} stays in the cluster while its manifest is in Git`]
    })
    expect(run.summary).toContain('the controller may still finish it')
  })

  it('integrity', async () => {
    const w = await newWorld()
    const other = w.coder.backend.findTemplate(OWNER, 'docker')!.activeVersionId
    w.kube.controller!.script(TEST, { overrideVersionID: other })
    const run = await runGate(w)
    expectFailureReport(w, run, {
      kind: 'integrity',
      row: ['test', 'failed', 'does not prove version v1.0.0'],
      pushed: true,
      previous: 'v0.9.0',
      commit: true,
      testExists: true,
      stays: [`Version v1.0.0 (${versionId(w, 'v1.0.0')}) stays in Coder, inactive`]
    })
  })

  it('refused', async () => {
    const w = await newWorld()
    // A version that Coder created after the one this run pushes is active: promoting is a rollback.
    w.coder.seedVersion({
      template: 'docker',
      name: 'v1.2.0',
      activate: true,
      createdAt: new Date(Date.now() + 3_600_000)
    })
    const run = await runGate(w)
    expectFailureReport(w, run, {
      kind: 'refused',
      row: ['promote', 'refused', 'v1.2.0'],
      pushed: true,
      previous: 'v1.2.0',
      commit: true,
      testExists: true,
      stays: [
        `Version v1.0.0 (${versionId(w, 'v1.0.0')}) stays in Coder, inactive`,
        `The manifest ${GITOPS_PATH}/${TEST}.yaml stays in acme/gitops@main; remove it`,
        'is deleted'
      ]
    })
  })

  it('promote failed', async () => {
    const w = await newWorld()
    w.kube.faults.promote.push({ kind: 'forbidden' } as never)
    const run = await runGate(w)
    expectFailureReport(w, run, {
      kind: 'promote-failed',
      row: ['promote', 'failed', 'codertemplates/promote'],
      pushed: true,
      previous: 'v0.9.0',
      commit: true,
      testExists: true,
      stays: [`Version v1.0.0 (${versionId(w, 'v1.0.0')}) stays in Coder, inactive`]
    })
  })

  it('cancelled', async () => {
    const w = await newWorld()
    w.kube.controller!.script(TEST, { downForMs: 60_000 })
    const cancel = whenLogged('waiting for the controller', (child) => child.kill('SIGINT'))
    const run = await runGate(w, {}, cancel)
    expect(cancel.firedAt).toBeGreaterThan(0)
    expectFailureReport(w, run, {
      kind: 'cancelled',
      row: ['test', 'cancelled', 'cancelled while the test ran (last: no status yet)'],
      pushed: true,
      previous: 'v0.9.0',
      commit: true,
      testExists: true,
      stays: [
        `Version v1.0.0 (${versionId(w, 'v1.0.0')}) stays in Coder, inactive`,
        `The test ${NAMESPACE}/${TEST} stays in the cluster`
      ]
    })
  })
})
