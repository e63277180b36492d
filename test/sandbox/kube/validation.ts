// CRD validation of CoderTemplateTest as the API server applies it on create and update:
// structural pruning, defaults, OpenAPI v3 checks and the CEL rules (x-kubernetes-validations).
// The schema comes from validation-schema.ts, the checks of one node from validation-node.ts.
import { evaluate } from '@marcbachmann/cel-js'
import { invalid, isTransitionRule, sameRealm, validateNode } from './validation-node.js'
import type { FieldCause, SchemaNode, TestSchema } from './validation-schema.js'

export { defaultCrdPath, handWrittenSpecSchema, loadTestSchema } from './validation-schema.js'
export type { CelRule, FieldCause, SchemaNode, TestSchema } from './validation-schema.js'

/** Structural pruning: drops fields the schema does not know (CRD behaviour). Returns a copy. */
export function prune(node: SchemaNode, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value))
    return value.map((item) => (node.items ? prune(node.items, item) : item))
  if (node['x-kubernetes-preserve-unknown-fields'] || !node.properties) return value
  const out: Record<string, unknown> = {}
  for (const [name, child] of Object.entries(node.properties))
    if (name in (value as Record<string, unknown>))
      out[name] = prune(child, (value as Record<string, unknown>)[name])
  return out
}

/** Writes schema defaults into absent fields (the API server does this on create). */
export function applyDefaults(node: SchemaNode, value: unknown): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return
  const record = value as Record<string, unknown>
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    if (record[name] === undefined && child.default !== undefined)
      record[name] = structuredClone(child.default)
    applyDefaults(child, record[name])
  }
}

/**
 * Validates a spec for create (oldSpec undefined) or update. `useCel` false evaluates the
 * hand-written checks where the schema carries them (fallback schema).
 */
export function validateSpec(schema: TestSchema, spec: unknown, oldSpec?: unknown): FieldCause[] {
  const causes: FieldCause[] = []
  if (spec === undefined || spec === null) {
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec' })
    return causes
  }
  const useCel = schema.source === 'crd-file'
  validateNode(schema.spec, spec, 'spec', causes, useCel)
  if (oldSpec !== undefined) {
    // The spec's CEL rule `self == oldSelf`
    const rule = (schema.spec['x-kubernetes-validations'] ?? []).find(isTransitionRule) ?? {
      rule: 'self == oldSelf',
      message: 'spec is immutable, create a new CoderTemplateTest'
    }
    const same = useCel
      ? safeEval(rule.rule, { self: spec, oldSelf: oldSpec })
      : deepEqual(spec, oldSpec)
    if (!same) causes.push(invalid('spec', spec, rule.message))
  }
  return causes
}

function safeEval(rule: string, vars: Record<string, unknown>): boolean {
  try {
    const copy = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, sameRealm(v)]))
    return evaluate(rule, copy) === true
  } catch {
    return false
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined)
  const kb = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined)
  if (ka.length !== kb.length) return false
  return ka.every((k) =>
    deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
  )
}
