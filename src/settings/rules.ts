// The small rules that inputs share: one reader that collects every error with the input's name and
// the broken rule, and never shows the value of a secret input. Pure.
import { isAlias, isMap, isScalar, parseDocument, type Document, type Scalar } from 'yaml'
import type { NameValue } from '../objects/coder-k8s.js'

export interface InputError<Name extends string = string> {
  input: Name
  message: string
}

export class InputReader<Name extends string> {
  readonly errors: InputError<Name>[] = []

  constructor(
    private readonly read: (name: Name) => string,
    private readonly secrets: readonly Name[]
  ) {}

  raw(input: Name): string {
    return this.read(input).trim()
  }

  /**
   * Records `Input "<name>" "<value>" is invalid: <rule>.`. The value is shown only when it is short,
   * on one line and not a secret: a long or multi-line value would bury the rule.
   */
  fail(input: Name, rule: string, options: { hideValue?: boolean } = {}): void {
    const value = this.raw(input)
    const hidden =
      options.hideValue ||
      this.secrets.includes(input) ||
      value.length > SHOWN_VALUE_MAX ||
      /[\r\n]/.test(value)
    const shown = hidden ? '' : ` ${JSON.stringify(value)}`
    this.errors.push({ input, message: `Input "${input}"${shown} is invalid: ${rule}.` })
  }

  /** `when` says why an otherwise optional input is needed, e.g. `when comment-on-pr is "true"`. */
  required(input: Name, when = ''): string {
    const value = this.raw(input)
    const why = when ? ` ${when}` : ''
    if (!value)
      this.errors.push({ input, message: `Input "${input}" is required${why} and was empty.` })
    return value
  }

  integer(input: Name, fallback: string, min: number, max: number): number {
    const text = this.raw(input) || fallback
    const value = /^\d+$/.test(text) ? Number(text) : NaN
    if (Number.isSafeInteger(value) && value >= min && value <= max) return value
    this.fail(input, `must be a whole number from ${min} to ${max}`)
    return min
  }

  /** Exactly one of `choices`; '' gives the fallback. */
  choice<T extends string>(input: Name, fallback: T, choices: readonly T[]): T {
    const text = this.raw(input) || fallback
    if ((choices as readonly string[]).includes(text)) return text as T
    this.fail(input, `must be ${orList(choices.map((c) => `"${c}"`))}`)
    return fallback
  }

  boolean(input: Name, fallback: 'true' | 'false'): boolean {
    return this.choice(input, fallback, ['true', 'false']) === 'true'
  }

  /** Multiline NAME=VALUE: blank lines are skipped, names must be non-empty and unique. */
  nameValues(input: Name): NameValue[] {
    const entries: NameValue[] = []
    const seen = new Set<string>()
    this.raw(input)
      .split(/\r?\n/)
      .forEach((line, index) => {
        if (!line.trim()) return
        const equals = line.indexOf('=')
        const name = (equals < 0 ? line : line.slice(0, equals)).trim()
        const problem =
          equals < 0
            ? 'expected NAME=VALUE'
            : !name
              ? 'the name before "=" is empty'
              : seen.has(name)
                ? `the name "${name}" is given twice`
                : null
        if (problem) {
          this.errors.push({
            input,
            message: `Input "${input}" line ${index + 1} is invalid: ${problem}.`
          })
          return
        }
        seen.add(name)
        entries.push({ name, value: line.slice(equals + 1).trim() })
      })
    return entries
  }

  /** Comma- or newline-separated items, trimmed, blanks dropped. */
  list(input: Name): string[] {
    return this.raw(input)
      .split(/[,\r\n]/)
      .map((item) => item.trim())
      .filter((item) => item !== '')
  }
}

/** Longer values are left out of an error message. */
const SHOWN_VALUE_MAX = 100

function orList(items: string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`
}

const CREDENTIALS_RULE =
  'must not contain credentials (user:password@); pass the session token as coder-token'

/** The rule a URL input breaks, or null. Credentials come first: that error never shows the value. */
export function urlProblem(text: string): string | null {
  if (userInfoOf(text) !== null) return CREDENTIALS_RULE
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'must be an http:// or https:// URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'must be an http:// or https:// URL'
  }
  // WHATWG may still find a user in a form the pattern below does not (belt and braces).
  if (url.username || url.password) return CREDENTIALS_RULE
  return null
}

/**
 * The `user:password` before the host, also where WHATWG would not parse the text at all
 * (`user:pass@host` without a scheme, or no host after the `@`). The last `@` of the authority
 * ends it, as in WHATWG.
 */
function userInfoOf(text: string): string | null {
  // WHATWG reads `\` as `/` in http(s) URLs and needs no `//` after them.
  const afterScheme = text.trim().replace(/^[a-z][a-z0-9+.-]*:[/\\]*/i, '')
  const authority = afterScheme.split(/[/\\?#]/, 1)[0] ?? ''
  const at = authority.lastIndexOf('@')
  return at < 0 ? null : authority.slice(0, at)
}

/** The password and user of a URL, as written and decoded, so that they can be masked at once. */
export function urlCredentials(text: string): string[] {
  const userInfo = userInfoOf(text)
  if (userInfo === null) return []
  const colon = userInfo.indexOf(':')
  const parts = colon < 0 ? [userInfo] : [userInfo.slice(colon + 1), userInfo.slice(0, colon)]
  const decoded = parts.map((part) => {
    try {
      return decodeURIComponent(part)
    } catch {
      return part
    }
  })
  return [...new Set([...parts, ...decoded])].filter((part) => part.length > 0)
}

/** git check-ref-format, the parts that matter for a branch name. */
export function isGitBranchName(name: string): boolean {
  return (
    // eslint-disable-next-line no-control-regex -- git refuses control characters in ref names
    !/[\s~^:?*[\\\x00-\x1f\x7f]/.test(name) &&
    !name.includes('..') &&
    !name.includes('@{') &&
    !name.startsWith('/') &&
    !name.endsWith('/') &&
    !name.endsWith('.') &&
    !name.endsWith('.lock') &&
    !name.includes('//') &&
    name !== '@' &&
    !name.split('/').some((part) => part.startsWith('.'))
  )
}

/** '' gives the default; returns null when the path is absolute or climbs out with "..". */
export function normaliseRelativePath(text: string, fallback: string): string | null {
  const value = text || fallback
  if (value.startsWith('/') || value.includes('\\') || /^[A-Za-z]:/.test(value)) return null
  const parts = value.split('/').filter((part) => part !== '' && part !== '.')
  if (parts.some((part) => part === '..')) return null
  return parts.join('/')
}

/**
 * GitHub label names: at most 50 characters (guess: the limit GitHub's label form enforces; the
 * REST API answers 422 "Validation Failed" above it), and not only blanks. A comma cannot be
 * given: the input splits on it.
 */
export const LABEL_MAX = 50

export function labelProblem(label: string): string | null {
  const characters = [...label]
  if (characters.length > LABEL_MAX) {
    const start = characters.slice(0, 20).join('')
    return `the label "${start}…" is longer than ${LABEL_MAX} characters`
  }
  // eslint-disable-next-line no-control-regex -- GitHub refuses control characters in names
  if (/[\x00-\x1f\x7f]/.test(label))
    return `the label ${JSON.stringify(label)} holds a control character`
  return null
}

/**
 * A variables file in the CLI's format: the CLI reads it into a Go map[string]string (yaml.v3),
 * so every scalar is taken as written (`1.10` stays "1.10", `0x1F` and `True` stay as they are) and
 * null is ''. Returns the entries, or the broken rule; values never appear in it (secrets).
 */
export function parseVariablesYaml(text: string): NameValue[] | string {
  const doc = parseDocument(text, { uniqueKeys: true })
  if (doc.errors.length > 0) return 'must be YAML (a map of variable names to values)'
  if (doc.contents === null) return []
  if (!isMap(doc.contents)) return 'must be a YAML map of variable names to values'
  const entries: NameValue[] = []
  for (const pair of doc.contents.items) {
    const key = scalarOf(doc, pair.key)
    const name = key === null ? null : scalarText(key)
    if (!name) return 'every variable name must be a non-empty string'
    const value = scalarOf(doc, pair.value)
    if (value === null && pair.value !== null) {
      return `the value of "${name}" must be a string, a number or a boolean`
    }
    entries.push({ name, value: value === null ? '' : scalarText(value) })
  }
  return entries
}

/** The scalar behind a node (through an alias), or null when it is none. */
function scalarOf(doc: Document, node: unknown): Scalar | null {
  const target = isAlias(node) ? node.resolve(doc) : node
  return isScalar(target) ? target : null
}

function scalarText(scalar: Scalar): string {
  if (scalar.value === null) return ''
  return scalar.source ?? String(scalar.value)
}
