// The mutation list of `npm run mutate` is well-formed and every listed text is in src/ exactly
// once. Cheap: no mutant runs here (the runner is slow, and not part of npm test).
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { applyMutation, listProblems, type RepoFiles } from './check.js'
import { MUTATED_MODULES, type MutatedModule } from './mutations.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const repo: RepoFiles = {
  read: (path) => {
    try {
      return readFileSync(resolve(root, path), 'utf8')
    } catch {
      return null
    }
  }
}

describe('the mutation list', () => {
  it('fits the source: each text once in its module, each table test present', () => {
    expect(listProblems(MUTATED_MODULES, repo)).toEqual([])
  })

  it('names 3 to 7 mutations per module', () => {
    for (const module of MUTATED_MODULES)
      expect([module.name, module.mutations.length >= 3 && module.mutations.length <= 7]).toEqual([
        module.name,
        true
      ])
  })

  it('notices a text that is gone, found twice, or a test that does not exist', () => {
    const files: RepoFiles = {
      read: (path) =>
        path === 'src/a.ts' ? 'x === y; z === y' : path === 'test/a.test.ts' ? '' : null
    }
    const module = (find: string, tests = ['test/a.test.ts']): MutatedModule => ({
      name: `m ${find}`,
      tests,
      mutations: ['one', 'two', 'three'].map((why) => ({
        module: 'src/a.ts',
        find,
        replace: why,
        why
      }))
    })
    expect(listProblems([module('x ===')], files)).toEqual([])
    expect(listProblems([module('x !==')], files)).toEqual(
      ['one', 'two', 'three'].map(
        () => 'm x !==: "x !==" in src/a.ts: found 0 times, exactly once wanted'
      )
    )
    expect(listProblems([module('=== y')], files)[0]).toContain('found 2 times')
    expect(listProblems([module('x ===', ['test/b.test.ts'])], files)).toEqual([
      'm x ===: test/b.test.ts does not exist'
    ])
  })

  it('applies a mutation at its one place', () => {
    expect(applyMutation('a < b && c', '<', '<=')).toBe('a <= b && c')
    expect(() => applyMutation('a < b', '>', '>=')).toThrow('not found')
  })
})
