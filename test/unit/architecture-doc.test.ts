// docs/architecture.md stays true to the tree: it names every module of src/ (by its path, or by
// its file name where no other module shares it), and every `src/…` path it names exists.
import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { sourceFiles } from './code-size.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')

/**
 * The modules of `files` that `text` does not name: by its path below src/, by its folder and file
 * name (`github/host.ts`), or by its file name alone when no other module has that name.
 */
function unnamedModules(files: string[], text: string): string[] {
  const counts = new Map<string, number>()
  for (const file of files) counts.set(basename(file), (counts.get(basename(file)) ?? 0) + 1)
  return files.filter((file) => {
    const below = file.replace(/^src\//, '')
    const withFolder = file.split('/').slice(-2).join('/')
    const unique = counts.get(basename(file)) === 1
    return !(
      text.includes(below) ||
      text.includes(withFolder) ||
      (unique && text.includes(basename(file)))
    )
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

  it('needs the folder of a file name that two modules share', () => {
    const files = ['src/a/host.ts', 'src/a/b/host.ts']
    expect(unnamedModules(files, 'see `host.ts`')).toEqual(files)
    expect(unnamedModules(files, 'see `b/host.ts`')).toEqual(['src/a/host.ts'])
    expect(unnamedModules(files, 'see `a/host.ts` and `b/host.ts`')).toEqual([])
  })
})
