// The Mermaid chart of the run: labels from other systems cannot break out of it.
import { describe, it, expect } from '@jest/globals'
import { ganttChart, mermaidLabel } from '../../../src/report/gantt.js'
import { renderComment } from '../../../src/report/comment.js'
import { emptyReport, type RunReport } from '../../../src/report/report.js'
import { renderSummary } from '../../../src/report/summary.js'

const HOSTILE =
  'boom: x; y\nsection evil :crit, z, 0, 1\n# %% comment --> `code` ``` </script><script>alert(1)</script> &amp;'

const T0 = Date.UTC(2026, 0, 1)

function report(overrides: Partial<RunReport> = {}): RunReport {
  const base = emptyReport(T0)
  return {
    ...base,
    test: { ...base.test, phase: 'Failed', reason: 'AgentsNotReady', message: HOSTILE },
    rows: [
      { name: 'preflight', result: 'succeeded', startedAt: T0, endedAt: T0 + 500, detail: '' },
      { name: 'push', result: 'succeeded', startedAt: T0 + 500, endedAt: T0 + 2500, detail: '' },
      { name: 'test', result: 'failed', startedAt: T0 + 3000, endedAt: T0 + 9000, detail: '' },
      { name: 'promote', result: 'not run', detail: '' }
    ],
    ...overrides
  }
}

const clock = {
  startTime: T0 + 3100,
  createAttemptTime: T0 + 3200,
  agentsReadyTime: T0 + 6000,
  completionTime: T0 + 8800
}

describe('mermaidLabel', () => {
  it.each([
    ['plain text stays', 'Running / WaitingForAgents', 'Running / WaitingForAgents'],
    ['a colon ends no label', 'a: b', 'a b'],
    ['a semicolon ends no line', 'a; b', 'a b'],
    ['a newline ends no line', 'a\nb\r\nc', 'a b c'],
    ['# starts no entity', 'a #35; b', 'a 35 b'],
    ['%% starts no comment', 'a %% b', 'a b'],
    ['backticks end no fence', 'a ``` b `c`', 'a b c'],
    ['--> is no arrow', 'a --> b', 'a - b'],
    ['no HTML', '</script><b>x</b>', '/script b x /b'],
    ['letters of any script stay', 'Größe 名前', 'Größe 名前'],
    ['empty text is said', '::;;', 'no text'],
    ['long text is cut', 'x'.repeat(100), `${'x'.repeat(59)}…`]
  ])('%s', (_name, text, expected) => {
    expect(mermaidLabel(text)).toBe(expected)
  })
})

describe('ganttChart', () => {
  it('has each step that ran and the test on the controller clock', () => {
    const chart = ganttChart(report(), clock, T0 + 10_000)
    const lines = chart.split('\n')
    expect(lines[0]).toBe('```mermaid')
    expect(lines[lines.length - 1]).toBe('```')
    expect(chart).toContain(`    preflight succeeded :done, step0, ${T0}, ${T0 + 500}`)
    expect(chart).toContain(`    test failed :crit, step2, ${T0 + 3000}, ${T0 + 9000}`)
    expect(chart).not.toContain('promote')
    expect(chart).toContain(`    Test workspace build :done, test0, ${T0 + 3100}, ${T0 + 6000}`)
    expect(chart).toMatch(
      new RegExp(
        `^    Test Failed AgentsNotReady .* :crit, test1, ${T0 + 6000}, ${T0 + 8800}$`,
        'm'
      )
    )
  })

  it('a hostile status message stays inside one label of one task line', () => {
    const chart = ganttChart(report(), clock, T0 + 10_000)
    const lines = chart.split('\n')
    // The fence opens and closes once, every line between is ours: a keyword or a task.
    expect(lines.filter((line) => line.includes('```'))).toEqual(['```mermaid', '```'])
    const body = lines.slice(1, -1)
    for (const line of body.slice(1)) {
      expect(line).toMatch(
        /^ {4}(title [\w ,]+|dateFormat x|axisFormat [%HMS:]+|section [\w ()]+|[^:;#%`<>\n]+ :(done|crit|active)?(, )?(step|test)\d+, \d+, \d+)$/
      )
    }
    expect(body.filter((line) => line.startsWith('    section'))).toHaveLength(2)
    expect(chart).not.toMatch(/<|>|%%|;|#/)
  })

  it('falls back to one test task when the agents never got ready, and to none without a start', () => {
    const one = ganttChart(report(), { ...clock, agentsReadyTime: null }, T0)
    expect(one).toMatch(new RegExp(`test0, ${T0 + 3100}, ${T0 + 8800}$`, 'm'))
    expect(ganttChart(report(), { ...clock, startTime: null }, T0)).not.toContain('section Test')
  })

  it('is empty before any step ran', () => {
    expect(ganttChart(report({ rows: [] }), null, T0)).toBe('')
  })
})

describe('the chart in the summary and the comment', () => {
  it.each([
    ['summary', (r: RunReport) => renderSummary(r, T0 + 10_000)],
    ['comment', (r: RunReport) => renderComment(r)]
  ])('the %s holds one chart beside the text', (_name, render) => {
    const base = report()
    const text = render({ ...base, test: { ...base.test, clock }, outcome: 'failed' })
    expect(text.match(/```mermaid\n/g)).toHaveLength(1)
    const chart = text.slice(
      text.indexOf('```mermaid'),
      text.indexOf('```', text.indexOf('```mermaid') + 3) + 3
    )
    expect(chart).toBe(ganttChart(report(), clock, T0 + 10_000))
  })
})
