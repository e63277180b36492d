// A failed run links to docs/troubleshooting.md#<kind> (src/report/build.ts): every failure kind
// needs a section whose GitHub anchor is exactly the kind, and the page has no section for a kind
// that does not exist. Every status reason of the controller (coder-k8s-api.md §1.6, read from the
// team's reference at test time, never copied) needs a section under "Controller reasons".
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { FAILURE_KINDS } from '../../../src/steps/failure-kinds.js'

const markdown = readFileSync(new URL('../../../docs/troubleshooting.md', import.meta.url), 'utf8')
const REFERENCE_PATH = fileURLToPath(
  new URL('../../../../shared/reference/coder-k8s-api.md', import.meta.url)
)
const REASONS_HEADING = 'Controller reasons'

/** The lines outside fenced code blocks: a `#` comment in a shell block is no heading. */
function proseLines(text: string): string[] {
  const lines: string[] = []
  let fence: string | null = null
  for (const line of text.split('\n')) {
    const opening = /^(`{3,}|~{3,})/.exec(line)
    if (fence === null && opening) fence = opening[1]
    else if (fence !== null && line.trim() === fence) fence = null
    else if (fence === null) lines.push(line)
  }
  return lines
}

/** GitHub's anchor of a heading: lower case, punctuation other than - and _ dropped, spaces to -. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

interface Section {
  level: number
  text: string
  anchor: string
  body: string
}

/** Headings outside code, each with the prose up to the next heading. */
function sectionsOf(text: string): Section[] {
  const sections: Section[] = []
  for (const line of proseLines(text)) {
    const match = /^(#{1,6})\s+(.*)$/.exec(line)
    if (match) {
      const heading = match[2].trim()
      sections.push({ level: match[1].length, text: heading, anchor: anchorOf(heading), body: '' })
    } else if (sections.length > 0) {
      sections[sections.length - 1].body += `${line}\n`
    }
  }
  return sections
}

/** The level-3 sections inside the "## Controller reasons" section. */
function reasonSections(sections: Section[]): Section[] {
  const start = sections.findIndex((s) => s.level === 2 && s.text === REASONS_HEADING)
  if (start < 0) return []
  const end = sections.findIndex((s, i) => i > start && s.level <= 2)
  return sections.slice(start + 1, end < 0 ? undefined : end).filter((s) => s.level === 3)
}

interface ControllerReasons {
  wait: string[]
  failure: string[]
  success: string[]
}

/**
 * The reasons of coder-k8s-api.md §1.6: the first column of its "Wait reasons" table, of its
 * "Failure reasons" table, and the "Success reason" line. A cell may name several reasons.
 */
function parseControllerReasons(reference: string): ControllerReasons {
  const start = reference.search(/^### 1\.6 Reasons\b/m)
  if (start < 0) throw new Error('the reference has no section "### 1.6 Reasons"')
  const rest = reference.slice(start + 1)
  const next = rest.search(/^### /m)
  const section = next < 0 ? rest : rest.slice(0, next)
  const reasons: ControllerReasons = { wait: [], failure: [], success: [] }
  let table: 'wait' | 'failure' | null = null
  for (const line of section.split('\n')) {
    if (/^Wait reasons\b/.test(line)) table = 'wait'
    else if (/^Failure reasons\b/.test(line)) table = 'failure'
    const success = /^Success reason: (.*)$/.exec(line)
    if (success) reasons.success.push(...namesIn(success[1]))
    const cell = /^\|([^|]*)\|/.exec(line)
    if (table && cell) reasons[table].push(...namesIn(cell[1]))
  }
  return reasons
}

function namesIn(cell: string): string[] {
  return [...cell.matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1])
}

/** The reasons without a section, and the sections that are no reason. */
function reasonCoverage(doc: string, reasons: string[]): { missing: string[]; unknown: string[] } {
  const headings = reasonSections(sectionsOf(doc)).map((s) => s.text)
  return {
    missing: reasons.filter((reason) => !headings.includes(reason)),
    unknown: headings.filter((heading) => !reasons.includes(heading))
  }
}

const sections = sectionsOf(markdown)

describe('docs/troubleshooting.md: failure kinds', () => {
  const topLevel = sections.filter((heading) => heading.level === 2)

  it.each([...FAILURE_KINDS])('has a section "## %s" whose anchor is the kind', (kind) => {
    const section = topLevel.filter((heading) => heading.text === kind)
    expect(section).toHaveLength(1)
    expect(section[0].anchor).toBe(kind)
  })

  it('has the kinds in their order, then the controller reasons, and no other section', () => {
    expect(topLevel.map((heading) => heading.text)).toEqual([...FAILURE_KINDS, REASONS_HEADING])
  })

  it('says for each kind what it means, what changed and what to do', () => {
    for (const kind of FAILURE_KINDS) {
      const body = topLevel.find((heading) => heading.text === kind)?.body ?? ''
      for (const part of ['**What it means.**', '**What changed.**', '**What to do.**'])
        expect(`${kind}: ${body.includes(part)}`).toBe(`${kind}: true`)
    }
  })

  it('lists every kind at the top, in their order', () => {
    const index = [
      ...markdown.slice(0, markdown.indexOf('\n## ')).matchAll(/^- \[[^\]]+\]\(#([^)]+)\)/gm)
    ]
    expect(index.map((match) => match[1])).toEqual([...FAILURE_KINDS, 'controller-reasons'])
  })

  it('links only to anchors that exist on the page', () => {
    const anchors = new Set(sections.map((heading) => heading.anchor))
    const links = [...markdown.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1])
    expect(links.length).toBeGreaterThan(0)
    expect(links.filter((link) => !anchors.has(link))).toEqual([])
  })
})

const SAMPLE_REFERENCE = [
  '### 1.6 Reasons',
  'Wait reasons (phase `Pending`/`Running`).',
  '| Reason | Meaning |',
  '| --- | --- |',
  '| `Initializing` | started |',
  '| `TemplateNotFound`, `TemplateVersionNotFound` | not (yet) in `Coder` |',
  'Failure reasons (phase `Failed`, final):',
  '| Reason | Meaning |',
  '| `BuildFailed`, `BuildCanceled` | build |',
  'Success reason: `Succeeded`.',
  '### 1.7 Next',
  '| `NotAReason` | after the section |'
].join('\n')

describe('the reason parser and the coverage check', () => {
  it('reads every name of the first column of both tables, and the success line', () => {
    expect(parseControllerReasons(SAMPLE_REFERENCE)).toEqual({
      wait: ['Initializing', 'TemplateNotFound', 'TemplateVersionNotFound'],
      failure: ['BuildFailed', 'BuildCanceled'],
      success: ['Succeeded']
    })
  })

  it('fails loudly on a reference without the section', () => {
    expect(() => parseControllerReasons('### 1.5 Conditions\n')).toThrow('1.6 Reasons')
  })

  it('reports a reason whose section is missing, and a section that is no reason', () => {
    const doc = [
      '## Controller reasons',
      '### Initializing',
      '```sh',
      '### BuildFailed',
      '```',
      '### Bogus',
      '## After',
      '### BuildCanceled'
    ].join('\n')
    expect(reasonCoverage(doc, ['Initializing', 'BuildFailed', 'BuildCanceled'])).toEqual({
      missing: ['BuildFailed', 'BuildCanceled'],
      unknown: ['Bogus']
    })
  })
})

const hasReference = existsSync(REFERENCE_PATH)
if (!hasReference)
  console.info(`${REFERENCE_PATH} is absent: the controller reasons are checked where it exists`)

;(hasReference ? describe : describe.skip)('docs/troubleshooting.md: controller reasons', () => {
  // describe.skip still runs this body: parse only what exists.
  const reasons = hasReference
    ? parseControllerReasons(readFileSync(REFERENCE_PATH, 'utf8'))
    : { wait: [], failure: [], success: [] }
  const all = [...reasons.wait, ...reasons.failure, ...reasons.success]
  const byName = new Map(reasonSections(sections).map((s) => [s.text, s]))

  it('finds the reasons of the reference (both tables and the success reason)', () => {
    expect(reasons.wait).toContain('WaitingForAgents')
    expect(reasons.failure).toContain('AgentStartError')
    expect(reasons.success).toEqual(['Succeeded'])
    expect(new Set(all).size).toBe(all.length)
  })

  it('has one section per reason, and no section for a reason that does not exist', () => {
    expect(reasonCoverage(markdown, all)).toEqual({ missing: [], unknown: [] })
  })

  it('marks each wait reason as a wait and each failure reason as a failure, with a fix', () => {
    const lead = (reason: string): string => (byName.get(reason)?.body ?? '').trim().split(' ')[0]
    const fixed = (reason: string): boolean =>
      /\*\*(Fix:|If it stays:)\*\*/.test(byName.get(reason)?.body ?? '')
    expect(reasons.wait.filter((reason) => lead(reason) !== '**Wait.**')).toEqual([])
    expect(reasons.failure.filter((reason) => lead(reason) !== '**Failed.**')).toEqual([])
    expect([...reasons.wait, ...reasons.failure].filter((reason) => !fixed(reason))).toEqual([])
  })

  it('gives every reason the anchor GitHub makes of its name', () => {
    for (const reason of all) expect(byName.get(reason)?.anchor).toBe(reason.toLowerCase())
  })
})
