// Evaluates a Flux healthCheckExprs entry the way kustomize-controller does, with a JavaScript CEL
// library standing in for cel-go: @marcbachmann/cel-js here, @bufbuild/cel in flux-bufbuild.ts.
// Facts: https://github.com/fluxcd/pkg/blob/main/runtime/cel/status_evaluator.go
import { Environment } from '@marcbachmann/cel-js'
import type { ParseResult } from '@marcbachmann/cel-js'
import { parse as parseYaml } from 'yaml'

/** kstatus results that a CEL health check can give. */
export type FluxStatus = 'InProgress' | 'Failed' | 'Current' | 'Unknown'

/** Which step decided, as fixtures.ts notes it next to each Flux result. */
export type FluxDecidedBy = 'generation' | 'inProgress' | 'failed' | 'current' | 'nothing-true'

export interface FluxHealth {
  status: FluxStatus
  decidedBy: FluxDecidedBy
  /** Evaluation error text, kept for diagnostics only (never assert it: the engines differ). */
  error?: string
}

export interface FluxHealthCheckEntry {
  apiVersion: string
  kind?: string
  inProgress?: string
  failed?: string
  current: string
}

const EXPRESSION_ORDER = ['inProgress', 'failed', 'current'] as const

// The options that bring marcbachmann closest to Flux's parse-only, untyped environment.
function fluxLikeEnvironment(): Environment {
  return new Environment({
    unlistedVariablesAreDyn: true,
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false
  })
}

/** Reads the healthCheckExprs entries of a YAML file (a list, as in spec.healthCheckExprs). */
export function readHealthCheckEntries(yamlText: string): FluxHealthCheckEntry[] {
  const parsed: unknown = parseYaml(yamlText)
  if (!Array.isArray(parsed)) throw new Error('expected a YAML list of healthCheckExprs entries')
  return parsed.map((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) throw new Error(`entry ${index} is not a map`)
    const fields = entry as Record<string, unknown>
    for (const key of ['apiVersion', 'current']) {
      if (typeof fields[key] !== 'string') throw new Error(`entry ${index} lacks ${key}`)
    }
    return fields as unknown as FluxHealthCheckEntry
  })
}

/** A CEL library as the wrapper sees it: parse once, then evaluate on the object's fields. */
export interface CelEngine {
  name: string
  /** Throws when the expression does not parse. */
  compile(source: string): CelProgram
}

/** Evaluates on the object's top-level fields; throws on an evaluation error. */
export type CelProgram = (fields: Record<string, unknown>) => unknown

/** @marcbachmann/cel-js, integers as BigInt (CEL int). */
export const MARCBACHMANN_CEL: CelEngine = {
  name: '@marcbachmann/cel-js',
  compile(source) {
    const program: ParseResult = fluxLikeEnvironment().parse(source)
    return (fields) => program(toCelValue(fields) as Record<string, unknown>)
  }
}

/**
 * Parses the entry's expressions once (a parse error would stall the Kustomization) and
 * returns the evaluator, in status_evaluator.go's order.
 */
export function compileFluxHealthCheck(
  entry: FluxHealthCheckEntry,
  engine: CelEngine = MARCBACHMANN_CEL
): (obj: unknown) => FluxHealth {
  const compiled = EXPRESSION_ORDER.flatMap((name) => {
    const source = entry[name]
    return source === undefined ? [] : [{ name, program: engine.compile(source) }]
  })
  return (obj) => evaluateFluxHealth(compiled, obj)
}

function evaluateFluxHealth(
  compiled: { name: (typeof EXPRESSION_ORDER)[number]; program: CelProgram }[],
  obj: unknown
): FluxHealth {
  if (typeof obj !== 'object' || obj === null) throw new Error('a Kubernetes object is required')
  const fields = obj as Record<string, unknown>

  // The built-in generation check, only when both values are integers.
  const observed = nested(fields, ['status', 'observedGeneration'])
  const generation = nested(fields, ['metadata', 'generation'])
  if (Number.isInteger(observed) && Number.isInteger(generation) && observed !== generation) {
    return { status: 'InProgress', decidedBy: 'generation' }
  }

  // The variables are the object's top-level fields.
  for (const { name, program } of compiled) {
    let result: unknown
    try {
      result = program(fields)
    } catch (error) {
      return { status: 'Unknown', decidedBy: name, error: String(error) }
    }
    if (typeof result !== 'boolean') {
      return { status: 'Unknown', decidedBy: name, error: `${name} returned ${typeof result}` }
    }
    if (result) return { status: STATUS_OF[name], decidedBy: name }
  }
  return { status: 'InProgress', decidedBy: 'nothing-true' }
}

const STATUS_OF: Record<(typeof EXPRESSION_ORDER)[number], FluxStatus> = {
  inProgress: 'InProgress',
  failed: 'Failed',
  current: 'Current'
}

function nested(value: unknown, path: string[]): unknown {
  let current = value
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current
}

// JSON integers arrive as int64 (CEL int); marcbachmann represents CEL int as BigInt.
export function toCelValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value
  if (Array.isArray(value)) return value.map(toCelValue)
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCelValue(v)]))
  }
  return value
}
