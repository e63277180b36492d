// Fields of an answer that its schema does not name: what a real server would not send, so what
// a gate that reads it would miss in production. JSON Schema allows extra properties unless told
// otherwise, so ajv cannot say; this walks the answer beside the schema. Lenient where the
// schema branches (allOf/anyOf/oneOf): a field any branch names is known.
import type { Description } from './descriptions.js'
import { type Json, resolve } from './operations.js'

/** The properties a schema names, through $ref and its branches; null: any object is open. */
function namedProperties(desc: Description, schema: Json, depth = 0): Map<string, Json> | null {
  const node = resolve(desc, schema)
  if (!node || depth > 20) return null
  if (node.additionalProperties !== undefined && node.additionalProperties !== false) return null
  const named = new Map<string, Json>()
  let branches = 0
  for (const branch of [
    ...((node.allOf as Json[]) ?? []),
    ...((node.anyOf as Json[]) ?? []),
    ...((node.oneOf as Json[]) ?? [])
  ]) {
    const inner = namedProperties(desc, branch, depth + 1)
    const innerNode = resolve(desc, branch)
    if (innerNode?.type === 'null') continue
    if (inner === null) return null
    branches++
    for (const [name, value] of inner) merge(named, name, value)
  }
  const properties = node.properties as Record<string, Json> | undefined
  if (!properties && branches === 0) return null
  for (const [name, value] of Object.entries(properties ?? {})) merge(named, name, value)
  return named
}

/** A field two branches name: either branch's schema of it. */
function merge(named: Map<string, Json>, name: string, schema: Json): void {
  const before = named.get(name)
  named.set(name, before && before !== schema ? { anyOf: [before, schema] } : schema)
}

/** Item schemas of an array schema, through $ref and branches. */
function itemsOf(desc: Description, schema: Json): Json | null {
  const node = resolve(desc, schema)
  if (node?.items) return node.items as Json
  for (const branch of [...((node?.anyOf as Json[]) ?? []), ...((node?.oneOf as Json[]) ?? [])]) {
    const items = itemsOf(desc, branch)
    if (items) return items
  }
  return null
}

/** JSON pointers of the answer's fields that the schema does not name. */
export function unknownFields(desc: Description, schema: Json, value: unknown, at = ''): string[] {
  if (value === null || typeof value !== 'object') return []
  if (Array.isArray(value)) {
    const items = itemsOf(desc, schema)
    return items ? value.flatMap((item, i) => unknownFields(desc, items, item, `${at}/${i}`)) : []
  }
  const named = namedProperties(desc, schema)
  if (!named) return []
  const found: string[] = []
  for (const [key, field] of Object.entries(value as Json)) {
    const property = named.get(key)
    if (property) found.push(...unknownFields(desc, property, field, `${at}/${key}`))
    else found.push(`${at}/${key}`)
  }
  return found
}
