// One schema node checked against one value, as the API server's CRD validation does: types,
// string/number bounds, enums, list maps, required fields and the CEL rules of the node.
// Messages follow k8s.io/apiextensions-apiserver and kube-openapi validation errors.
import { evaluate } from '@marcbachmann/cel-js'
import type { CelRule, FieldCause, SchemaNode } from './validation-schema.js'

/** The rule is a transition rule (needs the old object), evaluated only on update. */
export function isTransitionRule(rule: CelRule): boolean {
  return /\boldSelf\b/.test(rule.rule)
}

function quote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value !== null && typeof value === 'object')
    return Array.isArray(value) ? '"array"' : '"object"'
  return String(value)
}

export function invalid(field: string, value: unknown, detail: string): FieldCause {
  return {
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${quote(value)}: ${detail}`,
    field
  }
}

/** Appends to `causes` every error of `value` against `node` (and its children) at `field`. */
export function validateNode(
  node: SchemaNode,
  value: unknown,
  field: string,
  causes: FieldCause[],
  useCel: boolean
): void {
  if (value === undefined || value === null) return
  const typeOk = checkType(node, value)
  if (!typeOk) {
    causes.push(
      invalid(field, value, `${field} in body must be of type ${node.type}: ${quote(value)}`)
    )
    return
  }
  if (typeof value === 'string') validateString(node, value, field, causes)
  if (typeof value === 'number') validateNumber(node, value, field, causes)
  if (node.enum && !node.enum.includes(value))
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${quote(value)}: supported values: ${node.enum.map(quote).join(', ')}`,
      field
    })
  if (Array.isArray(value)) validateArray(node, value, field, causes, useCel)
  else if (typeof value === 'object')
    validateObject(node, value as Record<string, unknown>, field, causes, useCel)
  for (const rule of node['x-kubernetes-validations'] ?? []) {
    if (isTransitionRule(rule)) continue
    if (!passesRule(rule, value, useCel)) causes.push(invalid(field, value, rule.message))
  }
}

function validateString(
  node: SchemaNode,
  value: string,
  field: string,
  causes: FieldCause[]
): void {
  if (node.minLength !== undefined && [...value].length < node.minLength)
    causes.push(
      invalid(field, value, `${field} in body should be at least ${node.minLength} chars long`)
    )
  if (node.maxLength !== undefined && [...value].length > node.maxLength)
    // guess: the pre-1.32 wording; newer servers say "may not be more than N bytes"
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: may not be longer than ${node.maxLength}`,
      field
    })
  if (node.pattern !== undefined && !new RegExp(node.pattern).test(value))
    causes.push(invalid(field, value, `${field} in body should match '${node.pattern}'`))
  if (
    node.format === 'uuid' &&
    !/^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$/.test(value)
  )
    causes.push(invalid(field, value, `${field} in body must be of type uuid: ${quote(value)}`))
}

function validateNumber(
  node: SchemaNode,
  value: number,
  field: string,
  causes: FieldCause[]
): void {
  if (node.minimum !== undefined && value < node.minimum)
    causes.push(
      invalid(field, value, `${field} in body should be greater than or equal to ${node.minimum}`)
    )
  if (node.maximum !== undefined && value > node.maximum)
    causes.push(
      invalid(field, value, `${field} in body should be less than or equal to ${node.maximum}`)
    )
}

function validateArray(
  node: SchemaNode,
  value: unknown[],
  field: string,
  causes: FieldCause[],
  useCel: boolean
): void {
  if (node.maxItems !== undefined && value.length > node.maxItems)
    causes.push({
      reason: 'FieldValueTooMany',
      message: `Too many: ${value.length}: must have at most ${node.maxItems} items`,
      field
    })
  const keys = node['x-kubernetes-list-map-keys']
  const seen = new Set<string>()
  value.forEach((item, index) => {
    if (node.items) validateNode(node.items, item, `${field}[${index}]`, causes, useCel)
    if (node['x-kubernetes-list-type'] === 'map' && keys && item && typeof item === 'object') {
      const key = JSON.stringify(keys.map((k) => (item as Record<string, unknown>)[k]))
      if (seen.has(key)) {
        const keyText = keys
          .map(
            (k) => `${JSON.stringify(k)}:${JSON.stringify((item as Record<string, unknown>)[k])}`
          )
          .join(', ')
        causes.push({
          reason: 'FieldValueDuplicate',
          message: `Duplicate value: map[string]interface {}{${keyText}}`,
          field: `${field}[${index}]`
        })
      }
      seen.add(key)
    }
  })
}

function validateObject(
  node: SchemaNode,
  record: Record<string, unknown>,
  field: string,
  causes: FieldCause[],
  useCel: boolean
): void {
  for (const name of node.required ?? [])
    if (record[name] === undefined || record[name] === null)
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `${field}.${name}`
      })
  for (const [name, child] of Object.entries(node.properties ?? {}))
    validateNode(child, record[name], `${field}.${name}`, causes, useCel)
}

function passesRule(rule: CelRule, self: unknown, useCel: boolean): boolean {
  if (!useCel && rule.check) return rule.check(self)
  try {
    return evaluate(rule.rule, { self: sameRealm(self) }) === true
  } catch {
    return false
  }
}

function checkType(node: SchemaNode, value: unknown): boolean {
  switch (node.type) {
    case 'object':
      return typeof value === 'object' && !Array.isArray(value)
    case 'array':
      return Array.isArray(value)
    case 'string':
      return typeof value === 'string'
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    case 'number':
      return typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    default:
      return true
  }
}

/**
 * A JSON copy made in this module's realm: structuredClone can hand out objects of another realm
 * (e.g. under jest's VM), which the CEL evaluator does not treat as maps.
 */
export function sameRealm<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T)
}
