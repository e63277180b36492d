// The error annotation says why: a table of errorAnnotation, and how core writes it (one line).
import * as core from '@actions/core'
import { describe, expect, it } from '@jest/globals'
import {
  errorAnnotation,
  MAX_MESSAGE_BYTES,
  MAX_REASON_LINES
} from '../../../src/report/annotation.js'
import { emptyReport, type RunReport } from '../../../src/report/report.js'

/** The failure's fields as the annotation reads them; the rest of a failed run's report. */
type FailureFields = Partial<NonNullable<RunReport['failure']>>

function failedReport(fields: FailureFields): RunReport {
  const base = emptyReport(0)
  return {
    ...base,
    outcome: 'failed',
    template: { ...base.template, name: 'docker', version: { origin: 'pushed', name: 'v1.0.0' } },
    failure: { kind: 'preflight', error: '', problems: [], advice: [], ...fields }
  }
}

const PREFLIGHT = failedReport({
  error: 'The preflight found what this run cannot do: 2 checks failed.',
  problems: [
    'GitOps: a repository ruleset requires a pull request on main. Set `gitops-mode: pull-request`: the gate then opens a pull request and waits for its merge.',
    'Coder: template "docker" does not exist in organization "acme". … or set create-template: true to accept that.'
  ],
  advice: ['Grant or change what each line names, then run the job again.']
})

const lines = (report: RunReport): string[] => errorAnnotation(report).message.split('\n')

describe('errorAnnotation', () => {
  it('holds the error, each reason and what to do, under the headline as title', () => {
    const { title, message } = errorAnnotation(PREFLIGHT)
    expect(title).toBe('❌ docker v1.0.0 was not promoted')
    expect(message.split('\n')).toEqual([
      'The preflight found what this run cannot do: 2 checks failed.',
      `• ${PREFLIGHT.failure!.problems[0]}`,
      `• ${PREFLIGHT.failure!.problems[1]}`,
      '→ Grant or change what each line names, then run the job again.'
    ])
    expect(message).toContain('gitops-mode: pull-request')
    expect(message).toContain('create-template: true')
  })

  it.each<[string, FailureFields, string[]]>([
    ['no reasons: the error alone', { error: 'E.' }, ['E.']],
    ['no error: the headline', {}, ['❌ docker v1.0.0 was not promoted']],
    [
      'integrity differences',
      {
        kind: 'integrity',
        error: 'The test does not prove version v1.0.0 (id-1). Nothing was promoted.',
        problems: ['status.templateVersionID is id-0, not id-1'],
        advice: ['Set test-name, or delete the foreign test.']
      },
      [
        'The test does not prove version v1.0.0 (id-1). Nothing was promoted.',
        '• status.templateVersionID is id-0, not id-1',
        '→ Set test-name, or delete the foreign test.'
      ]
    ]
  ])('%s', (_what, fields, expected) => {
    expect(lines(failedReport(fields))).toEqual(expected)
  })

  it.each([
    // [problems, advice] → [problems shown, advice shown, left]
    [15, 1, 9, 1, 6],
    [10, 3, 8, 2, 3],
    [3, 12, 3, 7, 5],
    [9, 1, 9, 1, 0]
  ])(
    'keeps %i reasons and %i advice to %i + %i lines and counts %i more',
    (problems, advice, shownProblems, shownAdvice, left) => {
      const shown = lines(
        failedReport({
          error: 'E.',
          problems: Array.from({ length: problems }, (_, i) => `problem ${i}`),
          advice: Array.from({ length: advice }, (_, i) => `advice ${i}`)
        })
      )
      expect(shown.filter((l) => l.startsWith('• '))).toHaveLength(shownProblems)
      expect(shown.filter((l) => l.startsWith('→ '))).toHaveLength(shownAdvice)
      expect(shown.length - 1 - (left > 0 ? 1 : 0)).toBeLessThanOrEqual(MAX_REASON_LINES)
      if (left > 0) expect(shown.at(-1)).toBe(`… ${left} more in the job summary`)
      else expect(shown.some((l) => l.startsWith('…'))).toBe(false)
    }
  )

  it('stays within the byte bound, however wide the text', () => {
    const wide = failedReport({
      error: '€'.repeat(5000),
      problems: Array.from({ length: 10 }, () => '€'.repeat(5000))
    })
    const { message } = errorAnnotation(wide)
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES)
    expect(message).toMatch(/… \d+ more in the job summary$/)
  })

  it('keeps each foreign reason on one line', () => {
    const shown = lines(
      failedReport({ error: 'E.\r\n::warning::e', problems: ['a\n::error::b', 'c\rd'] })
    )
    expect(shown).toEqual(['E. ::warning::e', '• a ::error::b', '• c d'])
  })
})

describe('the annotation as core writes it', () => {
  it('is one line for the runner: newlines and % escaped, the title a property', () => {
    const written: string[] = []
    const write = process.stdout.write.bind(process.stdout)
    process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof write
    const { title, message } = errorAnnotation(
      failedReport({ error: '100% sure\r::warning::x', problems: ['a, b: c', '%0A'] })
    )
    try {
      core.error(message, { title })
    } finally {
      process.stdout.write = write
    }
    const out = written.join('')
    // One line, ended by the EOL: the runner splits at \r and \n alike.
    expect(out.replace(/\n$/, '')).not.toMatch(/[\r\n]/)
    const [, data] = /^::error title=[^:]*::(.*)\n$/.exec(out)!
    const unescaped = data!.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%')
    expect(unescaped).toBe(message)
    expect(unescaped.split('\n')).toEqual(['100% sure ::warning::x', '• a, b: c', '• %0A'])
  })
})
