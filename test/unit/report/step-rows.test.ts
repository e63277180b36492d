// The rows of the steps table per mode: mode: verify shows its gitops-refresh step right after the
// commit, as the gate does, and only when the step ran.
import { describe, expect, it } from '@jest/globals'
import { stepRows } from '../../../src/report/rows.js'
import { succeeded } from '../../../src/steps/step.js'
import { journalOf, type Steps, liveSteps } from './report-scenarios.js'

const refreshed = succeeded({ nudged: ['x'], warnings: [] }, 'asked 1 of 1 object(s) to reconcile')

describe('the steps table of mode: verify', () => {
  it.each<[string, Steps, string[]]>([
    ['without gitops-refresh', liveSteps(), ['preflight', 'commit', 'sync', 'test', 'verify']],
    [
      'with gitops-refresh: its row after the commit',
      [...liveSteps().slice(0, 3), ['refresh', refreshed], ...liveSteps().slice(3)],
      ['preflight', 'commit', 'refresh', 'sync', 'test', 'verify']
    ]
  ])('%s', async (_name, steps, names) => {
    const rows = stepRows(await journalOf(steps, false))
    expect(rows.map((row) => row.name)).toEqual(names)
  })
})
