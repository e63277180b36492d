// The stand-in engines behave like Argo CD's gopher-lua setup and Flux's cel-go evaluation where
// the rules depend on it (argo-cd util/lua/lua.go, fluxcd/pkg runtime/cel/status_evaluator.go).
import { describe, it, expect } from '@jest/globals'
import { Environment } from '@marcbachmann/cel-js'
import {
  argoControllerHealth,
  assertLua51,
  HOOK_FINALIZER,
  INVALID_HEALTH_STATUS,
  runArgoHealthScript
} from './argo-lua.js'
import { compileFluxHealthCheck, readHealthCheckEntries } from './flux-cel.js'
import type { FluxHealthCheckEntry } from './flux-cel.js'
import { HEALTH_CASES, testObject } from './fixtures.js'
import { FLUX_CHECK_PATH, readRepoFile } from './paths.js'

/** Runs a script that reports a probe value as its message. */
function probe(expression: string, obj: unknown = {}): string | undefined {
  return runArgoHealthScript(`return { status = "Healthy", message = ${expression} }`, obj).message
}

describe('Lua VM restricted like Argo CD (no useOpenLibs)', () => {
  it('opens only base, table, package and a safe os', () => {
    expect(probe('type(string) .. type(math) .. type(io) .. type(debug) .. type(coroutine)')).toBe(
      'nilnilnilnilnil'
    )
    expect(probe('type(table.insert) .. type(package.loaded) .. type(ipairs)')).toBe(
      'functiontablefunction'
    )
  })

  it('keeps only os.time and os.date, also through require("os")', () => {
    expect(probe('type(os.time) .. type(os.date) .. type(os.getenv) .. type(os.exit)')).toBe(
      'functionfunctionnilnil'
    )
    expect(probe('type(require("os").execute) .. type(require("os").time)')).toBe('nilfunction')
  })

  it('fails on string methods, as gopher-lua does without the string library', () => {
    const health = runArgoHealthScript('return { status = ("x"):upper() }', {})
    expect(health.status).toBe('Unknown')
    expect(health.message).toEqual(expect.any(String))
  })

  it('skips null values and null array elements when building obj', () => {
    const obj = { a: null, list: ['x', null, 'z'], nested: { b: null, c: 'c' } }
    expect(probe('tostring(obj.a == nil) .. #obj.list .. obj.list[2] .. obj.nested.c', obj)).toBe(
      'true2zc'
    )
  })

  it('compares integers beyond int32 as gopher-lua compares its float64 numbers', () => {
    const obj = { big: 2 ** 31, huge: 1e15, small: 3, fraction: 0.5 }
    expect(
      probe(
        'tostring(obj.big == 2147483648) .. tostring(obj.huge == 1000000000000000) .. ' +
          'tostring(obj.small == 3.0) .. tostring(obj.fraction * 2 == 1)',
        obj
      )
    ).toBe('truetruetruetrue')
  })

  it('keeps only status and message of the returned table', () => {
    expect(
      runArgoHealthScript(
        'return { status = "Degraded", message = "m", deletionMessage = "d", extra = 1 }',
        {}
      )
    ).toEqual({ status: 'Degraded', message: 'm' })
  })

  it('turns an invalid or missing status into Unknown / invalid health status', () => {
    for (const script of [
      'return { status = "healthy" }',
      'return { status = "Pending deletion" }',
      'return { message = "no status" }'
    ]) {
      expect(runArgoHealthScript(script, {})).toEqual({
        status: 'Unknown',
        message: INVALID_HEALTH_STATUS
      })
    }
  })

  it('reads nil and an empty table as an empty status', () => {
    expect(runArgoHealthScript('return nil', {})).toEqual({})
    expect(runArgoHealthScript('return {}', {})).toEqual({})
  })

  it('reports a non-table result and a runtime error as Unknown', () => {
    expect(runArgoHealthScript('return "Healthy"', {})).toEqual({
      status: 'Unknown',
      message: 'expect table output from Lua script, not string'
    })
    expect(runArgoHealthScript('return obj.metadata.name', {}).status).toBe('Unknown')
  })

  it('stops a script that never ends', () => {
    expect(runArgoHealthScript('while true do end', {}).status).toBe('Unknown')
  })

  it('rejects Lua 5.3 syntax that fengari itself would run', () => {
    expect(runArgoHealthScript('return { status = "Healthy", message = 7 // 2 }', {})).toEqual({
      status: 'Unknown',
      message: expect.stringContaining('number')
    })
    expect(() => assertLua51('return 7 // 2')).toThrow()
    expect(() => assertLua51('return 6 & 3')).toThrow()
    expect(() => assertLua51('return 7 / 2')).not.toThrow()
  })
})

describe('Argo CD controller rule for deleting objects (v3.0–v3.5.x)', () => {
  const deletingHealthy = {
    observedGeneration: 3,
    phase: 'Succeeded',
    conditions: [{ type: 'Ready', status: 'True' }]
  }
  const alwaysHealthy = 'return { status = "Healthy", message = "script ran" }'

  it('shows Progressing / Pending deletion without running the script', () => {
    const obj = testObject(deletingHealthy, {
      deletionTimestamp: '2026-01-01T00:10:00Z',
      finalizers: ['coder.com/template-test-cleanup']
    })
    expect(argoControllerHealth(alwaysHealthy, obj)).toEqual({
      status: 'Progressing',
      message: 'Pending deletion'
    })
    // A script that would crash does not run either.
    expect(argoControllerHealth('error("ran")', obj)).toEqual({
      status: 'Progressing',
      message: 'Pending deletion'
    })
  })

  it('runs the script for a deleting object with the hook finalizer', () => {
    const obj = testObject(deletingHealthy, {
      deletionTimestamp: '2026-01-01T00:10:00Z',
      finalizers: [HOOK_FINALIZER]
    })
    expect(argoControllerHealth(alwaysHealthy, obj)).toEqual({
      status: 'Healthy',
      message: 'script ran'
    })
  })

  it('runs the script for an object that is not being deleted', () => {
    expect(argoControllerHealth(alwaysHealthy, testObject(deletingHealthy))).toEqual({
      status: 'Healthy',
      message: 'script ran'
    })
  })
})

describe('CEL evaluation like Flux (kustomize-controller v1.5+)', () => {
  it('uses option names that the installed @marcbachmann/cel-js knows', () => {
    const environment = new Environment({
      unlistedVariablesAreDyn: true,
      enableOptionalTypes: true,
      homogeneousAggregateLiterals: false
    })
    expect(environment.opts).toMatchObject({
      unlistedVariablesAreDyn: true,
      enableOptionalTypes: true,
      homogeneousAggregateLiterals: false
    })
  })

  function entry(fields: Partial<FluxHealthCheckEntry>): FluxHealthCheckEntry {
    return {
      apiVersion: 'coder.com/v1alpha1',
      kind: 'CoderTemplateTest',
      current: 'false',
      ...fields
    }
  }
  const succeeded = testObject({ observedGeneration: 3, phase: 'Succeeded' })

  it('runs the built-in generation check before any expression', () => {
    const check = compileFluxHealthCheck(entry({ inProgress: 'status.missing', current: 'true' }))
    expect(check(testObject({ observedGeneration: 2 }))).toEqual({
      status: 'InProgress',
      decidedBy: 'generation'
    })
  })

  it('skips the built-in check when observedGeneration is not an integer', () => {
    const check = compileFluxHealthCheck(entry({ current: 'true' }))
    expect(check(testObject({ observedGeneration: '2' })).status).toBe('Current')
  })

  it('takes the first true expression in the order inProgress, failed, current', () => {
    expect(compileFluxHealthCheck(entry({ failed: 'true', current: 'true' }))(succeeded)).toEqual({
      status: 'Failed',
      decidedBy: 'failed'
    })
    expect(
      compileFluxHealthCheck(entry({ inProgress: 'true', failed: 'true', current: 'true' }))(
        succeeded
      )
    ).toEqual({ status: 'InProgress', decidedBy: 'inProgress' })
  })

  it('gives Unknown for an evaluation error or a non-bool result, InProgress when nothing is true', () => {
    expect(compileFluxHealthCheck(entry({ failed: 'status.nope' }))(succeeded).status).toBe(
      'Unknown'
    )
    expect(compileFluxHealthCheck(entry({ current: 'status.phase' }))(succeeded).status).toBe(
      'Unknown'
    )
    expect(compileFluxHealthCheck(entry({ failed: 'false' }))(succeeded)).toEqual({
      status: 'InProgress',
      decidedBy: 'nothing-true'
    })
  })

  it('passes JSON integers as CEL int', () => {
    const check = compileFluxHealthCheck(entry({ current: 'type(metadata.generation) == int' }))
    expect(check(succeeded).status).toBe('Current')
  })

  it('fails at compile time on an expression that does not parse', () => {
    expect(() => compileFluxHealthCheck(entry({ current: 'status.phase ==' }))).toThrow()
  })

  it('absorbs errors in || and && like cel-go, and errors on has() of a missing variable', () => {
    const check = compileFluxHealthCheck(
      entry({ current: "status.nope == 'x' || true", failed: "false && status.nope == 'x'" })
    )
    expect(check(succeeded).status).toBe('Current')
    const hasOnMissing = compileFluxHealthCheck(entry({ current: 'has(status.phase)' }))
    expect(hasOnMissing(testObject(undefined)).status).toBe('Unknown')
    expect(hasOnMissing(testObject(null))).toEqual({
      status: 'InProgress',
      decidedBy: 'nothing-true'
    })
  })

  it('confirms the documented fixes for case g (health-rules.md §0.2)', () => {
    const [shipped] = readHealthCheckEntries(readRepoFile(FLUX_CHECK_PATH))
    const caseA = HEALTH_CASES.find((c) => c.id === 'a')!.object
    const caseG = HEALTH_CASES.find((c) => c.id === 'g')!.object
    const caseE = HEALTH_CASES.find((c) => c.id === 'e')!.object
    for (const conditions of [
      'has(status.conditions) && status.conditions',
      'status.?conditions.orValue([])'
    ]) {
      const fixed = compileFluxHealthCheck({
        ...shipped,
        current: shipped.current.replace('status.conditions', conditions)
      })
      expect(fixed(caseG)).toEqual({ status: 'InProgress', decidedBy: 'nothing-true' })
      expect(fixed(caseA).status).toBe('Unknown')
      expect(fixed(caseE).status).toBe('Current')
    }
  })
})
