// The sandbox keeps the product's rules: under test/sandbox/ no file is over
// 300 lines and no function over 60. Files still being split are named below; the list only
// shrinks: a listed file that keeps the rules (or is gone) fails the test until it leaves the list.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { measure, sourceFiles } from './code-size.js'
import type { FileSize } from './code-size.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const MAX_FILE_LINES = 300
const MAX_FUNCTION_LINES = 60

/** Not split yet, each with what breaks the rules today. Remove an entry once its file is done. */
const NOT_YET_SPLIT: Record<string, string> = {}

/** What breaks the rules in one file, as readable lines ([] = keeps them). */
function breaches(size: FileSize): string[] {
  const found: string[] = []
  if (size.lines > MAX_FILE_LINES) found.push(`${size.file}: ${size.lines} lines`)
  for (const fn of size.functions)
    if (fn.lines > MAX_FUNCTION_LINES)
      found.push(`${size.file}:${fn.line} ${fn.name}: ${fn.lines} lines`)
  return found
}

const sizes = sourceFiles(ROOT, 'test/sandbox').map((file) => measure(ROOT, file))

describe('test/sandbox keeps the rules of src/', () => {
  it('finds the sandbox files, .ts and .mjs alike', () => {
    const files = sizes.map((size) => size.file)
    expect(files).toContain('test/sandbox/kube/rbac.ts')
    expect(files).toContain('test/sandbox/coder/fake-coder.mjs')
    expect(sizes.find((s) => s.file.endsWith('rbac.ts'))?.functions.length).toBeGreaterThan(3)
  })

  it('has no file over 300 lines and no function over 60, outside the list not yet split', () => {
    const offenders = sizes.filter((size) => !(size.file in NOT_YET_SPLIT)).flatMap(breaches)
    expect(offenders).toEqual([])
  })

  it('lists only files that exist and still break a rule (the list shrinks)', () => {
    const stale = Object.keys(NOT_YET_SPLIT).filter((file) => {
      const size = sizes.find((s) => s.file === file)
      return !existsSync(`${ROOT}/${file}`) || !size || breaches(size).length === 0
    })
    expect(stale).toEqual([])
  })
})

describe('code-size measures', () => {
  it('counts a function from its first token to its last line, nested ones included', () => {
    const size = measure(ROOT, 'test/unit/code-size.ts')
    const visit = size.functions.find((fn) => fn.name === 'visit')
    const outer = size.functions.find((fn) => fn.name === 'measure')
    expect(visit && outer).toBeTruthy()
    expect(outer!.lines).toBeGreaterThan(visit!.lines)
    expect(outer!.line).toBeLessThan(visit!.line)
  })
})
