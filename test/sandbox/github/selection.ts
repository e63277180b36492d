// The last word on a GraphQL answer: only the fields the document selected, under their response
// keys (aliases), as GitHub answers. The sandbox's own executor already projects; this pass parses
// the document with graphql-js, so an answer can never carry a field that real GitHub would not
// send, whatever the sandbox's homemade parser missed. Fragments (inline and named) are merged
// without their type conditions: the sandbox serves no abstract type the gate reads through one.
import {
  type FieldNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode
} from 'graphql'

type Fragments = Map<string, FragmentDefinitionNode>

/** The answer with its `data` cut down to the selection; any other answer as it came. */
export function selectedOnly(request: Record<string, unknown>, answer: unknown): unknown {
  if (!answer || typeof answer !== 'object' || typeof request.query !== 'string') return answer
  const { data } = answer as { data?: unknown }
  if (!data || typeof data !== 'object') return answer
  let operation: OperationDefinitionNode | undefined
  const fragments: Fragments = new Map()
  try {
    for (const definition of parse(request.query).definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        fragments.set(definition.name.value, definition)
      } else if (definition.kind === Kind.OPERATION_DEFINITION) {
        const wanted = request.operationName
        if (!operation || definition.name?.value === wanted) operation = definition
      }
    }
  } catch {
    return answer // the sandbox's parser already answered the parse error
  }
  if (!operation) return answer
  return { ...answer, data: filter(data, operation.selectionSet, fragments) }
}

function filter(value: unknown, selectionSet: SelectionSetNode, fragments: Fragments): unknown {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => filter(item, selectionSet, fragments))
  const source = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const field of fieldsOf(selectionSet, fragments)) {
    const key = field.alias?.value ?? field.name.value
    if (!(key in source)) continue
    out[key] = field.selectionSet ? filter(source[key], field.selectionSet, fragments) : source[key]
  }
  return out
}

/** The fields of a selection set, fragments spread in (a field asked twice is kept once). */
function fieldsOf(selectionSet: SelectionSetNode, fragments: Fragments, seen = new Set<string>()) {
  const fields: FieldNode[] = []
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      fields.push(selection)
      continue
    }
    const spread =
      selection.kind === Kind.INLINE_FRAGMENT
        ? selection.selectionSet
        : seen.has(selection.name.value)
          ? undefined
          : fragments.get(selection.name.value)?.selectionSet
    if (selection.kind === Kind.FRAGMENT_SPREAD) seen.add(selection.name.value)
    if (spread) fields.push(...fieldsOf(spread, fragments, seen))
  }
  return fields
}
