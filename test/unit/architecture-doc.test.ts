// docs/architecture.md stays true to the tree: it names every module of src/ (by its path or its
// file name), and every `src/…` path it names exists.
import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { sourceFiles } from './code-size.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')

/** The modules of `files` that `text` names neither by path (below src/) nor by file name. */
function unnamedModules(files: string[], text: string): string[] {
  return files.filter((file) => {
    const below = file.replace(/^src\//, '')
    return !text.includes(below) && !text.includes(basename(file))
  })
}

/** The `src/….ts` paths that `text` names and that do not exist under `root`. */
function missingPaths(text: string, root: string): string[] {
  const named = [...text.matchAll(/\bsrc\/[\w./-]+\.ts\b/g)].map((m) => m[0])
  return [...new Set(named)].filter((path) => !existsSync(join(root, path)))
}

describe('docs/architecture.md', () => {
  it('names every module of src/', () => {
    expect(unnamedModules(sourceFiles(ROOT, 'src'), doc)).toEqual([])
  })

  it('names no src/ path that does not exist', () => {
    expect(missingPaths(doc, ROOT)).toEqual([])
  })

  it('finds a module that it does not name, and one named by its file name', () => {
    expect(unnamedModules(['src/a/new-thing.ts', 'src/b/old.ts'], 'see `old.ts`')).toEqual([
      'src/a/new-thing.ts'
    ])
  })
})
