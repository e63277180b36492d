// The CoderTemplateTest spec schema the sandbox validates with: the real CRD read at runtime from
// ../shared/reference/data/ (third-party, never copied into the project), or where it is absent a
// hand-written schema of the CRD's spec whose CEL rules are implemented in TypeScript.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
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

/** Fallback written from the CRD's documented spec (used only when the CRD file is absent). */
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
      template: templateSchema(),
      version: versionSchema(),
      parameters: parametersSchema(),
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

/** spec.template: `<organization>.<template>` with its CEL rules. */
function templateSchema(): SchemaNode {
  return {
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
  }
}

/** spec.version: exactly one of name, id or active: true. */
function versionSchema(): SchemaNode {
  return {
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
  }
}

/** spec.parameters: a list map keyed by name. */
function parametersSchema(): SchemaNode {
  return {
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
