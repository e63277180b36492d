// The outputs, the job summary, the pull-request comment, the log epilogue and the annotation of
// each scenario, byte for byte: a change to any of them shows here as a snapshot difference.
import { describe, expect, it } from '@jest/globals'
import { errorAnnotation } from '../../../src/report/annotation.js'
import { buildReport } from '../../../src/report/build.js'
import { renderComment } from '../../../src/report/comment.js'
import { epilogueLines } from '../../../src/report/epilogue.js'
import { outputsOf } from '../../../src/report/outputs.js'
import { renderSummary } from '../../../src/report/summary.js'
import { ENVS, journalOf, OBSERVED, SCENARIOS } from './report-scenarios.js'

describe('the report as published, per scenario', () => {
  // One final read and one environment per scenario, in turn: each combination shows up.
  const cases = SCENARIOS.map(
    ([name, steps, crash], i) =>
      [name, steps, crash, OBSERVED[i % OBSERVED.length]!, ENVS[i % ENVS.length]!] as const
  )
  it.each(cases)('%s', async (_name, steps, crash, observed, env) => {
    const report = buildReport(await journalOf(steps, crash), { startedAt: 0, observed, ...env })
    expect({
      outputs: outputsOf(report),
      summary: renderSummary(report, 70_000),
      comment: renderComment(report),
      epilogue: epilogueLines(report),
      annotation: errorAnnotation(report)
    }).toMatchSnapshot()
  })
})
