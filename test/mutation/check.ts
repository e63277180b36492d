// Whether the mutation list is well formed: checked by mutations.test.ts (part of npm test) without
// reading src/, so that a rename in src/ never fails a unit test. Whether each mutation still finds
// its text is the runner's business (locate.ts): it reports a lost one as "not found".
import type { MutatedModule } from './mutations.js'

export { applyAt, locate, type Located, type SourceFiles } from './locate.js'

/** Every problem of the list's shape; [] when it is well formed. */
export function listProblems(modules: MutatedModule[]): string[] {
  const problems: string[] = []
  const names = new Set<string>()
  const seen = new Set<string>()
  for (const module of modules) {
    if (names.has(module.name)) problems.push(`${module.name}: the name is used twice`)
    names.add(module.name)
    if (module.mutations.length < 3)
      problems.push(`${module.name}: ${module.mutations.length} mutations, at least 3 wanted`)
    if (module.tests.length === 0) problems.push(`${module.name}: no table test`)
    for (const test of module.tests)
      if (!test.startsWith('test/') || !test.endsWith('.test.ts'))
        problems.push(`${module.name}: ${test} is not a test file`)
    for (const m of module.mutations) {
      const label = `${module.name}: ${JSON.stringify(m.find)} in ${m.module}`
      const key = JSON.stringify([m.module, m.function, m.find, m.replace])
      if (seen.has(key)) problems.push(`${label}: listed twice`)
      seen.add(key)
      if (m.find === '' || m.find === m.replace) problems.push(`${label}: changes nothing`)
      if (!/^[A-Za-z_$][\w$]*$/.test(m.function)) problems.push(`${label}: no function name`)
      if (!m.module.startsWith('src/') || !m.module.endsWith('.ts'))
        problems.push(`${label}: not a source file`)
    }
  }
  return problems
}
