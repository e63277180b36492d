// @bufbuild/cel (conformance-tested against the CEL specification) as the second stand-in for
// cel-go, behind the same Flux wrapper as @marcbachmann/cel-js (flux-cel.ts).
// Facts: fluxcd/pkg runtime/cel/expression.go (parse only, no declared variables).
import { celEnv, celError, isCelError, parse, plan } from '@bufbuild/cel'
import type { CelInput } from '@bufbuild/cel'
import { strings } from '@bufbuild/cel/ext'
import { toCelValue } from './flux-cel.js'
import type { CelEngine } from './flux-cel.js'

// Flux adds ext.Strings; @bufbuild/cel has no ext.Sets or ext.Encoders.
const environment = celEnv({ funcs: strings })

// Identifiers that CEL resolves as types when no variable of that name is bound.
const CEL_TYPE_NAMES = new Set([
  'bool',
  'bytes',
  'double',
  'dyn',
  'int',
  'list',
  'map',
  'null_type',
  'string',
  'type',
  'uint'
])

/**
 * Binds the object's top-level fields. cel-go answers a name that the object lacks with
 * "no such attribute"; @bufbuild/cel leaves it unbound, and has(status.x) is then false, not an
 * error (case a would give InProgress, Flux gives Unknown). So every other name is bound
 * to an error, which is the cel-go behaviour (this is the adapter, not the library).
 */
function bindings(fields: Record<string, unknown>): Record<string, CelInput> {
  const values = toCelValue(fields) as Record<string, CelInput>
  return new Proxy(values, {
    get(target, name) {
      if (typeof name !== 'string' || Object.hasOwn(target, name)) return target[name as string]
      // Dotted candidates (status.phase as one qualified name) are tried before status itself.
      if (CEL_TYPE_NAMES.has(name) || name.includes('.')) return undefined
      return celError(`no such attribute(s): ${name}`)
    }
  })
}

export const BUFBUILD_CEL: CelEngine = {
  name: '@bufbuild/cel',
  compile(source) {
    const program = plan(environment, parse(source))
    return (fields) => {
      const result = program(bindings(fields))
      if (isCelError(result)) throw result
      return result
    }
  }
}
