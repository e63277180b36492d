import { describe, expect, it } from '@jest/globals'
import { outputsOf } from '../../src/report/outputs.js'
import { newReport, recordObservation } from '../../src/report/report.js'
import { escapeHtml, headline, renderSummary } from '../../src/report/summary.js'

describe('escapeHtml', () => {
  it('escapes markup and cuts long text', () => {
    expect(escapeHtml('<img src=x onerror="alert(1)"> & \'')).toBe(
      '&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;'
    )
    expect(escapeHtml('x'.repeat(10), 4)).toBe('xxxx…')
    expect(escapeHtml('a\n\n# heading\r\n* item')).toBe('a # heading * item')
  })
})

describe('recordObservation', () => {
  it('adds a timeline entry only when phase or reason changes', () => {
    const report = newReport(0)
    expect(
      recordObservation(report, 1, { phase: 'Pending', reason: 'Initializing', message: 'a' })
    ).toBe(true)
    expect(
      recordObservation(report, 2, { phase: 'Pending', reason: 'Initializing', message: 'b' })
    ).toBe(false)
    expect(
      recordObservation(report, 3, { phase: 'Running', reason: 'WaitingForAgents', message: 'c' })
    ).toBe(true)
    expect(report.timeline.map((e) => e.reason)).toEqual(['Initializing', 'WaitingForAgents'])
    expect(report.message).toBe('c')
  })
})

describe('renderSummary', () => {
  function failedReport() {
    const report = newReport(1_000)
    Object.assign(report, {
      outcome: 'failed',
      template: 'docker',
      organization: 'acme',
      namespace: 'coder-tests',
      versionName: 'v2',
      versionId: '11111111-1111-4111-8111-111111111111',
      testName: 'docker-v2',
      runUrl: 'https://github.com/acme/t/actions/runs/1',
      commitUrl: 'https://github.com/acme/gitops/commit/abc',
      commitSha: 'abcdef0123456789',
      error: 'The test failed: AgentStartError: <script>alert(1)</script>',
      advice: "An agent's startup script failed"
    })
    report.steps.push = { result: 'succeeded', startedAt: 1_000, endedAt: 3_500, detail: 'pushed' }
    report.steps.test = { result: 'failed', startedAt: 4_000, endedAt: 64_000, detail: '' }
    for (let i = 0; i < 100; i++)
      recordObservation(report, 5_000 + i, {
        phase: 'Running',
        reason: `R${i}`,
        message: '<b>x</b>'.repeat(500)
      })
    return report
  }

  it('renders the outcome, the steps, the links, and escapes what came from outside', () => {
    const html = renderSummary(failedReport(), 70_000)
    expect(html).toContain('❌ docker v2 was not promoted')
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).not.toContain('<script>')
    expect(html).not.toContain('<b>x</b>')
    expect(html).toContain('<a href="https://github.com/acme/gitops/commit/abc">abcdef012345</a>')
    expect(html).toContain('2.5 s')
    expect(html).toContain('1 min 0 s')
    expect(html).toContain('… 60 more …')
    expect(html).toContain('💡')
    expect(html.length).toBeLessThan(100_000)
  })

  it.each([
    ['promoted', 'Promoted', 'passed its test and was promoted'],
    ['promoted', 'AlreadyActive', 'was already active'],
    ['would-promote', 'WouldPromote', 'dry-run: would be promoted'],
    ['passed', 'Skipped', 'promotion skipped'],
    ['timed-out', '', 'timed out'],
    ['cancelled', '', 'cancelled; nothing was promoted'],
    ['invalid-input', '', 'Invalid input']
  ] as const)('headline of %s/%s', (outcome, promotionResult, text) => {
    const report = newReport(0)
    Object.assign(report, { outcome, promotionResult, template: 'docker', versionName: 'v2' })
    expect(headline(report)).toContain(text)
  })
})

describe('outputsOf', () => {
  it('sets every output of the interface as a string', () => {
    const report = newReport(0)
    expect(Object.keys(outputsOf(report)).sort()).toEqual(
      [
        'version-name',
        'version-id',
        'test-name',
        'manifest-path',
        'commit-sha',
        'phase',
        'reason',
        'message',
        'promotion-result',
        'previous-active-version-id',
        'active-version-id'
      ].sort()
    )
    expect(Object.values(outputsOf(report)).every((v) => typeof v === 'string')).toBe(true)
  })
})
