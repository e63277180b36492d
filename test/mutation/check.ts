// Whether the mutation list still fits the source: shared by the runner (which refuses to start on
// a problem) and by mutations.test.ts (part of npm test, so that the list cannot rot silently).
import type { MutatedModule } from './mutations.js'

export interface RepoFiles {
  /** The text of a file relative to the repository root; null when it does not exist. */
  read: (path: string) => string | null
}

function occurrences(text: string, find: string): number {
  let count = 0
  for (let at = text.indexOf(find); at >= 0; at = text.indexOf(find, at + 1)) count += 1
  return count
}

/** Every problem of the list; [] when each mutation changes exactly one place of its module. */
export function listProblems(modules: MutatedModule[], files: RepoFiles): string[] {
  const problems: string[] = []
  const names = new Set<string>()
  const seen = new Set<string>()
  for (const module of modules) {
    if (names.has(module.name)) problems.push(`${module.name}: the name is used twice`)
    names.add(module.name)
    if (module.mutations.length < 3)
      problems.push(`${module.name}: ${module.mutations.length} mutations, at least 3 wanted`)
    if (module.tests.length === 0) problems.push(`${module.name}: no table test`)
    for (const test of module.tests) {
      if (!test.startsWith('test/') || !test.endsWith('.test.ts'))
        problems.push(`${module.name}: ${test} is not a test file`)
      else if (files.read(test) === null) problems.push(`${module.name}: ${test} does not exist`)
    }
    for (const m of module.mutations) {
      const label = `${module.name}: ${JSON.stringify(m.find)} in ${m.module}`
      const key = JSON.stringify([m.module, m.find, m.replace])
      if (seen.has(key)) problems.push(`${label}: listed twice`)
      seen.add(key)
      if (m.find === '' || m.find === m.replace) problems.push(`${label}: changes nothing`)
      if (!m.module.startsWith('src/') || !m.module.endsWith('.ts'))
        problems.push(`${label}: not a source file`)
      const source = files.read(m.module)
      if (source === null) {
        problems.push(`${label}: the module does not exist`)
        continue
      }
      const count = occurrences(source, m.find)
      if (count !== 1) problems.push(`${label}: found ${count} times, exactly once wanted`)
    }
  }
  return problems
}

/** The source with the one occurrence of `find` replaced (listProblems has checked it is one). */
export function applyMutation(source: string, find: string, replace: string): string {
  const at = source.indexOf(find)
  if (at < 0) throw new Error(`mutation text not found: ${JSON.stringify(find)}`)
  return source.slice(0, at) + replace + source.slice(at + find.length)
}
