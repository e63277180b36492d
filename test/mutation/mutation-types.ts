// The shape of the mutation list (mutations.ts).

export interface Mutation {
  /** The source file, relative to the repository root. */
  module: string
  find: string
  replace: string
  /** What the mutant gets wrong, for the report. */
  why: string
}

export interface MutatedModule {
  /** Short name for the report. */
  name: string
  /** The table tests that must catch every mutation of the module. */
  tests: string[]
  mutations: Mutation[]
}

export function mutationsOf(module: string, list: [find: string, replace: string, why: string][]) {
  return list.map(([find, replace, why]): Mutation => ({ module, find, replace, why }))
}
