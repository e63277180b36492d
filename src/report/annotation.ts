// The error annotation: the first thing people read, on the run page and in a pull request's
// checks. It says what failed and why: the error, then the reason lines as the summary lists them
// (the failed checks, the integrity differences) and what to do (the input to set), shortened.
import type { RunReport } from './report.js'
import { headline } from './summary.js'

// A judgment, not a documented limit: GitHub shows long annotation messages cut or folded, and a
// check run's annotation message is at most 64 KB. Ten reason lines and 4 KB keep the annotation
// readable at a glance; the rest stays in the job summary and the log.
export const MAX_REASON_LINES = 10
const MAX_LINE_LENGTH = 400
export const MAX_MESSAGE_BYTES = 4096
/** Slots kept for what to do when the reasons are many: the fix must not be cut off. */
const ADVICE_SLOTS = 2

export interface Annotation {
  title: string
  message: string
}

/** The error annotation of a failed run (not of invalid inputs, which get one per input). Pure. */
export function errorAnnotation(report: RunReport): Annotation {
  const title = headline(report)
  const { error, problems: reasons = [], advice: next = [] } = report.failure ?? {}
  const problems = reasons.map((line) => `• ${oneLine(line)}`)
  const advice = next.map((line) => `→ ${oneLine(line)}`)
  const adviceShown = Math.min(
    advice.length,
    Math.max(ADVICE_SLOTS, MAX_REASON_LINES - problems.length)
  )
  const problemsShown = Math.min(problems.length, MAX_REASON_LINES - adviceShown)
  const lines = [
    oneLine(error || title),
    ...problems.slice(0, problemsShown),
    ...advice.slice(0, adviceShown)
  ]
  const left = problems.length - problemsShown + (advice.length - adviceShown)
  return { title, message: fitBytes(lines, left) }
}

/** Foreign text stays one line: a reason never looks like a second reason or a header. */
function oneLine(text: string): string {
  const flat = text.replace(/\s*[\r\n]+\s*/g, ' ').trim()
  return flat.length > MAX_LINE_LENGTH ? `${flat.slice(0, MAX_LINE_LENGTH - 1)}…` : flat
}

/** The lines joined, the last ones dropped until the message fits, with a count of what was left. */
function fitBytes(lines: string[], left: number): string {
  const shown = [...lines]
  let omitted = left
  const render = (): string =>
    [...shown, ...(omitted > 0 ? [`… ${omitted} more in the job summary`] : [])].join('\n')
  while (shown.length > 1 && Buffer.byteLength(render()) > MAX_MESSAGE_BYTES) {
    shown.pop()
    omitted++
  }
  return render()
}
