// End to end, the issue "Safe in a real organization": the preflight before any side effect, the
// promotion guard against other writers and re-runs of old releases, variables off the command
// line, YAML 1.1 readers and text from other systems that must never become a workflow command.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import YAML from 'yaml'
import { GITOPS_PATH, GITOPS_REPO, OWNER, type World } from '../sandbox/world.js'
import { expectNoSecrets } from './expect.js'
import { activeVersionName, promoteRequests } from './world-reads.js'
import { oneWorldPerTest, whenLogged } from './world-per-test.js'
import { commandsTheRunnerRuns } from './runner-log.js'

const newWorld = oneWorldPerTest()

/** No side effect: no version pushed, nothing written to Git, no promote. */
function expectNothingChanged(w: World, versionsBefore: number): void {
  expect(w.coder.backend.listVersions(OWNER, 'docker')).toHaveLength(versionsBefore)
  expect(w.coder.cliInvocations).toHaveLength(0)
  expect(w.github.requests.filter((r) => r.method !== 'GET')).toHaveLength(0)
  expect(w.kube.requests.filter((r) => r.path.includes('/promote'))).toHaveLength(0)
}

describe('preflight, end to end', () => {
  it('lists every failed check at once and pushes nothing', async () => {
    const w = await newWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    w.kube.rbac.deny({
      verb: 'create',
      group: 'aggregation.coder.com',
      resource: 'codertemplates',
      subresource: 'promote',
      name: 'acme.docker'
    })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    expect(run.summary).toContain('3 checks failed')
    expect(run.stdout).toContain('template "docker" does not exist')
    expect(run.stdout).toContain('set create-template: true')
    expect(run.stdout).toMatch(
      /ruleset "[^"]*" \(id \d+\) refuses direct commits to main \(rule pull_request\)/
    )
    expect(run.stdout).toContain('gitops-mode: pull-request')
    expect(run.stdout).toMatch(/create codertemplates\/promote.* "acme\.docker" .*is denied/)
    expect(run.stdout).toContain('config/rbac/gate-role.yaml')
    expect(run.outputs['promotion-result']).toBe('')
    expectNothingChanged(w, 0)
    expectNoSecrets(w, run)
  })

  it('fails on a bad gitops-token before the push', async () => {
    const w = await newWorld.withDocker()
    const run = await w.run({ 'gitops-token': 'ghs_not_a_real_token_000' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('gitops-token was refused (401)')
    const shown = run.everything.split('\n').filter((line) => !line.startsWith('::add-mask::'))
    expect(shown.join('\n')).not.toContain('ghs_not_a_real_token_000')
    expectNothingChanged(w, 1)
  })

  it("asks the access review for Coder's spelling of the template, as RBAC names it", async () => {
    const w = await newWorld.withDocker()
    const run = await w.run({ template: 'Docker' })
    expect(run.exitCode).toBe(0)
    expect(w.kube.accessReviews.some((r) => JSON.stringify(r).includes('"acme.docker"'))).toBe(true)
    expect(run.outputs['promotion-result']).toBe('Promoted')
  })

  it('fails on a missing GitOps branch before the push', async () => {
    const w = await newWorld.withDocker()
    const run = await w.run({ 'gitops-branch': 'release' })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain('the branch "release" does not exist')
    expectNothingChanged(w, 1)
  })

  it('with create-template: true, creates the template and says the first version went live untested', async () => {
    const w = await newWorld()
    const run = await w.run({ 'create-template': 'true' })
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toMatch(/::warning::.*create-template is true.*goes live untested/)
    expect(run.summary).toMatch(/untested/)
    expect(run.outputs['previous-active-version-id']).toBe('')
    expect(activeVersionName(w)).toBe('v1.0.0')
    expectNoSecrets(w, run)
  })
})

describe('promotion guard, end to end', () => {
  it('refuses the re-run of an old release after a newer one, and promotes it with allow-rollback', async () => {
    const w = await newWorld.withDocker()
    const old = await w.run()
    expect(old.outputs['promotion-result']).toBe('Promoted')
    const newer = await w.run({}, { ref: 'refs/tags/v1.1.0', sha: 'b'.repeat(40) })
    expect(newer.outputs['promotion-result']).toBe('Promoted')
    const newerId = newer.outputs['version-id']!
    // "Re-run jobs" of the v1.0.0 run.
    const rerun = await w.run({}, { runId: '4243' })
    expect(rerun.exitCode).toBe(1)
    expect(rerun.outputs['promotion-result']).toBe('Refused')
    expect(rerun.stdout).toContain(`would roll back v1.1.0 (${newerId})`)
    expect(rerun.stdout).toContain('allow-rollback: true')
    expect(rerun.outputs['active-version-id']).toBe(newerId)
    expect(activeVersionName(w)).toBe('v1.1.0')
    const rollback = await w.run({ 'allow-rollback': 'true' }, { runId: '4244' })
    expect(rollback.exitCode).toBe(0)
    expect(rollback.outputs['promotion-result']).toBe('Promoted')
    expect(activeVersionName(w)).toBe('v1.0.0')
    expectNoSecrets(w, rerun)
  })

  it('refuses when another run promoted a version while this one waited: the newer wins', async () => {
    const w = await newWorld.withDocker()
    // The older run's test is held until the newer run, started while the older one waits, ends.
    let newer: Promise<Awaited<ReturnType<World['run']>>> | null = null
    let newerEnded = (): void => undefined
    const held = new Promise<void>((resolve) => (newerEnded = resolve))
    w.kube.controller!.script('docker-v1-0-0', { holdUntil: held })
    const startNewer = whenLogged('waiting for the controller', () => {
      newer = w.run({}, { ref: 'refs/tags/v1.1.0', sha: 'c'.repeat(40), runId: '5000' })
      void newer.finally(newerEnded)
    })
    const older = await w.run({}, {}, startNewer)
    expect(newer).not.toBeNull()
    const newerRun = await newer!
    expect(newerRun.outputs['promotion-result']).toBe('Promoted')
    expect(older.exitCode).toBe(1)
    expect(older.outputs['promotion-result']).toBe('Refused')
    expect(older.stdout).toContain('Another writer changed the active version during this run')
    expect(older.stdout).toContain(`v1.1.0 (${newerRun.outputs['version-id']})`)
    expect(older.summary).toContain('Refused')
    expect(activeVersionName(w)).toBe('v1.1.0')
    expect(promoteRequests(w)).toBe(1)
  })

  it('applies the guard in dry-run too', async () => {
    const w = await newWorld.withDocker()
    await w.run({}, { ref: 'refs/tags/v1.1.0', sha: 'd'.repeat(40) })
    // A version that Coder created after the one this run pushes.
    w.coder.seedVersion({
      template: 'docker',
      name: 'v1.2.0',
      activate: true,
      createdAt: new Date(Date.now() + 3_600_000)
    })
    const run = await w.run({ promote: 'dry-run' })
    expect(run.outputs['promotion-result']).toBe('Refused')
    expect(activeVersionName(w)).toBe('v1.2.0')
  })
})

describe('what the gate hands on, end to end', () => {
  it('passes variables only in a 0600 file that is gone afterwards, never in argv', async () => {
    const w = await newWorld.withDocker()
    mkdirSync(path.join(w.workspace, 'vars'), { recursive: true })
    writeFileSync(path.join(w.workspace, 'vars/prod.yaml'), 'region: eu-west\nsize: "small"\n')
    const run = await w.run({
      'variables-file': 'vars/prod.yaml',
      variables: 'size=large-secret-size\napi_key=k3y-v4lue-never-shown'
    })
    expect(run.exitCode).toBe(0)
    const push = w.coder.cliInvocations.find((i) => i.argv.includes('push'))!
    expect(push.argv.join(' ')).not.toMatch(/large-secret-size|k3y-v4lue|eu-west|--variable /)
    expect(push.variablesFile?.mode).toBe('600')
    expect(existsSync(push.variablesFile!.path)).toBe(false)
    expect(push.variables).toEqual(
      expect.arrayContaining([
        { name: 'region', value: 'eu-west' },
        { name: 'size', value: 'large-secret-size' },
        { name: 'api_key', value: 'k3y-v4lue-never-shown' }
      ])
    )
    const shown = run.everything.split('\n').filter((line) => !line.startsWith('::add-mask::'))
    expect(shown.join('\n')).not.toContain('k3y-v4lue-never-shown')
    expect(run.stdout).toContain('::add-mask::k3y-v4lue-never-shown')
  })

  it('writes a parameter value "yes" that a YAML 1.1 reader still reads as a string', async () => {
    const w = await newWorld.withDocker()
    const run = await w.run({ 'test-parameters': 'gpu=yes\nreplicas=1_000\nmode=off' })
    expect(run.exitCode).toBe(0)
    const text = w.github.readFile(OWNER, GITOPS_REPO, 'main', `${GITOPS_PATH}/docker-v1-0-0.yaml`)!
    expect(YAML.parse(text, { version: '1.1' }).spec.parameters).toEqual([
      { name: 'gpu', value: 'yes' },
      { name: 'replicas', value: '1_000' },
      { name: 'mode', value: 'off' }
    ])
  })

  it('never lets a status message run as a workflow command, and escapes it in the summary', async () => {
    const w = await newWorld.withDocker()
    w.kube.controller!.script('docker-v1-0-0', {
      failAt: {
        step: 'WaitingForAgents',
        reason: 'AgentStartError',
        message: 'boom\n::add-mask::x\n::warning::pwned\n<img src=x onerror=alert(1)>'
      }
    })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    const commands = commandsTheRunnerRuns(run.stdout)
    // In an annotation the text is escaped (%0A): data, not a command of its own.
    expect(commands.some((l) => l.startsWith('::warning::pwned'))).toBe(false)
    expect(commands).not.toContain('::add-mask::x')
    // The text is still in the log, for people: inside a stop-commands block.
    expect(run.stdout).toContain('::warning::pwned')
    expect(run.summary).not.toContain('<img src=x')
    expect(run.summary).toContain('&lt;img src=x')
    expect(promoteRequests(w)).toBe(0)
  })
})

/** The reader before: `::` only at the very start of a `\n` line. Each row below slipped past it. */
function commandsTheOldReaderSaw(stdout: string): string[] {
  let stopped: string | null = null
  const commands: string[] = []
  for (const line of stdout.split('\n')) {
    if (stopped) {
      if (line === `::${stopped}::`) stopped = null
      continue
    }
    const start = /^::stop-commands::(.+)$/.exec(line)
    if (start) stopped = start[1]!
    else if (line.startsWith('::')) commands.push(line)
  }
  return commands
}

describe('commandsTheRunnerRuns reads the log as the runner does', () => {
  it.each([
    ['a command after leading blanks', 'ok\n  \t::warning::x\n', ['::warning::x']],
    ['a command after a lone \\r', 'progress 10%\r::warning::x\n', ['::warning::x']],
    [
      'a command after a stop block with \\r\\n line ends',
      '::stop-commands::T1\r\n::error::data\r\n::T1::\r\n::warning::after\r\n',
      ['::warning::after']
    ],
    [
      'a stop block that resumes with another case',
      '::stop-commands::abc\n::error::data\n::ABC::\n::warning::after\n',
      ['::warning::after']
    ],
    ['a stop block after a blank', ' ::stop-commands::T2\n::error::data\n::T2::\n', []],
    ['the legacy form inside a line', 'commit: fix ##[warning]x\n', ['##[warning]x']]
  ])('%s', (_what, log, expected) => {
    expect(commandsTheRunnerRuns(log)).toEqual(expected)
    expect(commandsTheOldReaderSaw(log)).not.toEqual(expected)
  })

  it('still reads what the old reader read', () => {
    const log = 'plain\n::group::g\n::stop-commands::T\n::error::no\n::T::\n::endgroup::\n'
    expect(commandsTheRunnerRuns(log)).toEqual(['::group::g', '::endgroup::'])
    expect(commandsTheOldReaderSaw(log)).toEqual(['::group::g', '::endgroup::'])
  })
})
