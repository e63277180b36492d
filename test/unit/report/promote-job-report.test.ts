// The report of a promote job (mode: promote): its rows, outputs and summary come from the locate
// step in place of the push and the commit.
import { describe, expect, it } from '@jest/globals'
import { buildReport } from '../../../src/report/build.js'
import { outputsOf } from '../../../src/report/outputs.js'
import { renderSummary } from '../../../src/report/summary.js'
import { Journal, type StepName, type StepValues } from '../../../src/steps/journal.js'
import { cancelled, failed, type StepResult, succeeded } from '../../../src/steps/step.js'

const silent = {
  info() {},
  warning() {},
  debug() {},
  group: <T>(_t: string, b: () => Promise<T>) => b()
}

const values = {
  inputs: {
    settings: {
      coder: {
        template: 'docker',
        organization: '',
        version: 'v2',
        url: 'https://coder.example.com'
      },
      test: { namespace: 'coder-tests', name: 'docker-v2' },
      gitops: { path: 'tests', delivery: 'commit', owner: 'acme', repo: 'gitops', branch: '' },
      promote: 'promote',
      mode: 'promote',
      runUrl: 'https://github.com/acme/t/actions/runs/1'
    },
    context: { serverUrl: 'https://github.com', repository: 'acme/t', runId: '1', runAttempt: '1' }
  },
  preflight: {
    organization: 'acme',
    template: 'docker',
    templateExists: true,
    startingActive: { id: 'now-id', name: 'v1', createdAt: '' },
    branch: 'main'
  },
  locate: {
    versionId: 'new-id',
    versionName: 'v2',
    createdAt: '',
    template: 'docker',
    manifest: {},
    manifestPath: 'tests/docker-v2.yaml',
    branch: 'main',
    commitSha: 'abcdef0123456789abcdef0123456789abcdef01',
    commitUrl: 'https://github.com/acme/gitops/commit/abcdef0123456789abcdef0123456789abcdef01',
    starting: { id: 'expected-id', name: 'v1', createdAt: '' }
  },
  wait: {
    syncedAt: 3_000,
    timeline: [],
    last: { phase: 'Succeeded', reason: 'Succeeded', message: 'ok' },
    notFoundSeen: false,
    workspace: null,
    test: {},
    versionId: 'new-id'
  },
  promote: { result: 'Promoted', confirmedBy: 'answer' }
} as unknown as StepValues

async function promoteJobJournal(
  failures: Partial<Record<StepName, StepResult<never>>> = {}
): Promise<Journal> {
  let clock = 1_000
  const journal = new Journal({
    signal: new AbortController().signal,
    log: silent,
    now: () => (clock += 1_000)
  })
  try {
    for (const name of ['inputs', 'preflight', 'locate', 'wait', 'promote'] as const) {
      const result = failures[name] ?? succeeded(values[name], `${name} done`)
      await journal.run(name, async () => result as never)
    }
  } catch (error) {
    journal.stopped(error)
  }
  return journal
}

const observed = { id: 'new-id', name: 'v2', createdAt: '' }

describe('the report of a promote job', () => {
  it('rows without push and commit, outputs from the locate step, a summary that says so', async () => {
    const report = buildReport(await promoteJobJournal(), { startedAt: 0, observed })
    expect(report.outcome).toBe('promoted')
    expect(report.rows.map((r) => `${r.name}:${r.result}`)).toEqual([
      'preflight:succeeded',
      'locate:succeeded',
      'sync:succeeded',
      'test:succeeded',
      'promote:succeeded'
    ])
    expect(outputsOf(report)).toMatchObject({
      'version-name': 'v2',
      'version-id': 'new-id',
      'commit-sha': 'abcdef0123456789abcdef0123456789abcdef01',
      // The active version when this job started, not expected-active-version-id.
      'previous-active-version-id': 'now-id',
      'promotion-result': 'Promoted'
    })
    expect(renderSummary(report, 10_000)).toContain('Promote job (<code>mode: promote</code>)')
  })

  it('a failed locate: nothing after it ran, and nothing stays behind', async () => {
    const report = buildReport(
      await promoteJobJournal({ locate: failed('locate', 'Coder holds no version "v2".') }),
      { startedAt: 0, observed: { id: 'now-id', name: 'v1', createdAt: '' } }
    )
    expect(report.outcome).toBe('failed')
    expect(report.failure?.kind).toBe('locate')
    expect(report.rows.map((r) => `${r.name}:${r.result}`)).toEqual([
      'preflight:succeeded',
      'locate:failed',
      'sync:not run',
      'test:not run',
      'promote:not run'
    ])
    expect(outputsOf(report)['promotion-result']).toBe('')
    expect(report.leftBehind).toEqual([
      'Nothing: the run changed nothing in Coder, Git or the cluster.'
    ])
  })

  // The promote request was sent: the located version may be active, though this job pushed nothing.
  it.each([
    [
      'cancelled after the request',
      cancelled('The run was cancelled.', { requestSent: true }),
      { id: 'now-id', name: 'v1', createdAt: '' },
      'sent before the cancel'
    ],
    [
      'promote failed after the request',
      failed('promote-failed', 'No clear answer.', { facts: { requestSent: true } }),
      null,
      'could not be read afterwards'
    ]
  ])('%s: says the version may be active', async (_, promote, seen, why) => {
    const journal = await promoteJobJournal({ promote: promote as StepResult<never> })
    const report = buildReport(journal, { startedAt: 0, observed: seen })
    expect(report.leftBehind.join('\n')).toContain('Version v2 (new-id) may be active')
    expect(report.leftBehind.join('\n')).toContain(why)
  })
})
