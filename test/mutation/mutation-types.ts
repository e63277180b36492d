// The shape of the mutation list (mutations.ts).

export interface Mutation {
  /** The source file, relative to the repository root. */
  module: string
  /** The named function (or method, class, variable) of the module that holds `find`. */
  function: string
  /** Exact source text, once inside `function`. */
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

export function mutationsOf(
  module: string,
  list: [inside: string, find: string, replace: string, why: string][]
) {
  return list.map(([inside, find, replace, why]): Mutation => ({
    module,
    function: inside,
    find,
    replace,
    why
  }))
}
