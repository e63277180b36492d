// The house rules of src/, kept by a test: no import cycle between its files or its folders,
// type-only imports included, no file over 300 lines and no function over 60. A function still over
// is named below; the list only shrinks: an entry that keeps the rules (or is gone) fails the test.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { measure, sourceFiles } from './code-size.js'
import { findCycles, importGraph, specifiersOf } from './import-graph.js'
import type { ImportGraph } from './import-graph.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const MAX_FILE_LINES = 300
const MAX_FUNCTION_LINES = 60

const files = sourceFiles(ROOT, 'src')

/** `file:name` of a function not split yet. */
const NOT_YET_SPLIT = new Set<string>()

describe('src/ has no import cycle', () => {
  const graph = importGraph(ROOT, files)

  it('reads the imports of every file, type-only ones included', () => {
    expect(graph.get('src/kube/wait.ts')).toContain('src/kube/watch-types.ts')
    expect(graph.get('src/steps/step.ts')).toContain('src/steps/failure-kinds.ts')
  })

  it('finds no cycle', () => {
    expect(findCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([])
  })
})

describe('the folders of src/ import each other one way only', () => {
  const graph = importGraph(ROOT, files)
  // The top folder of a file (src/gitops/github/x.ts is in src/gitops/); a file at the root is its own.
  const folderOf = (file: string): string => file.split('/').slice(0, 2).join('/')
  const folders: ImportGraph = new Map()
  for (const [file, imports] of graph) {
    const from = folderOf(file)
    const to = imports.map(folderOf).filter((folder) => folder !== from)
    folders.set(from, [...new Set([...(folders.get(from) ?? []), ...to])])
  }

  it('sees the folders and their imports', () => {
    expect(folders.get('src/steps')).toContain('src/verdict')
  })

  it('finds no cycle between folders (e.g. steps -> verdict -> steps)', () => {
    expect(findCycles(folders).map((cycle) => cycle.join(' -> '))).toEqual([])
  })
})

describe('imports run down, never up to the root of src/', () => {
  const graph = importGraph(ROOT, files)
  const FOLDERS = [
    ...new Set(
      files
        .map((file) => file.split('/'))
        .filter((parts) => parts.length > 2)
        .map((parts) => `src/${parts[1]}/`)
    )
  ]
  // The root holds the entry and the wiring (main.ts, wiring.ts, clients.ts, log.ts, …): they
  // build the clients and writers that the folders get, so no folder file may import them.
  const atRoot = (file: string): boolean => /^src\/[^/]+$/.test(file)

  it.each(FOLDERS)('%s imports nothing at the root (no wiring, no clients)', (folder) => {
    const up = [...graph]
      .filter(([file]) => file.startsWith(folder))
      .flatMap(([file, imports]) => imports.filter(atRoot).map((to) => `${file} -> ${to}`))
    expect(up).toEqual([])
  })

  it('sees an import of the wiring', () => {
    expect(graph.get('src/main.ts')).toContain('src/wiring.ts')
  })
})

/** A Git host's own folder: src/gitops/<host>/. What sits directly in src/gitops/ knows no host. */
const IN_A_HOST_FOLDER = /^src\/gitops\/[^/]+\//
const HOST_CLIENTS = /^(@octokit\/|@actions\/github$)/

describe('src/steps/ knows the Git host only through the host-neutral src/gitops/', () => {
  const graph = importGraph(ROOT, files)
  const reached = new Set(files.filter((file) => file.startsWith('src/steps/')))
  for (const file of reached) for (const target of graph.get(file) ?? []) reached.add(target)

  it('reaches no GitHub adapter, directly or through another module', () => {
    const gitops = [...reached].filter((file) => file.startsWith('src/gitops/')).sort()
    expect(gitops.filter((file) => IN_A_HOST_FOLDER.test(file))).toEqual([])
    expect(gitops).toContain('src/gitops/host.ts')
  })

  it("imports no host's client library, not even a type", () => {
    const named = [...reached].flatMap((file) =>
      specifiersOf(file, readFileSync(join(ROOT, file), 'utf8'))
        .filter((specifier) => HOST_CLIENTS.test(specifier))
        .map((specifier) => `${file}: ${specifier}`)
    )
    expect(named).toEqual([])
  })
})

describe('findCycles', () => {
  const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges))

  it.each<[string, Record<string, string[]>, string[][]]>([
    ['no edges', { a: [], b: [] }, []],
    ['a chain', { a: ['b'], b: ['c'], c: [] }, []],
    ['a diamond', { a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }, []],
    ['two files', { a: ['b'], b: ['a'] }, [['a', 'b', 'a']]],
    ['a file importing itself', { a: ['a'] }, [['a', 'a']]],
    [
      'three files, found from the middle',
      { b: ['c'], c: ['a'], a: ['b'] },
      [['a', 'b', 'c', 'a']]
    ],
    [
      'two separate cycles',
      { a: ['b'], b: ['a'], c: ['d'], d: ['c'] },
      [
        ['a', 'b', 'a'],
        ['c', 'd', 'c']
      ]
    ]
  ])('%s', (_, edges, expected) => {
    expect(findCycles(graphOf(edges))).toEqual(expected)
  })

  it('counts type-only imports, re-exports and import types as edges', () => {
    const text = [
      "import type { A } from './a.js'",
      "export { B } from './b.js'",
      "export type { C } from './c.js'",
      "let d: import('./d.js').D",
      "const e = await import('./e.js')",
      "import { readFileSync } from 'node:fs'"
    ].join('\n')
    expect(specifiersOf('x.ts', text)).toEqual([
      './a.js',
      './b.js',
      './c.js',
      './d.js',
      './e.js',
      'node:fs'
    ])
  })
})

describe('src/ keeps its sizes', () => {
  const sizes = files.map((file) => measure(ROOT, file))

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = sizes.filter((size) => size.lines > MAX_FILE_LINES)
    expect(long.map((size) => `${size.file}: ${size.lines} lines`)).toEqual([])
  })

  const longFunctions = sizes
    .flatMap((size) => size.functions)
    .filter((fn) => fn.lines > MAX_FUNCTION_LINES)

  it(`has no function over ${MAX_FUNCTION_LINES} lines, outside the list not yet split`, () => {
    const long = longFunctions.filter((fn) => !NOT_YET_SPLIT.has(`${fn.file}:${fn.name}`))
    expect(long.map((fn) => `${fn.file}:${fn.line} ${fn.name}: ${fn.lines} lines`)).toEqual([])
  })

  it('lists only functions still over the limit (the list shrinks)', () => {
    const over = new Set(longFunctions.map((fn) => `${fn.file}:${fn.name}`))
    expect([...NOT_YET_SPLIT].filter((entry) => !over.has(entry))).toEqual([])
  })
})
