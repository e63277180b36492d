// The report is built from the journal of step results: each path through the run gives its
// outcome, rows, outputs and advice, and every text from outside is escaped in the summary.
import { describe, expect, it } from '@jest/globals'
import { buildReport } from '../../src/report/build.js'
import { escapeMarkdown, renderComment } from '../../src/report/comment.js'
import { epilogueLines } from '../../src/report/epilogue.js'
import { outputsOf } from '../../src/report/outputs.js'
import { emptyReport, type RunReport } from '../../src/report/report.js'
import { escapeHtml, headline, renderSummary } from '../../src/report/summary.js'
import { Journal, type StepName, type StepValues } from '../../src/steps/journal.js'
import { cancelled, failed, skipped, type StepResult, succeeded } from '../../src/steps/step.js'

const silent = {
  info() {},
  warning() {},
  debug() {},
  group: <T>(_t: string, b: () => Promise<T>) => b()
}

const settings = {
  coder: { template: 'docker', organization: '', version: 'v2' },
  test: { namespace: 'coder-tests', name: 'docker-v2' },
  gitops: { path: 'tests', mode: 'commit' },
  promote: 'promote',
  runUrl: 'https://github.com/acme/t/actions/runs/1'
}
const values = {
  inputs: { settings },
  preflight: {
    organization: 'acme',
    template: 'docker',
    templateExists: true,
    startingActive: { id: 'old-id', name: 'v1', createdAt: '2026-12-01T00:00:00Z' },
    branch: 'main'
  },
  push: {
    versionId: 'new-id',
    versionName: 'v2',
    createdAt: '2026-12-02T00:00:00Z',
    template: 'docker',
    createdTemplate: false,
    reused: false
  },
  commit: {
    manifest: {},
    manifestPath: 'tests/docker-v2.yaml',
    branch: 'main',
    commitSha: 'abcdef0123456789',
    commitUrl: 'https://github.com/acme/gitops/commit/abc',
    pruned: ['tests/docker-v0.yaml']
  },
  wait: {
    syncedAt: 5_000,
    timeline: [{ at: 6_000, phase: 'Succeeded', reason: 'AgentsReady', message: 'ok' }],
    last: { phase: 'Succeeded', reason: 'AgentsReady', message: 'ok' },
    notFoundSeen: true,
    test: {},
    versionId: 'new-id'
  },
  promote: { result: 'Promoted', confirmedBy: 'answer' }
} as unknown as StepValues

type Outcomes = Partial<{
  [K in StepName]: StepResult<StepValues[K], never> | StepResult<never, unknown>
}>

/** A journal in which every step up to the first failure succeeded with `values`. */
async function journalOf(results: Outcomes): Promise<Journal> {
  let clock = 1_000
  const journal = new Journal({
    signal: new AbortController().signal,
    log: silent,
    now: () => (clock += 1_000)
  })
  const order: StepName[] = ['inputs', 'preflight', 'push', 'commit', 'wait', 'promote']
  try {
    for (const name of order) {
      const result = results[name] ?? succeeded(values[name], `${name} done`)
      await journal.run(name, async () => result as never)
    }
  } catch (error) {
    journal.stopped(error)
  }
  return journal
}

const observed = { id: 'new-id', name: 'v2', createdAt: '2026-12-02T00:00:00Z' }
const build = (journal: Journal, active = observed): RunReport =>
  buildReport(journal, {
    startedAt: 0,
    observed: active,
    actionRepository: 'acme/coder-template-gate',
    actionRef: 'v1'
  })

describe('buildReport', () => {
  it('a promoted run: outcome, facts, rows and outputs from the steps and the observed version', async () => {
    const report = build(await journalOf({}))
    expect(report.outcome).toBe('promoted')
    expect(report.rows.map((r) => `${r.name}:${r.result}`)).toEqual([
      'preflight:succeeded',
      'push:succeeded',
      'commit:succeeded',
      'sync:succeeded',
      'test:succeeded',
      'promote:succeeded'
    ])
    expect(report.rows.find((r) => r.name === 'test')).toMatchObject({ startedAt: 5_000 })
    expect(outputsOf(report)).toMatchObject({
      'version-id': 'new-id',
      'previous-active-version-id': 'old-id',
      'active-version-id': 'new-id',
      'promotion-result': 'Promoted',
      'manifest-path': 'tests/docker-v2.yaml',
      'pruned-manifests': 'tests/docker-v0.yaml',
      phase: 'Succeeded'
    })
    expect(report.leftBehind).toEqual([])
  })

  it('active-version-id is what Coder said at the end, not what the run expected', async () => {
    const report = build(await journalOf({}), { id: 'someone-else', name: 'v9', createdAt: '' })
    expect(outputsOf(report)['active-version-id']).toBe('someone-else')
    const unread = buildReport(await journalOf({}), { startedAt: 0, observed: null })
    expect(outputsOf(unread)['active-version-id']).toBe('')
  })

  it.each([
    [
      'invalid input',
      { inputs: failed('invalid-input', '2 inputs are invalid', { problems: ['a', 'b'] }) },
      'invalid-input',
      'not run'
    ],
    [
      'a failed preflight',
      { preflight: failed('preflight', 'checks failed', { problems: ['x'] }) },
      'failed',
      'not run'
    ],
    ['a failed push', { push: failed('push', 'push failed') }, 'failed', 'not run'],
    [
      'a sync timeout',
      {
        wait: failed('sync-timeout', 'no test', {
          status: 'timed out',
          facts: { syncedAt: null, timeline: [], last: null, notFoundSeen: true }
        })
      },
      'timed-out',
      'timed out'
    ],
    [
      'a failed test',
      {
        wait: failed('test-failed', 'AgentStartError', {
          facts: {
            syncedAt: 5_000,
            timeline: [],
            last: { phase: 'Failed', reason: 'AgentStartError', message: 'm' },
            notFoundSeen: false
          }
        })
      },
      'failed',
      'succeeded'
    ],
    [
      'a refusal',
      {
        promote: failed('refused', 'would roll back', {
          status: 'refused',
          facts: { requestSent: false }
        })
      },
      'refused',
      'succeeded'
    ],
    ['a cancel', { wait: cancelled('cancelled') }, 'cancelled', 'cancelled']
  ] as const)('%s', async (_name, results, outcome, syncRow) => {
    const report = build(await journalOf(results as Outcomes))
    expect(report.outcome).toBe(outcome)
    const failure = Object.values(results)[0] as { failure: { kind: string } }
    expect(report.failureKind).toBe(failure.failure.kind)
    expect(report.troubleshootingUrl).toBe(
      `https://github.com/acme/coder-template-gate/blob/v1/docs/troubleshooting.md#${failure.failure.kind}`
    )
    if (outcome !== 'invalid-input')
      expect(report.rows.find((r) => r.name === 'sync')?.result).toBe(syncRow)
  })

  it('a refusal says Refused, and what stays behind', async () => {
    const report = build(
      await journalOf({
        promote: failed('refused', 'would roll back', {
          status: 'refused',
          facts: { requestSent: false }
        })
      }),
      { id: 'old-id', name: 'v1', createdAt: '' }
    )
    expect(report.promotionResult).toBe('Refused')
    expect(headline(report)).toContain('refused')
    expect(report.leftBehind.join('\n')).toContain('Version v2 (new-id) stays in Coder, inactive')
    expect(report.leftBehind.join('\n')).toContain(
      'kubectl -n coder-tests get codertemplatetest docker-v2 -o yaml'
    )
  })

  it('a cancel after a promote request says the outcome is unknown', async () => {
    const report = build(
      await journalOf({
        promote: failed('cancelled', 'x', { status: 'cancelled', facts: { requestSent: true } })
      })
    )
    expect(report.error).toContain('may or may not be active')
  })

  it('skipped promotion is passed; a dry-run is would-promote', async () => {
    expect(
      build(
        await journalOf({
          promote: skipped({ result: 'Skipped', confirmedBy: '' }, 'promote: false')
        })
      ).outcome
    ).toBe('passed')
    expect(
      build(
        await journalOf({
          promote: succeeded({ result: 'WouldPromote', confirmedBy: 'answer' }, 'x')
        })
      ).outcome
    ).toBe('would-promote')
  })

  it('an error outside any step is a failure, not a success', async () => {
    const journal = await journalOf({})
    journal.stopped(new Error('boom'))
    expect(build(journal).outcome).toBe('failed')
  })
})

describe('renderSummary', () => {
  it('escapes what came from outside and keeps one line', async () => {
    const report = build(
      await journalOf({
        wait: failed('test-failed', 'The test failed: <script>alert(1)</script>', {
          advice: ['<b>x</b>'],
          facts: { syncedAt: 5_000, timeline: [], last: null, notFoundSeen: false }
        })
      })
    )
    const html = renderSummary(report, 70_000)
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).not.toContain('<script>')
    expect(html).not.toContain('<b>x</b>')
    expect(html).toContain('<tr><td>test</td><td>failed</td>')
    expect(html).toContain('What stays behind')
    expect(html).toContain('docs/troubleshooting.md#test-failed')
  })
  it('escapeHtml cuts long text and blank lines', () => {
    expect(escapeHtml('x'.repeat(10), 4)).toBe('xxxx…')
    expect(escapeHtml('a\n\n# heading\r\n* item')).toBe('a # heading * item')
  })
})

describe('the pull-request comment and the log epilogue', () => {
  it('neutralises Markdown, mentions and links from other systems', () => {
    expect(escapeMarkdown('[x](https://evil) @org/team `code` <img>')).not.toMatch(/[[\]()@`<>]/)
    const report = {
      ...emptyReport(0),
      outcome: 'failed' as const,
      error: 'ping @everyone [here](https://evil)'
    }
    const body = renderComment(report)
    expect(body).not.toContain('@everyone')
    expect(body).not.toContain('](https://evil)')
  })
  it('the epilogue lists the error, the advice and what stays behind', () => {
    const report = {
      ...emptyReport(0),
      outcome: 'failed' as const,
      error: 'E',
      advice: ['A'],
      leftBehind: ['L']
    }
    expect(epilogueLines(report)).toEqual(expect.arrayContaining(['E', '  - A', '  - L']))
  })
})
