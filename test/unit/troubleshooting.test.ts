// A failed run links to docs/troubleshooting.md#<kind> (src/report/build.ts): every failure kind
// needs a section whose GitHub anchor is exactly the kind, and the page has no section for a kind
// that does not exist.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import { FAILURE_KINDS } from '../../src/steps/step.js'

const markdown = readFileSync(new URL('../../docs/troubleshooting.md', import.meta.url), 'utf8')

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

const headings = proseLines(markdown)
  .map((line) => /^(#{1,6})\s+(.*)$/.exec(line))
  .filter((match): match is RegExpExecArray => match !== null)
  .map((match) => ({ level: match[1].length, text: match[2].trim(), anchor: anchorOf(match[2]) }))

describe('docs/troubleshooting.md', () => {
  const sections = headings.filter((heading) => heading.level === 2)

  it.each([...FAILURE_KINDS])('has a section "## %s" whose anchor is the kind', (kind) => {
    const section = sections.filter((heading) => heading.text === kind)
    expect(section).toHaveLength(1)
    expect(section[0].anchor).toBe(kind)
  })

  it('has no section for a kind that does not exist', () => {
    const known = new Set<string>(FAILURE_KINDS)
    expect(sections.map((heading) => heading.text).filter((text) => !known.has(text))).toEqual([])
  })

  it('has its sections in the order of the kinds', () => {
    expect(sections.map((heading) => heading.text)).toEqual([...FAILURE_KINDS])
  })

  it('links only to anchors that exist on the page', () => {
    const anchors = new Set(headings.map((heading) => heading.anchor))
    const links = [...markdown.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1])
    expect(links.length).toBeGreaterThan(0)
    expect(links.filter((link) => !anchors.has(link))).toEqual([])
  })
})
