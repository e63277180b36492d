// Finding the described operation of a recorded request, and reading the description ($ref).
import type { Description } from './descriptions.js'

export type Json = Record<string, unknown>

/** A JSON pointer into the description, for $ref and for compiled schemas. */
export function pointer(...parts: string[]): string {
  return '#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')
}

export function resolve(desc: Description, node: unknown): Json {
  let current = node as Json
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 10; hops++) {
    const parts = (current.$ref as string).replace(/^#\//, '').split('/')
    current = parts.reduce<unknown>(
      (at, part) => (at as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')],
      desc.doc
    ) as Json
  }
  return current
}

export interface Operation {
  template: string
  pathRef: string[]
  params: Record<string, string>
  operation: Json
  pathItem: Json
}

/** The described operation of a method and path; the most literal template wins. */
export function findOperation(desc: Description, method: string, pathname: string) {
  const paths = desc.doc.paths as Record<string, Json>
  let best: Operation | null = null
  let bestScore = -1
  for (const [template, pathItem] of Object.entries(paths)) {
    const operation = pathItem[method.toLowerCase()] as Json | undefined
    if (!operation) continue
    const names: string[] = []
    const source = template
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{(\w+)\}/g, (_all, name: string) => {
        names.push(name)
        return multiSegment(desc, pathItem, operation, name) ? '(.+)' : '([^/]+)'
      })
    const found = new RegExp(`^${source}$`).exec(pathname)
    if (!found) continue
    const score = template.replace(/\{\w+\}/g, '').length
    if (score <= bestScore) continue
    const params: Record<string, string> = {}
    names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1])))
    best = {
      template,
      pathRef: ['paths', template, method.toLowerCase()],
      params,
      operation,
      pathItem
    }
    bestScore = score
  }
  return best
}

function multiSegment(desc: Description, pathItem: Json, operation: Json, name: string): boolean {
  return parametersOf(desc, pathItem, operation).some(
    (p) => p.param.name === name && p.param['x-multi-segment'] === true
  )
}

/** Declared parameters with the pointer of each (resolved through $ref). */
export function parametersOf(desc: Description, pathItem: Json, operation: Json) {
  const declared = [
    ...((pathItem.parameters as unknown[]) ?? []),
    ...((operation.parameters as unknown[]) ?? [])
  ]
  return declared.map((raw) => ({ param: resolve(desc, raw), raw: raw as Json }))
}

/** The path as the description writes it: without the GHES prefix /api/v3 or the basePath. */
export function describedPath(desc: Description, recorded: string): string {
  let pathname = new URL(recorded, 'http://sandbox').pathname
  if (desc.name === 'github' && pathname.startsWith('/api/v3/')) pathname = pathname.slice(7)
  return desc.basePath ? pathname.slice(desc.basePath.length) : pathname
}
