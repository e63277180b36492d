// Publishing writes through the writers the wiring gives: every output, the summary, the epilogue
// and the comment; a writer that fails is a warning, and the others still write.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { outputsOf } from '../../../src/report/outputs.js'
import { type ReportWriters, publishReport } from '../../../src/report/publish.js'
import { emptyReport, type RunReport } from '../../../src/report/report.js'
import { renderComment } from '../../../src/report/comment.js'
import { renderSummary } from '../../../src/report/summary.js'

const passed: RunReport = {
  ...emptyReport(0),
  outcome: 'passed',
  template: { name: 'docker', version: { origin: 'pushed', name: 'v2', id: 'new-id' } }
}

interface Written {
  outputs: Record<string, string>
  summaries: string[]
  lines: string[]
  warnings: string[]
  comments: string[]
}

function writers(
  options: {
    outputsFail?: boolean
    summaryFails?: boolean
    commentFails?: boolean
    comment?: boolean
  } = {}
): [ReportWriters, Written] {
  const written: Written = { outputs: {}, summaries: [], lines: [], warnings: [], comments: [] }
  const log = {
    info: (text: string) => written.lines.push(text),
    warning: (text: string) => written.warnings.push(text),
    debug() {},
    group: <T>(_t: string, body: () => Promise<T>) => body()
  }
  return [
    {
      setOutput: (name, value) => {
        if (options.outputsFail) throw new Error('ENOSPC')
        written.outputs[name] = value
      },
      writeSummary: async (text) => {
        if (options.summaryFails) throw new Error('EACCES')
        written.summaries.push(text)
      },
      log,
      commenter:
        options.comment === false
          ? null
          : {
              pullRequestNumber: 3,
              upsert: async (body) => {
                if (options.commentFails) throw new Error('403 Forbidden')
                written.comments.push(body)
                return 'https://github.com/acme/t/pull/3#issuecomment-1'
              }
            },
      now: () => 1_000
    },
    written
  ]
}

// core.notice writes a workflow command to stdout: kept out of the test's output.
const write = process.stdout.write.bind(process.stdout)
beforeEach(() => {
  process.stdout.write = (() => true) as typeof write
})
afterEach(() => {
  process.stdout.write = write
})

describe('publishReport', () => {
  it('writes every output, the summary, the epilogue and the comment', async () => {
    const [given, written] = writers()
    await publishReport(passed, given)
    expect(written.outputs).toEqual(outputsOf(passed))
    expect(written.summaries).toEqual([renderSummary(passed, 1_000)])
    expect(written.lines[0]).toBe('✅ docker v2 passed its test (promotion skipped)')
    expect(written.comments).toEqual([renderComment(passed)])
    expect(written.lines.at(-1)).toBe(
      'Commented on pull request #3: https://github.com/acme/t/pull/3#issuecomment-1'
    )
    expect(written.warnings).toEqual([])
  })

  it.each([
    ['the summary', { summaryFails: true }, 'Could not write the job summary: EACCES'],
    ['the comment', { commentFails: true }, 'Could not comment on pull request #3: 403 Forbidden']
  ])('a failing write of %s is a warning; the rest is written', async (_, options, warning) => {
    const [given, written] = writers(options)
    await publishReport(passed, given)
    expect(written.warnings).toEqual([warning])
    expect(Object.keys(written.outputs)).toHaveLength(16)
    expect(written.lines[0]).toContain('passed its test')
  })

  it('a failing write of the outputs is a warning; the summary, epilogue and comment are written', async () => {
    const [given, written] = writers({ outputsFail: true })
    await publishReport(passed, given)
    expect(written.warnings).toEqual(['Could not write the step outputs: ENOSPC'])
    expect(written.summaries).toEqual([renderSummary(passed, 1_000)])
    expect(written.lines[0]).toContain('passed its test')
    expect(written.comments).toEqual([renderComment(passed)])
  })

  it('comments nowhere without a commenter', async () => {
    const [given, written] = writers({ comment: false })
    await publishReport(passed, given)
    expect(written.comments).toEqual([])
    expect(written.lines.some((line) => line.startsWith('Commented'))).toBe(false)
  })
})
