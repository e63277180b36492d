// Field and label selectors as the API server parses them (equality-based, plus label existence).
import { badRequest } from './status.js'

export interface Requirement {
  key: string
  op: '=' | '!=' | 'exists' | '!exists' | 'in' | 'notin'
  values: string[]
}

export type Selector = Requirement[]

/** Splits on commas outside parentheses. */
function terms(text: string): string[] {
  const out: string[] = []
  let depth = 0
  let current = ''
  for (const ch of text) {
    if (ch === '(') depth += 1
    if (ch === ')') depth -= 1
    if (ch === ',' && depth === 0) {
      out.push(current)
      current = ''
    } else current += ch
  }
  if (current.trim()) out.push(current)
  return out.map((t) => t.trim()).filter(Boolean)
}

export function parseLabelSelector(text: string | null): Selector {
  if (!text) return []
  return terms(text).map((term) => {
    const set = /^(\S+)\s+(in|notin)\s+\((.*)\)$/.exec(term)
    if (set)
      return {
        key: set[1],
        op: set[2] as 'in' | 'notin',
        values: set[3].split(',').map((v) => v.trim())
      }
    const eq = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term)
    if (eq) return { key: eq[1], op: eq[2] === '!=' ? '!=' : '=', values: [eq[3]] }
    if (/^![^!=\s]+$/.test(term)) return { key: term.slice(1), op: '!exists', values: [] }
    if (/^[^!=\s()]+$/.test(term)) return { key: term, op: 'exists', values: [] }
    throw badRequest(`unable to parse requirement: ${JSON.stringify(term)}`)
  })
}

/** fieldSelector: only `=`, `==` and `!=`; `allowed` lists the supported field labels. */
export function parseFieldSelector(text: string | null, allowed: string[]): Selector {
  if (!text) return []
  return terms(text).map((term) => {
    const eq = /^([^!=]+)(==|=|!=)(.*)$/.exec(term)
    if (!eq) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`)
    const key = eq[1].trim()
    if (!allowed.includes(key)) throw badRequest(`field label not supported: ${key}`)
    return { key, op: eq[2] === '!=' ? '!=' : '=', values: [eq[3].trim()] }
  })
}

export function matches(selector: Selector, values: Record<string, string | undefined>): boolean {
  return selector.every((r) => {
    const value = values[r.key]
    switch (r.op) {
      case '=':
        return value === r.values[0]
      case '!=':
        return value !== r.values[0]
      case 'exists':
        return value !== undefined
      case '!exists':
        return value === undefined
      case 'in':
        return value !== undefined && r.values.includes(value)
      case 'notin':
        return value === undefined || !r.values.includes(value)
    }
    return false
  })
}

/** The value an `=` requirement pins for `key`, if any. */
export function pinned(selector: Selector, key: string): string | undefined {
  return selector.find((r) => r.key === key && r.op === '=')?.values[0]
}
