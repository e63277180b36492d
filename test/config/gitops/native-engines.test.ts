// The engines that Argo CD and Flux themselves run, next to the JavaScript stand-ins:
// gopher-lua (built by test/go/engines.ts) next to fengari, and @bufbuild/cel next to
// @marcbachmann/cel-js. Facts: argo-cd util/lua/lua.go, fluxcd/pkg runtime/cel/expression.go.
import { describe, it, expect } from '@jest/globals'
import { describeWithGo } from '../../go/engines.js'
import { INVALID_HEALTH_STATUS, runArgoHealthScript } from './argo-lua.js'
import { BUFBUILD_CEL } from './flux-bufbuild.js'
import { compileFluxHealthCheck, MARCBACHMANN_CEL } from './flux-cel.js'
import type { FluxHealthCheckEntry } from './flux-cel.js'
import { testObject } from './fixtures.js'

// The same probes in gopher-lua, the VM of Argo CD itself, and in fengari: both give the result
// that Argo CD's util/lua/lua.go gives.
const VM_PROBES: { title: string; script: string; obj?: unknown; expected: object }[] = [
  {
    title: 'only base, table, package and a safe os are open',
    script:
      'return { status = "Healthy", message = type(string) .. type(math) .. type(io) .. ' +
      'type(debug) .. type(coroutine) .. type(table.insert) .. type(package.loaded) .. type(ipairs) }',
    expected: { status: 'Healthy', message: 'nilnilnilnilnilfunctiontablefunction' }
  },
  {
    title: 'os keeps only time and date, also through require("os")',
    script:
      'return { status = "Healthy", message = type(os.time) .. type(os.date) .. type(os.getenv) .. ' +
      'type(os.exit) .. type(require("os").execute) .. type(require("os").time) }',
    expected: { status: 'Healthy', message: 'functionfunctionnilnilnilfunction' }
  },
  {
    title: 'null values and null array elements are absent from obj',
    script:
      'return { status = "Healthy", message = tostring(obj.a == nil) .. #obj.list .. obj.list[2] .. obj.nested.c }',
    obj: { a: null, list: ['x', null, 'z'], nested: { b: null, c: 'c' } },
    expected: { status: 'Healthy', message: 'true2zc' }
  },
  {
    title: 'numbers compare as float64',
    script:
      'return { status = "Healthy", message = tostring(obj.big == 2147483648) .. ' +
      'tostring(obj.huge == 1000000000000000) .. tostring(obj.small == 3.0) .. tostring(obj.fraction * 2 == 1) }',
    obj: { big: 2 ** 31, huge: 1e15, small: 3, fraction: 0.5 },
    expected: { status: 'Healthy', message: 'truetruetruetrue' }
  },
  {
    title: 'only status and message of the returned table are kept',
    script: 'return { status = "Degraded", message = "m", deletionMessage = "d", extra = 1 }',
    expected: { status: 'Degraded', message: 'm' }
  },
  {
    title: 'field names match case-insensitively, as Go encoding/json matches them',
    script: 'return { Status = "Degraded", MESSAGE = "m" }',
    expected: { status: 'Degraded', message: 'm' }
  },
  {
    title: 'of two keys for one field, the later in sorted order wins',
    script: 'return { statuS = "Progressing", status = "Healthy" }',
    expected: { status: 'Healthy' }
  },
  {
    title: 'a status of the wrong case is invalid',
    script: 'return { status = "healthy" }',
    expected: { status: 'Unknown', message: INVALID_HEALTH_STATUS }
  },
  {
    title: 'a missing status is invalid',
    script: 'return { message = "no status" }',
    expected: { status: 'Unknown', message: INVALID_HEALTH_STATUS }
  },
  { title: 'nil is an empty status', script: 'return nil', expected: {} },
  { title: 'an empty table is an empty status', script: 'return {}', expected: {} },
  {
    title: 'a string result is refused',
    script: 'return "Healthy"',
    expected: { status: 'Unknown', message: 'expect table output from Lua script, not string' }
  }
]

const FAILING_PROBES = [
  ['a string method without the string library', 'return { status = ("x"):upper() }'],
  ['a runtime error', 'return obj.metadata.name'],
  ['Lua 5.3 floor division', 'return { status = "Healthy", message = 7 // 2 }'],
  ['a script that never ends (stopped after one second)', 'while true do end']
]

describeWithGo('gopher-lua set up like Argo CD, next to fengari', (go) => {
  const probeResults = go.runLua(VM_PROBES.map((p) => ({ script: p.script, obj: p.obj ?? {} })))
  it.each(VM_PROBES.map((p, index) => [p.title, p, probeResults[index]] as const))(
    '%s',
    (_title, p, goResult) => {
      expect(goResult).toEqual(p.expected)
      expect(runArgoHealthScript(p.script, p.obj ?? {})).toEqual(p.expected)
    }
  )

  const failingResults = go.runLua(FAILING_PROBES.map(([, script]) => ({ script, obj: {} })))
  it.each(FAILING_PROBES.map(([title, script], index) => [title, script, failingResults[index]]))(
    'reports %s as Unknown with its error',
    (_title, script, goResult) => {
      expect(goResult).toEqual({ status: 'Unknown', message: expect.any(String) })
      expect(goResult).not.toHaveProperty('message', expect.stringContaining('stack traceback'))
      expect(runArgoHealthScript(script as string, {}).status).toBe('Unknown')
    }
  )

  it('fails on string methods with the error text of Argo CD (health-rules.md §1.2)', () => {
    expect(failingResults[0].message).toContain('attempt to index a non-table object(string)')
  })

  it('prints integral JSON numbers as integers, as gopher-lua does (health-rules.md §1.3)', () => {
    const [printed] = go.runLua([
      { script: 'return { status = "Healthy", message = tostring(obj.n) }', obj: { n: 1e15 } }
    ])
    expect(printed.message).toBe('1000000000000000')
  })

  it('runs on the Go toolchain it was built with', () => {
    expect(go.goVersion).toMatch(/^go1\.\d+/)
  })
})

describe.each([MARCBACHMANN_CEL, BUFBUILD_CEL])('$name evaluates like cel-go', (engine) => {
  const entry = (fields: Partial<FluxHealthCheckEntry>): FluxHealthCheckEntry => ({
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTest',
    current: 'false',
    ...fields
  })
  const succeeded = testObject({ observedGeneration: 3, phase: 'Succeeded' })
  const statusOf = (fields: Partial<FluxHealthCheckEntry>, obj: unknown) =>
    compileFluxHealthCheck(entry(fields), engine)(obj).status

  it.each<[string, Partial<FluxHealthCheckEntry>, unknown, string]>([
    [
      'JSON integers are CEL int',
      { current: 'type(metadata.generation) == int' },
      succeeded,
      'Current'
    ],
    ['error || true is true', { current: "status.nope == 'x' || true" }, succeeded, 'Current'],
    ['false && error is false', { failed: "false && status.nope == 'x'" }, succeeded, 'InProgress'],
    ['a missing field is an error', { failed: 'status.nope' }, succeeded, 'Unknown'],
    ['a non-bool result is Unknown', { current: 'status.phase' }, succeeded, 'Unknown'],
    [
      'has() on a missing variable is an error',
      { current: 'has(status.phase)' },
      testObject(undefined),
      'Unknown'
    ],
    ['has() under null is false', { current: 'has(status.phase)' }, testObject(null), 'InProgress'],
    ['in on a mixed list', { current: "status.phase in ['Succeeded', 1]" }, succeeded, 'Current'],
    [
      'exists() over a list',
      { current: "[{'t': 'R'}].exists(c, c.t == 'R')" },
      succeeded,
      'Current'
    ]
  ])('%s', (_title, fields, obj, expected) => {
    expect(statusOf(fields, obj)).toBe(expected)
  })

  it('refuses an expression that does not parse', () => {
    expect(() => compileFluxHealthCheck(entry({ current: 'status.phase ==' }), engine)).toThrow()
  })
})
