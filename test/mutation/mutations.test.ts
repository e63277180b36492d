// The mutation list of `npm run mutate` is well formed, and the locator finds a mutation's text in
// its function, or says where the text went. Cheap: no mutant runs here, and src/ is not read, so
// that a rename that keeps behaviour shows as "not found" when `npm run mutate` runs (with the new
// module and function to use), not as a failing unit test.
import { describe, expect, it } from '@jest/globals'
import { applyAt, listProblems, locate, type SourceFiles } from './check.js'
import { MUTATED_MODULES, type MutatedModule } from './mutations.js'

describe('the mutation list', () => {
  it('is well formed: names once, tests and modules by path, a function for each text', () => {
    expect(listProblems(MUTATED_MODULES)).toEqual([])
  })

  it('names 3 to 7 mutations per module', () => {
    for (const module of MUTATED_MODULES)
      expect([module.name, module.mutations.length >= 3 && module.mutations.length <= 7]).toEqual([
        module.name,
        true
      ])
  })

  it('notices a name used twice, a path that is no test or source, and a missing function', () => {
    const module = (name: string, fn = 'f', tests = ['test/a.test.ts']): MutatedModule => ({
      name,
      tests,
      mutations: ['one', 'two', 'three'].map((why) => ({
        module: 'src/a.ts',
        function: fn,
        find: 'x',
        replace: why,
        why
      }))
    })
    expect(listProblems([module('m')])).toEqual([])
    expect(listProblems([module('m'), { ...module('m'), mutations: [] }])).toEqual([
      'm: the name is used twice',
      'm: 0 mutations, at least 3 wanted'
    ])
    expect(listProblems([module('m', 'f', ['test/a.ts'])])).toEqual([
      'm: test/a.ts is not a test file'
    ])
    expect(listProblems([module('m', '')])[0]).toBe('m: "x" in src/a.ts: no function name')
  })
})

const files = (sources: Record<string, string>): SourceFiles => ({
  read: (path) => sources[path] ?? null,
  list: () => Object.keys(sources)
})

const A = [
  'export function judge(x: number, y: number) {',
  '  return x === y',
  '}',
  'const check = (x: number) => x === 0',
  'class Host {',
  '  merge(a: number) { return a < 1 }',
  '}'
].join('\n')

describe('locate', () => {
  it('finds the text once in the named function, arrow function or method', () => {
    const sources = files({ 'src/a.ts': A })
    expect(locate({ module: 'src/a.ts', function: 'judge', find: 'x === y' }, sources)).toEqual({
      found: true,
      at: A.indexOf('x === y')
    })
    expect(locate({ module: 'src/a.ts', function: 'check', find: 'x === 0' }, sources)).toEqual({
      found: true,
      at: A.indexOf('x === 0')
    })
    expect(locate({ module: 'src/a.ts', function: 'merge', find: 'a < 1' }, sources).found).toBe(
      true
    )
  })

  it('a renamed function is not found, and the new name is given', () => {
    const renamed = files({ 'src/a.ts': A.replace('function judge', 'function decide') })
    expect(locate({ module: 'src/a.ts', function: 'judge', find: 'x === y' }, renamed)).toEqual({
      found: false,
      problem: 'not found (not in judge); use "src/a.ts: decide"'
    })
  })

  it('a moved module is not found, and the new path is given', () => {
    const moved = files({ 'src/b/a.ts': A })
    expect(locate({ module: 'src/a.ts', function: 'judge', find: 'x === y' }, moved)).toEqual({
      found: false,
      problem: 'not found (src/a.ts does not exist); use "src/b/a.ts: judge"'
    })
  })

  it('a text that is gone, or twice in the function, is a problem', () => {
    const sources = files({ 'src/a.ts': A })
    expect(locate({ module: 'src/a.ts', function: 'judge', find: 'x !== y' }, sources)).toEqual({
      found: false,
      problem:
        'not found (not in judge); the text is in no source file: the code changed, write the mutation anew'
    })
    expect(locate({ module: 'src/a.ts', function: 'judge', find: 'x' }, sources)).toEqual({
      found: false,
      problem: 'found 3 times in judge of src/a.ts: lengthen the text'
    })
  })

  it('a `const` text belongs to its variable', () => {
    const sources = files({ 'src/a.ts': A })
    expect(
      locate({ module: 'src/a.ts', function: 'check', find: 'const check =' }, sources)
    ).toEqual({ found: true, at: A.indexOf('const check =') })
  })
})

describe('applyAt', () => {
  it('applies a mutation at its one place', () => {
    expect(applyAt('a < b && a < c', 11, '<', '<=')).toBe('a < b && a <= c')
    expect(() => applyAt('a < b', 0, '<', '<=')).toThrow('not at 0')
  })
})
