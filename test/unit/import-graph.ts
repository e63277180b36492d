// The graph of relative imports between source files, read with the TypeScript compiler API so that
// type-only imports, re-exports (`export ... from`) and `import('...')` count as well: a type-only
// cycle is still a cycle in the design. Bare specifiers (packages, node:) are not edges.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import ts from 'typescript'

/** file (relative to the root) -> the files it imports, relative to the root. */
export type ImportGraph = Map<string, string[]>

/** The module specifiers a file names: imports, re-exports, import types and dynamic imports. */
export function specifiersOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text)
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      found.push(node.argument.literal.text)
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push(node.arguments[0].text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** The file a relative specifier names ('./x.js' is ./x.ts in this ESM project), or undefined. */
export function resolveRelative(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  const base = normalize(join(dirname(from), specifier))
  const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')]
  return candidates.find((candidate) => existsSync(join(root, candidate)))
}

export function importGraph(root: string, files: string[]): ImportGraph {
  const graph: ImportGraph = new Map()
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8')
    const targets = specifiersOf(file, text)
      .map((specifier) => resolveRelative(root, file, specifier))
      .filter((target): target is string => target !== undefined)
    graph.set(file, [...new Set(targets)].sort())
  }
  return graph
}

/**
 * Every cycle, each once, as the path that closes it (first file repeated at the end). Found by a
 * depth-first walk: a back edge to a file on the current path closes a cycle. A cycle is named
 * from its smallest file so that the same cycle found from two places is reported once.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const cycles = new Map<string, string[]>()
  const done = new Set<string>()
  const path: string[] = []
  const onPath = new Set<string>()
  const walk = (file: string): void => {
    path.push(file)
    onPath.add(file)
    for (const next of graph.get(file) ?? []) {
      if (onPath.has(next)) {
        const loop = path.slice(path.indexOf(next))
        const start = loop.indexOf([...loop].sort()[0]!)
        const rotated = [...loop.slice(start), ...loop.slice(0, start)]
        cycles.set(rotated.join(' -> '), [...rotated, rotated[0]!])
      } else if (!done.has(next)) walk(next)
    }
    path.pop()
    onPath.delete(file)
    done.add(file)
  }
  for (const file of [...graph.keys()].sort()) if (!done.has(file)) walk(file)
  return [...cycles.values()]
}
