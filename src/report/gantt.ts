// The run as a Mermaid gantt chart, for the job summary and the pull-request comment: each step
// from the journal's start and end, then the test's milestones on the controller's own clock
// (its status times). It sits beside the text timeline, which stays for screen readers. Pure.
// One axis for two clocks: a skew between the runner and the cluster shifts the test's section.
import type { ControllerClock } from '../kube/controller-clock.js'
import type { RunReport, StepRow } from './report.js'

const LABEL_MAX = 60

/**
 * Foreign text as a gantt label: only letters, digits and a few plain signs stay, so that no
 * `:` `;` `#` `%%` newline, backtick or `<` can end the label, the line, the chart or its fence.
 */
export function mermaidLabel(text: string, max = LABEL_MAX): string {
  const plain = text
    .replace(/[^\p{L}\p{N} _.,()/+=?!'-]/gu, ' ')
    .replace(/-{2,}/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
  const cut = plain.length > max ? `${plain.slice(0, max - 1).trimEnd()}…` : plain
  return cut || 'no text'
}

interface Task {
  label: string
  tag: 'done' | 'crit' | 'active' | ''
  start: number
  end: number
}

function stepTask(row: StepRow, now: number): Task | null {
  if (row.startedAt === undefined) return null
  const failedRow = ['failed', 'timed out', 'refused', 'cancelled'].includes(row.result)
  return {
    label: `${row.name} ${row.result}`,
    tag: failedRow ? 'crit' : row.result === 'succeeded' ? 'done' : '',
    start: row.startedAt,
    end: row.endedAt ?? now
  }
}

/** The controller's milestones: started → agents ready → final. */
function testTasks(clock: ControllerClock | null, test: RunReport['test']): Task[] {
  if (!clock || clock.startTime === null) return []
  const end = clock.completionTime
  const final = end !== null
  const outcome = mermaidLabel(
    [test.phase, test.reason, test.message].filter(Boolean).join(' '),
    LABEL_MAX
  )
  const tag = test.phase === 'Failed' ? 'crit' : final ? 'done' : 'active'
  const ready = clock.agentsReadyTime
  if (ready === null || ready < clock.startTime) {
    return [{ label: `Test ${outcome}`, tag, start: clock.startTime, end: end ?? clock.startTime }]
  }
  const tasks: Task[] = [
    { label: 'Test workspace build', tag: 'done', start: clock.startTime, end: ready }
  ]
  if (final) tasks.push({ label: `Test ${outcome}`, tag, start: ready, end })
  return tasks
}

/** Several tests (test-presets): one bar each, from its first sight to its end, on the runner's clock. */
function presetTasks(tests: RunReport['tests'], now: number): Task[] {
  if (tests.length < 2) return []
  return tests
    .filter((t) => t.seenAt !== undefined)
    .map((t) => {
      const outcome = mermaidLabel([t.phase, t.reason].filter(Boolean).join(' ') || 'no status', 30)
      const tag = t.phase === 'Failed' ? 'crit' : t.phase === 'Succeeded' ? 'done' : 'active'
      const label = mermaidLabel(`${t.preset || t.name} ${outcome}`)
      return { label, tag, start: t.seenAt as number, end: t.finalAt ?? now }
    })
}

function taskLine(task: Task, id: string): string {
  const tags = [task.tag, id].filter(Boolean).join(', ')
  // A task of zero length does not show: one millisecond at least.
  return `    ${task.label} :${tags}, ${task.start}, ${Math.max(task.end, task.start + 1)}`
}

/** The chart as a fenced `mermaid` block; '' when no step ran. */
export function ganttChart(
  report: Pick<RunReport, 'rows' | 'test'> & Partial<Pick<RunReport, 'tests'>>,
  clock: ControllerClock | null,
  now: number
): string {
  const steps = report.rows.map((row) => stepTask(row, now)).filter((t): t is Task => t !== null)
  if (steps.length === 0) return ''
  const presets = presetTasks(report.tests ?? [], now)
  // One bar per test when there are several; the controller's milestones of the one test else.
  const tests = presets.length > 0 ? [] : testTasks(clock, report.test)
  const lines = [
    '```mermaid',
    'gantt',
    '    title The run, step by step',
    '    dateFormat x',
    '    axisFormat %H:%M:%S',
    '    section Steps',
    ...steps.map((task, i) => taskLine(task, `step${i}`)),
    ...(tests.length > 0 ? ['    section Test (controller clock)'] : []),
    ...tests.map((task, i) => taskLine(task, `test${i}`)),
    ...(presets.length > 0 ? ['    section Tests (one per preset)'] : []),
    ...presets.map((task, i) => taskLine(task, `preset${i}`)),
    '```'
  ]
  return lines.join('\n')
}
