// Citations a reader can follow: src/ cites public sources (an upstream URL, an upstream repository
// and path, a GitHub issue) or files of this repository (action.yml, the README, docs/). It never
// cites the team's own notes, which a reader of the repository cannot open, nor the team's issue
// numbers, nor a bare "§" section that belongs to no named document.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { sourceFiles } from './code-size.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The team's notes outside the repository, and its issue numbers. */
const UNREADABLE =
  /interface\.md|coder-k8s-api\.md|coder-cli\.md|health-rules\.md|action-ecosystem\.md|coder-api-subset|shared\/(?:reference|design|seed)|gitops-promotion-gate|\bissue [0-9]+|§/i

/**
 * Lines that still cite a note, inside a message the action prints, by file and the cited text.
 * Changing a message is a change of behaviour with tests of its own, so they wait for that change;
 * the list only shrinks: an entry whose line is gone fails the test.
 */
const IN_MESSAGES: readonly [file: string, text: string][] = [
  ['src/coder/cli.ts', '(coder-cli.md §4 lists linux, darwin and windows'],
  ['src/kube/watch-stream.ts', 'on codertemplatetests.coder.com (coder-k8s-api.md §3)'],
  [
    'src/steps/preflight.ts',
    'before any test (coder-cli.md §1.5). That version goes live untested.'
  ]
]

interface Citation {
  file: string
  line: number
  text: string
}

/** Every line of `files` that matches UNREADABLE. */
function unreadableCitations(files: string[]): Citation[] {
  return files.flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((text, index) => (UNREADABLE.test(text) ? [{ file, line: index + 1, text }] : []))
  )
}

const isKnownMessage = (citation: Citation): boolean =>
  IN_MESSAGES.some(([file, text]) => citation.file === file && citation.text.includes(text))

describe('src/ cites what a reader of the repository can open', () => {
  const found = unreadableCitations(sourceFiles(ROOT, 'src'))

  it('reads every source file', () => {
    expect(sourceFiles(ROOT, 'src')).toContain('src/main.ts')
  })

  it('cites no note outside the repository, no issue number and no bare §', () => {
    const shown = found
      .filter((citation) => !isKnownMessage(citation))
      .map(({ file, line, text }) => `${file}:${line}: ${text.trim()}`)
    expect(shown).toEqual([])
  })

  it.each(IN_MESSAGES)(
    '%s still holds the listed message (else drop it from the list)',
    (file, text) => {
      expect(found.some((citation) => citation.file === file && citation.text.includes(text))).toBe(
        true
      )
    }
  )
})

describe('the pattern', () => {
  it.each([
    ['// Facts: coder-k8s-api.md §1.2 (spec).'],
    ['// The inputs (names fixed by shared/design/interface.md).'],
    ['// See issue 22, point 3.'],
    ['/** Issue 11: the dashboard link. */'],
    ['// §2.4: dry-run must be exactly `All`.'],
    ['// the list (coder-api-subset.md).'],
    ['// secrets (action-ecosystem.md).']
  ])('finds %s', (line) => {
    expect(UNREADABLE.test(line)).toBe(true)
  })

  it.each([
    ['// Facts: https://github.com/coder/coder-k8s/blob/main/docs/how-to/test-templates.md'],
    ['// The outputs of action.yml, all strings.'],
    ['// Older CLIs ignored --name (coder/coder#17031).'],
    ['// https://github.com/coder/coder/issues/17033'],
    ['// the promotion guard (README, "Promotion guard")'],
    ['// reissue 3 requests']
  ])('lets %s pass', (line) => {
    expect(UNREADABLE.test(line)).toBe(false)
  })
})
