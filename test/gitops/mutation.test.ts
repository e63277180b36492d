// The fixture table must notice a one-character change of either rule: every mutant of a string,
// a name or an operator must change at least one result (or stop the rule from parsing).
// Comments are not mutated; the docs test and the spec test pin their text.
import { describe, it, expect } from '@jest/globals'
import luaparse from 'luaparse'
import type { LuaNode } from 'luaparse'
import { argoControllerHealth, assertLua51, runArgoHealthScript } from './argo-lua.js'
import { compileFluxHealthCheck, readHealthCheckEntries } from './flux-cel.js'
import type { FluxHealthCheckEntry } from './flux-cel.js'
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

function argoResults(script: string): string {
  return JSON.stringify(
    HEALTH_CASES.map((c) => [
      runArgoHealthScript(script, c.object),
      argoControllerHealth(script, c.object)
    ])
  )
}

function fluxResults(entry: FluxHealthCheckEntry): string {
  const check = compileFluxHealthCheck(entry)
  return JSON.stringify(
    HEALTH_CASES.map((c) => {
      const { status, decidedBy } = check(c.object)
      return [status, decidedBy]
    })
  )
}

describe('fixture sensitivity to one-character changes', () => {
  it('notices every mutant of the Argo CD script', () => {
    const script = readRepoFile(ARGO_SCRIPT_PATH)
    const baseline = argoResults(script)
    const mutants = luaMutants(script)
    expect(mutants.length).toBeGreaterThan(40)
    const survivors = mutants.filter((mutant) => {
      try {
        assertLua51(mutant.source)
      } catch {
        return false
      }
      return argoResults(mutant.source) === baseline
    })
    // The loop variable `_` is never read, so renaming it changes nothing.
    const unexpected = survivors.filter((s) => !s.description.startsWith('name _ at '))
    expect(unexpected.map((s) => s.description)).toEqual([])
  })

  it('notices every mutant of the Flux expressions', () => {
    const [entry] = readHealthCheckEntries(readRepoFile(FLUX_CHECK_PATH))
    const baseline = fluxResults(entry)
    const survivors: string[] = []
    let count = 0
    for (const name of ['inProgress', 'failed', 'current'] as const) {
      for (const mutant of celMutants(entry[name] ?? '')) {
        count += 1
        let results: string
        try {
          results = fluxResults({ ...entry, [name]: mutant.source })
        } catch {
          continue // does not parse: Flux would stall the Kustomization
        }
        if (results === baseline) survivors.push(`${name}: ${mutant.description}`)
      }
    }
    expect(count).toBeGreaterThan(40)
    expect(survivors).toEqual([])
  })
})
