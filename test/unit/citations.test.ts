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

describe('src/ cites what a reader of the repository can open', () => {
  const found = unreadableCitations(sourceFiles(ROOT, 'src'))

  it('reads every source file', () => {
    expect(sourceFiles(ROOT, 'src')).toContain('src/main.ts')
  })

  it('cites no note outside the repository, no issue number and no bare §', () => {
    const shown = found.map(({ file, line, text }) => `${file}:${line}: ${text.trim()}`)
    expect(shown).toEqual([])
  })
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
