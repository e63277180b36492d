// Where a mutation applies: its text (`find`) inside the named function of its module, read with
// the TypeScript parser. A mutation that no longer fits (the module moved, the function was
// renamed, the text changed) is "not found", with the module and function that hold the text now,
// so that a rename that keeps behaviour costs one edit of the list, not a failing unit test.
import ts from 'typescript'

/** A named declaration of a source file: a function, method, class or variable, and its span. */
export interface Declaration {
  name: string
  start: number
  end: number
}

export interface SourceFiles {
  /** The text of a file relative to the repository root; null when it does not exist. */
  read: (path: string) => string | null
  /** Every source file the text may have moved to (src/**\/*.ts). */
  list: () => string[]
}

export interface Target {
  module: string
  function: string
  find: string
}

export type Located = { found: true; at: number } | { found: false; problem: string }

function nameOf(node: ts.Node): string | null {
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isClassDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isPropertyAssignment(node) ||
      ts.isVariableDeclaration(node)) &&
    node.name !== undefined &&
    (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))
  )
    return node.name.text
  return null
}

/** Every named declaration of a source, outer ones before the ones nested in them. */
export function declarationsOf(path: string, source: string): Declaration[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: Declaration[] = []
  const visit = (node: ts.Node): void => {
    const name = nameOf(node)
    // `const x = ...` starts at `const` (the statement), so that a text may hold the keyword.
    const whole =
      ts.isVariableDeclaration(node) &&
      ts.isVariableDeclarationList(node.parent) &&
      node.parent.declarations.length === 1 &&
      ts.isVariableStatement(node.parent.parent)
        ? node.parent.parent
        : node
    if (name !== null) found.push({ name, start: whole.getStart(file), end: node.getEnd() })
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

function occurrences(text: string, find: string, from: number, to: number): number[] {
  const at: number[] = []
  for (
    let i = text.indexOf(find, from);
    i >= 0 && i + find.length <= to;
    i = text.indexOf(find, i + 1)
  )
    at.push(i)
  return at
}

/** The innermost named declaration that holds the whole text at `at`; null at the top level. */
export function enclosingName(
  declarations: Declaration[],
  at: number,
  length: number
): string | null {
  const holding = declarations.filter((d) => d.start <= at && at + length <= d.end)
  holding.sort((a, b) => a.end - a.start - (b.end - b.start))
  return holding[0]?.name ?? null
}

/** The places of the text inside the declarations named `name` (each place once). */
function placesIn(
  source: string,
  declarations: Declaration[],
  name: string,
  find: string
): number[] {
  const places = new Set<number>()
  for (const d of declarations.filter((d) => d.name === name))
    for (const at of occurrences(source, find, d.start, d.end)) places.add(at)
  return [...places]
}

/** Where the text is now, as "module: function" (at most three), for a mutation that is lost. */
export function whereNow(files: SourceFiles, find: string): string[] {
  const hits: string[] = []
  for (const path of files.list()) {
    const source = files.read(path)
    if (source === null) continue
    const declarations = declarationsOf(path, source)
    for (const at of occurrences(source, find, 0, source.length))
      hits.push(`${path}: ${enclosingName(declarations, at, find.length) ?? '(top level)'}`)
  }
  return [...new Set(hits)]
}

/** The one place of the mutation's text in its function, or why there is none. */
export function locate(target: Target, files: SourceFiles): Located {
  const source = files.read(target.module)
  const places =
    source === null
      ? []
      : placesIn(source, declarationsOf(target.module, source), target.function, target.find)
  if (places.length === 1) return { found: true, at: places[0] }
  if (places.length > 1)
    return {
      found: false,
      problem: `found ${places.length} times in ${target.function} of ${target.module}: lengthen the text`
    }
  const now = whereNow(files, target.find)
  const where = source === null ? `${target.module} does not exist` : `not in ${target.function}`
  const hint =
    now.length === 0
      ? 'the text is in no source file: the code changed, write the mutation anew'
      : now.length > 3
        ? `the text is in ${now.length} places: lengthen it`
        : `use ${now.map((place) => `"${place}"`).join(' or ')}`
  return { found: false, problem: `not found (${where}); ${hint}` }
}

/** The source with the mutation applied at its one place. */
export function applyAt(source: string, at: number, find: string, replace: string): string {
  if (source.slice(at, at + find.length) !== find)
    throw new Error(`mutation text not at ${at}: ${JSON.stringify(find)}`)
  return source.slice(0, at) + replace + source.slice(at + find.length)
}
