// Sizes of source files and of the functions in them, read with the TypeScript compiler API so
// that a function is what the compiler sees (declarations, methods, accessors, arrows, function
// expressions), for .ts and .mjs alike. A function's length runs from its first token to its
// last line, nested functions included, as ESLint's max-lines-per-function counts by default.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

export interface FunctionSize {
  file: string
  name: string
  line: number
  lines: number
}

export interface FileSize {
  file: string
  lines: number
  functions: FunctionSize[]
}

const SOURCE = /\.(ts|mts|js|mjs)$/

/** Every source file under `dir`, relative to `root`, sorted. */
export function sourceFiles(root: string, dir: string): string[] {
  const found: string[] = []
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts'))
        found.push(relative(root, path))
    }
  }
  walk(join(root, dir))
  return found.sort()
}

function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source)
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
    return parent.name.getText(source)
  if (ts.isPropertyDeclaration(parent)) return parent.name.getText(source)
  return '(anonymous)'
}

/** The line count of a file and of every function in it. */
export function measure(root: string, file: string): FileSize {
  const text = readFileSync(join(root, file), 'utf8')
  const kind = /\.m?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind)
  const functions: FunctionSize[] = []
  const lineOf = (position: number): number =>
    source.getLineAndCharacterOfPosition(position).line + 1
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = lineOf(node.getStart(source))
      functions.push({
        file,
        name: functionName(node as ts.FunctionLikeDeclaration, source),
        line: first,
        lines: lineOf(node.getEnd()) - first + 1
      })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length
  return { file, lines, functions }
}
