// test-results and the per-preset rows: the output's JSON, the summary's and the comment's table,
// and one chart bar per test. Foreign text (a preset name) stays data in every one of them.
import { describe, expect, it } from '@jest/globals'
import { renderComment } from '../../../src/report/comment.js'
import { ganttChart } from '../../../src/report/gantt.js'
import { outputsOf } from '../../../src/report/outputs.js'
import { emptyReport, type RunReport, type TestResultPart } from '../../../src/report/report.js'
import { renderSummary } from '../../../src/report/summary.js'
import { presetRows, testResultsJson } from '../../../src/report/test-results.js'

const T0 = Date.UTC(2026, 0, 1)
const ID = '11111111-1111-4111-8111-111111111111'
const HOSTILE = 'Big | GPU <script>x</script>: `a`'

const small: TestResultPart = {
  name: 'docker-v2-small',
  preset: 'small',
  phase: 'Succeeded',
  reason: 'Succeeded',
  versionId: ID,
  seenAt: T0 + 1000,
  finalAt: T0 + 5000,
  timeline: []
}
const large: TestResultPart = {
  name: 'docker-v2-big-gpu',
  preset: HOSTILE,
  phase: 'Failed',
  reason: 'AgentStartError',
  seenAt: T0 + 1200,
  timeline: []
}

function report(tests: TestResultPart[]): RunReport {
  return {
    ...emptyReport(T0),
    outcome: 'failed',
    tests,
    rows: [{ name: 'push', result: 'succeeded', startedAt: T0, endedAt: T0 + 500, detail: '' }]
  }
}

describe('test-results', () => {
  it.each<[string, TestResultPart[], unknown[]]>([
    ['no test committed', [], []],
    [
      'the default test, unknowns as ""',
      [{ name: 'docker-v2', preset: '', timeline: [] }],
      [{ name: 'docker-v2', preset: '', phase: '', reason: '', versionId: '' }]
    ],
    [
      'one entry per preset, in order',
      [small, large],
      [
        {
          name: 'docker-v2-small',
          preset: 'small',
          phase: 'Succeeded',
          reason: 'Succeeded',
          versionId: ID
        },
        {
          name: 'docker-v2-big-gpu',
          preset: HOSTILE,
          phase: 'Failed',
          reason: 'AgentStartError',
          versionId: ''
        }
      ]
    ]
  ])('%s', (_, tests, expected) => {
    expect(JSON.parse(testResultsJson(tests))).toEqual(expected)
    expect(outputsOf(report(tests))['test-results']).toBe(testResultsJson(tests))
  })
})

describe('presetRows', () => {
  it.each<[string, TestResultPart[], string[][]]>([
    [
      'no preset: no rows (the one test has its own section)',
      [{ name: 'docker-v2', preset: '', timeline: [] }],
      []
    ],
    [
      'one row per preset: preset, test, phase, reason',
      [small, { name: 'docker-v2-xl', preset: 'xl', timeline: [] }],
      [
        ['small', 'docker-v2-small', 'Succeeded', 'Succeeded'],
        ['xl', 'docker-v2-xl', '–', '–']
      ]
    ]
  ])('%s', (_, tests, rows) => {
    expect(presetRows(tests)).toEqual(rows)
  })

  it('the summary and the comment show the rows, the preset name escaped', () => {
    const r = report([small, large])
    const summary = renderSummary(r, T0 + 9000)
    expect(summary).toContain('<tr><th>Preset</th><th>Test</th><th>Phase</th><th>Reason</th></tr>')
    expect(summary).toContain(
      '<td>small</td><td>docker-v2-small</td><td>Succeeded</td><td>Succeeded</td>'
    )
    expect(summary).not.toContain('<script>')
    const comment = renderComment(r)
    expect(comment).toContain('| Preset | Test | Phase | Reason |')
    expect(comment).toContain('| small | docker-v2-small | Succeeded | Succeeded |')
    expect(comment).not.toContain('<script>')
    expect(comment).not.toContain('Big | GPU')
  })
})

describe('the chart with several tests', () => {
  it('has one bar per test, on the runner clock, foreign text as a plain label', () => {
    const chart = ganttChart(report([small, large]), null, T0 + 9000)
    expect(chart).toContain('section Tests (one per preset)')
    expect(chart).toContain(
      `    small Succeeded Succeeded :done, preset0, ${T0 + 1000}, ${T0 + 5000}`
    )
    // Not final: the bar runs to now.
    expect(chart).toContain(
      `    Big GPU script x /script a Failed AgentStartError :crit, preset1, ${T0 + 1200}, ${T0 + 9000}`
    )
  })

  it('has no test section of its own for one test (the controller clock draws it)', () => {
    expect(ganttChart(report([small]), null, T0 + 9000)).not.toContain('one per preset')
  })
})
