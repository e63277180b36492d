// CRD validation of CoderTemplateTest as the API server applies it on create and update:
// structural pruning, defaults, OpenAPI v3 checks and the CEL rules (x-kubernetes-validations).
// Source of the schema: the real CRD read at runtime from ../shared/reference/data/ (third-party,
// never copied into the project). Where it is absent, a hand-written schema from
// coder-k8s-api.md §1.2 is used and its CEL rules are implemented explicitly in TypeScript.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { evaluate } from '@marcbachmann/cel-js'
import { parse as parseYaml } from 'yaml'

export interface CelRule {
  rule: string
  message: string
  /** Hand-written equivalent of `rule` (fallback schema only). */
  check?: (self: unknown) => boolean
}

export interface SchemaNode {
  type?: 'object' | 'array' | 'string' | 'integer' | 'boolean' | 'number'
  properties?: Record<string, SchemaNode>
  required?: string[]
  items?: SchemaNode
  maxItems?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  format?: string
  minimum?: number
  maximum?: number
  enum?: unknown[]
  default?: unknown
  'x-kubernetes-validations'?: CelRule[]
  'x-kubernetes-list-type'?: string
  'x-kubernetes-list-map-keys'?: string[]
  'x-kubernetes-preserve-unknown-fields'?: boolean
}

/** One field error, shaped as a Kubernetes StatusCause. */
export interface FieldCause {
  reason: string
  message: string
  field: string
}

export interface TestSchema {
  source: 'crd-file' | 'hand-written'
  /** The spec node of the openAPIV3Schema. */
  spec: SchemaNode
}

const thisDir = dirname(fileURLToPath(import.meta.url))
/** Repo root is three levels up from test/sandbox/kube/. */
export const defaultCrdPath = resolve(
  thisDir,
  '../../..',
  '../shared/reference/data/coder.com_codertemplatetests.yaml'
)

const dnsSubdomain = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'

/** Fallback written from coder-k8s-api.md §1.2 (used only when the CRD file is absent). */
export function handWrittenSpecSchema(): SchemaNode {
  return {
    type: 'object',
    required: ['controlPlaneRef', 'template', 'version'],
    properties: {
      controlPlaneRef: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 253, pattern: dnsSubdomain }
        }
      },
      template: {
        type: 'string',
        maxLength: 65,
        pattern: '^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*\\.[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$',
        'x-kubernetes-validations': [
          {
            rule: "self.matches('^[^.]{1,32}[.][^.]{1,32}$')",
            message: 'organization and template names must each have at most 32 characters',
            check: (self) => /^[^.]{1,32}[.][^.]{1,32}$/.test(String(self))
          },
          {
            rule: "!self.matches('^(new|create)[.]') && !self.matches('[.](new|create)$')",
            message: 'organization and template names must not be new or create',
            check: (self) =>
              !/^(new|create)[.]/.test(String(self)) && !/[.](new|create)$/.test(String(self))
          }
        ]
      },
      version: {
        type: 'object',
        properties: {
          name: {
            type: 'string',
            minLength: 1,
            maxLength: 64,
            pattern: '^[a-zA-Z0-9]+([_.-][a-zA-Z0-9]+)*$'
          },
          id: { type: 'string', format: 'uuid', maxLength: 36 },
          active: { type: 'boolean' }
        },
        'x-kubernetes-validations': [
          {
            rule: '(has(self.name) ? 1 : 0) + (has(self.id) ? 1 : 0) + (has(self.active) ? 1 : 0) == 1',
            message: 'set exactly one of name, id, or active',
            check: (self) => {
              const version = self as Record<string, unknown>
              return ['name', 'id', 'active'].filter((key) => key in version).length === 1
            }
          },
          {
            rule: '!has(self.active) || self.active',
            message: 'active must be true when set',
            check: (self) => {
              const version = self as Record<string, unknown>
              return !('active' in version) || version.active === true
            }
          }
        ]
      },
      parameters: {
        type: 'array',
        maxItems: 64,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 128 },
            value: { type: 'string', maxLength: 4096 }
          }
        }
      },
      timeoutSeconds: {
        type: 'integer',
        format: 'int32',
        default: 900,
        minimum: 60,
        maximum: 7200
      },
      ttlSecondsAfterFinished: { type: 'integer', format: 'int32', minimum: 0 }
    }
  }
}

let warnedFallback = false

/**
 * The spec schema of the real CRD when the file is readable, else the hand-written fallback.
 * `crdPath: null` forces the fallback (tests compare both).
 */
export function loadTestSchema(crdPath: string | null = defaultCrdPath): TestSchema {
  if (crdPath !== null && existsSync(crdPath)) {
    const crd = parseYaml(readFileSync(crdPath, 'utf8')) as {
      spec: { versions: { name: string; schema: { openAPIV3Schema: SchemaNode } }[] }
    }
    const version = crd.spec.versions.find((v) => v.name === 'v1alpha1')
    const spec = version?.schema.openAPIV3Schema.properties?.spec
    if (spec) return { source: 'crd-file', spec }
  }
  if (crdPath !== null && !warnedFallback) {
    warnedFallback = true
    console.warn(
      `kube sandbox: CRD file ${crdPath} not found; validating CoderTemplateTest with the hand-written rules of coder-k8s-api.md §1.2`
    )
  }
  return { source: 'hand-written', spec: handWrittenSpecSchema() }
}

/** The rule is a transition rule (needs the old object), evaluated only on update. */
function isTransitionRule(rule: CelRule): boolean {
  return /\boldSelf\b/.test(rule.rule)
}

function quote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value !== null && typeof value === 'object')
    return Array.isArray(value) ? '"array"' : '"object"'
  return String(value)
}

function invalid(field: string, value: unknown, detail: string): FieldCause {
  return {
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${quote(value)}: ${detail}`,
    field
  }
}

// Messages follow k8s.io/apiextensions-apiserver and kube-openapi validation errors.
function validateNode(
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
  if (typeof value === 'string') {
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
  if (typeof value === 'number') {
    if (node.minimum !== undefined && value < node.minimum)
      causes.push(
        invalid(field, value, `${field} in body should be greater than or equal to ${node.minimum}`)
      )
    if (node.maximum !== undefined && value > node.maximum)
      causes.push(
        invalid(field, value, `${field} in body should be less than or equal to ${node.maximum}`)
      )
  }
  if (node.enum && !node.enum.includes(value))
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${quote(value)}: supported values: ${node.enum.map(quote).join(', ')}`,
      field
    })
  if (Array.isArray(value)) {
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
  } else if (typeof value === 'object') {
    const record = value as Record<string, unknown>
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
  for (const rule of node['x-kubernetes-validations'] ?? []) {
    if (isTransitionRule(rule)) continue
    if (!passesRule(rule, value, useCel)) causes.push(invalid(field, value, rule.message))
  }
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
    // coder-k8s-api.md §1.2: spec `self == oldSelf`
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

/**
 * A JSON copy made in this module's realm: structuredClone can hand out objects of another realm
 * (e.g. under jest's VM), which the CEL evaluator does not treat as maps.
 */
function sameRealm<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T)
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
