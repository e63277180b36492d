// The fixture table must notice a one-character change of either rule: every mutant of a string,
// a name or an operator must change at least one result (or stop the rule from parsing).
// Comments are not mutated; the docs test and the spec test pin their text.
import { describe, it, expect } from '@jest/globals'
import luaparse from 'luaparse'
import type { LuaNode } from 'luaparse'
import { describeWithGo } from '../../go/engines.js'
import type { GoEngines } from '../../go/engines.js'
import { assertLua51, controllerView, runArgoHealthScript } from './argo-lua.js'
import type { ArgoHealth } from './argo-lua.js'
import { BUFBUILD_CEL } from './flux-bufbuild.js'
import { compileFluxHealthCheck, MARCBACHMANN_CEL, readHealthCheckEntries } from './flux-cel.js'
import type { CelEngine, FluxHealthCheckEntry } from './flux-cel.js'
import { HEALTH_CASES } from './fixtures.js'
import { ARGO_SCRIPT_PATH, FLUX_CHECK_PATH, readRepoFile } from './paths.js'

interface Mutant {
  description: string
  source: string
}

/** One character changed: the case of a letter flipped, or another character put in. */
function mutateText(text: string, at: number): string {
  const char = text[at]
  const flipped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()
  return text.slice(0, at) + (flipped === char ? 'x' : flipped) + text.slice(at + 1)
}

function replaceRange(source: string, start: number, end: number, text: string): string {
  return source.slice(0, start) + text + source.slice(end)
}

const LUA_OPERATOR_SWAPS: Record<string, string> = { '==': '~=', '~=': '==', and: 'or', or: 'and' }

// Every string literal, name and comparison or logical operator of the Lua script.
function luaMutants(source: string): Mutant[] {
  const mutants: Mutant[] = []
  const add = (description: string, mutated: string) =>
    mutants.push({ description, source: mutated })
  luaparse.parse(source, {
    luaVersion: '5.1',
    ranges: true,
    onCreateNode: (node: LuaNode) => {
      const [start, end] = node.range ?? [0, 0]
      const text = source.slice(start, end)
      if (node.type === 'StringLiteral' && end - start > 2) {
        add(
          `string ${text} at ${start}`,
          replaceRange(source, start + 1, end - 1, mutateText(text.slice(1, -1), 0))
        )
      } else if (node.type === 'Identifier') {
        add(
          `name ${text} at ${start}`,
          replaceRange(source, start, end, mutateText(text, text.length - 1))
        )
      } else if (node.type === 'BinaryExpression' || node.type === 'LogicalExpression') {
        const operator = node.operator as string
        const swap = LUA_OPERATOR_SWAPS[operator]
        const left = node.left as LuaNode
        if (swap === undefined || left.range === undefined) return
        const at = source.indexOf(operator, left.range[1])
        add(`operator ${operator} at ${at}`, replaceRange(source, at, at + operator.length, swap))
      }
    }
  })
  return mutants
}

const CEL_TOKENS = /'[^']*'|[A-Za-z_]\w*|==|!=|\|\||&&|!/g
const CEL_OPERATOR_SWAPS: Record<string, string> = {
  '==': '!=',
  '!=': '==',
  '||': '&&',
  '&&': '||',
  '!': ''
}

// Every string literal, name and operator of one CEL expression.
function celMutants(expression: string): Mutant[] {
  return [...expression.matchAll(CEL_TOKENS)].map((match) => {
    const token = match[0]
    const start = match.index
    const end = start + token.length
    let replacement: string
    if (token.startsWith("'")) replacement = `'${mutateText(token.slice(1, -1), 0)}'`
    else if (token in CEL_OPERATOR_SWAPS) replacement = CEL_OPERATOR_SWAPS[token]
    else replacement = mutateText(token, token.length - 1)
    return {
      description: `${token} at ${start} -> ${replacement || '(removed)'}`,
      source: replaceRange(expression, start, end, replacement)
    }
  })
}

/** Runs each script over every fixture: results[script][case]. */
type LuaEngine = (scripts: string[]) => ArgoHealth[][]

const fengari: LuaEngine = (scripts) =>
  scripts.map((script) => HEALTH_CASES.map((c) => runArgoHealthScript(script, c.object)))

// One Go process for all scripts: gopher-lua, the VM of Argo CD.
function gopherLua(go: GoEngines): LuaEngine {
  return (scripts) => {
    const requests = scripts.flatMap((script) =>
      HEALTH_CASES.map((c) => ({ script, obj: c.object }))
    )
    const results = go.runLua(requests)
    return scripts.map((_, at) =>
      results.slice(at * HEALTH_CASES.length, (at + 1) * HEALTH_CASES.length)
    )
  }
}

// The script's result and what the controller shows, for every fixture.
function fingerprint(results: ArgoHealth[]): string {
  return JSON.stringify(results.map((r, at) => [r, controllerView(HEALTH_CASES[at].object, r)]))
}

/**
 * The descriptions of the mutants that leave every result unchanged. With a syntax check, mutants
 * that are not Lua 5.1 count as noticed (fengari alone would accept some 5.3 syntax); gopher-lua
 * needs none: it refuses them itself.
 */
function argoSurvivors(engine: LuaEngine, syntaxCheck?: (source: string) => void): string[] {
  const script = readRepoFile(ARGO_SCRIPT_PATH)
  const mutants = luaMutants(script).filter((mutant) => {
    try {
      syntaxCheck?.(mutant.source)
      return true
    } catch {
      return false
    }
  })
  expect(mutants.length).toBeGreaterThan(40)
  const [baseline, ...results] = engine([script, ...mutants.map((m) => m.source)]).map(fingerprint)
  return mutants.filter((_, at) => results[at] === baseline).map((m) => m.description)
}

/**
 * Mutants that change nothing in Argo CD, so that no fixture can notice them:
 * - the loop variable `_` is never read;
 * - a case flip of the key `status` or `message` in the table constructor: Argo CD decodes the
 *   result with Go's encoding/json, which matches field names case-insensitively, and the
 *   later assignments (`hs.status`, `hs.message`) sort after the flipped key, so they still win.
 */
function unexpectedSurvivors(survivors: string[]): string[] {
  const script = readRepoFile(ARGO_SCRIPT_PATH)
  const constructor = script.indexOf('{ status = ')
  const equivalent = [
    `name status at ${constructor + 2}`,
    `name message at ${script.indexOf('message = ', constructor)}`
  ]
  expect(constructor).toBeGreaterThan(0)
  return survivors.filter((s) => !s.startsWith('name _ at ') && !equivalent.includes(s))
}

function fluxResults(entry: FluxHealthCheckEntry, engine: CelEngine): string {
  const check = compileFluxHealthCheck(entry, engine)
  return JSON.stringify(
    HEALTH_CASES.map((c) => {
      const { status, decidedBy } = check(c.object)
      return [status, decidedBy]
    })
  )
}

describe('fixture sensitivity to one-character changes', () => {
  it('notices every mutant of the Argo CD script in fengari', () => {
    expect(unexpectedSurvivors(argoSurvivors(fengari, assertLua51))).toEqual([])
  })

  it.each([MARCBACHMANN_CEL, BUFBUILD_CEL])(
    'notices every mutant of the Flux expressions in $name',
    (engine) => {
      const [entry] = readHealthCheckEntries(readRepoFile(FLUX_CHECK_PATH))
      const baseline = fluxResults(entry, engine)
      const survivors: string[] = []
      let count = 0
      for (const name of ['inProgress', 'failed', 'current'] as const) {
        for (const mutant of celMutants(entry[name] ?? '')) {
          count += 1
          let results: string
          try {
            results = fluxResults({ ...entry, [name]: mutant.source }, engine)
          } catch {
            continue // does not parse: Flux would stall the Kustomization
          }
          if (results === baseline) survivors.push(`${name}: ${mutant.description}`)
        }
      }
      expect(count).toBeGreaterThan(40)
      expect(survivors).toEqual([])
    }
  )
})

describeWithGo('fixture sensitivity to one-character changes, in gopher-lua', (go) => {
  it('notices every mutant of the Argo CD script', () => {
    expect(unexpectedSurvivors(argoSurvivors(gopherLua(go)))).toEqual([])
  })
})
