// The official API descriptions, loaded once, and the check of one recorded exchange (method,
// path, query, body, status, answer) against them: the operation must exist, its path and query
// parameters must be declared and valid, the body must match the requestBody, the answer the
// response schema of its status.
// GitHub: @octokit/openapi's api.github.com.json (OpenAPI 3.0.3). Coder: the Swagger 2.0 subset
// in /work/shared/reference/coder-api-subset.json (coder-api-subset.md lists where coderd differs).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { RecordedRequest } from '../sandbox/contracts.js'

type Json = Record<string, unknown>
type Kind = 'openapi3' | 'swagger2'

export interface Description {
  name: string
  kind: Kind
  doc: Json
  /** The prefix the server puts before the described paths ('/api/v2' for Coder). */
  basePath: string
  /** Path parameters whose declared format the server does not hold to (documented differences). */
  relaxedPathParams?: string[]
  /** The error body, for error statuses the description leaves out. */
  errorSchema: string
  ajv: Ajv
}

const require = createRequire(import.meta.url)
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

export const CODER_SUBSET =
  process.env.CODER_API_SUBSET ?? '/work/shared/reference/coder-api-subset.json'

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema: anyOf the schema or null. Ajv's own `nullable`
 * support refuses it next to `allOf`/`$ref` without a `type`, and GitHub's description has those.
 */
function withNullables(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNullables)
  if (!node || typeof node !== 'object') return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node as Json)) out[key] = withNullables(value)
  if (out.nullable !== true) return out
  delete out.nullable
  return { anyOf: [out, { type: 'null' }] }
}

/**
 * The description for answers: `required` dropped. The sandbox leaves out many documented fields
 * the gate never reads (the `*_url` family, `_links`, counts); a read of an absent field fails the
 * gate's own tests, while a present field of the wrong type, format, enum or nullability, which
 * would hide a bug, is still caught.
 */
function withoutRequired(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutRequired)
  if (!node || typeof node !== 'object') return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === 'required' && Array.isArray(value)) continue
    out[key] = withoutRequired(value)
  }
  return out
}

function makeAjv(): Ajv {
  // strict off: descriptions carry `example`, `x-github`, `discriminator` and formats such as
  // `repo.nwo` that are documentation, not constraints.
  const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true, logger: false })
  addFormats(ajv)
  return ajv
}

/**
 * GitHub's description; given the exchanges to check, cut down to their operations and the
 * components these reach (13 MB whole: compiling the cut one takes a fraction of the time).
 */
export function loadGitHubDescription(exchanges?: RecordedRequest[]): Description {
  const file = path.join(
    path.dirname(require.resolve('@octokit/openapi/package.json')),
    'generated/api.github.com.json'
  )
  const whole = JSON.parse(readFileSync(file, 'utf8')) as Json
  const doc = withNullables(exchanges ? cutDown(whole, exchanges) : whole) as Json
  const ajv = makeAjv()
  ajv.addSchema(doc, 'github')
  ajv.addSchema(withoutRequired(doc) as Json, 'github-answers')
  return {
    name: 'github',
    kind: 'openapi3',
    doc,
    basePath: '',
    errorSchema: pointer('components', 'schemas', 'basic-error'),
    ajv
  }
}

/** The operations of these exchanges, and every component they reach through $ref. */
function cutDown(whole: Json, exchanges: RecordedRequest[]): Json {
  const lookup = { name: 'github', basePath: '', doc: whole } as Description
  const paths: Record<string, Json> = {}
  for (const rec of exchanges) {
    const found = findOperation(lookup, rec.method, describedPath(lookup, rec.path))
    if (!found) continue
    const item = (paths[found.template] ??= {})
    const wholeItem = (whole.paths as Record<string, Json>)[found.template]
    if (wholeItem.parameters) item.parameters = wholeItem.parameters
    item[rec.method.toLowerCase()] = found.operation
  }
  const source = whole.components as Record<string, Json>
  const components: Record<string, Json> = {}
  const pending: unknown[] = [paths, source.schemas['basic-error']]
  components.schemas = { 'basic-error': source.schemas['basic-error'] }
  while (pending.length > 0) {
    const node = pending.pop()
    if (!node || typeof node !== 'object') continue
    for (const [key, value] of Object.entries(node as Json)) {
      const ref =
        key === '$ref' && typeof value === 'string'
          ? /^#\/components\/([^/]+)\/(.+)$/.exec(value)
          : null
      if (ref) {
        const [, kind, name] = ref
        const copied = (components[kind] ??= {})
        if (!(name in copied)) pending.push((copied[name] = source[kind][name]))
      } else pending.push(value)
    }
  }
  return { ...whole, paths, components }
}

export function loadCoderDescription(): Description {
  const doc = JSON.parse(readFileSync(CODER_SUBSET, 'utf8')) as Json
  const ajv = makeAjv()
  // codersdk.Template's organization_name carries `format: url` (a Go struct tag on a name, which
  // coderd fills with the organization's name): not a URL, so not checked.
  ajv.addFormat('url', true)
  ajv.addSchema(doc, 'coder')
  ajv.addSchema(withoutRequired(doc) as Json, 'coder-answers')
  // coder-api-subset.md: `{organization}` is typed as a UUID, but coderd also takes the name.
  return {
    name: 'coder',
    kind: 'swagger2',
    doc,
    basePath: '/api/v2',
    errorSchema: pointer('definitions', 'codersdk.Response'),
    relaxedPathParams: ['organization'],
    ajv
  }
}

/** A JSON pointer into the description, for $ref and for compiled schemas. */
function pointer(...parts: string[]): string {
  return '#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')
}

function resolve(desc: Description, node: unknown): Json {
  let current = node as Json
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 10; hops++) {
    const parts = (current.$ref as string).replace(/^#\//, '').split('/')
    current = parts.reduce<unknown>(
      (at, part) => (at as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')],
      desc.doc
    ) as Json
  }
  return current
}

const compiled = new WeakMap<Description, Map<string, ValidateFunction>>()

/** A validator of the schema at `ref` (a pointer into the description). */
function validator(desc: Description, id: string, ref: string): ValidateFunction {
  let cache = compiled.get(desc)
  if (!cache) compiled.set(desc, (cache = new Map()))
  let validate = cache.get(id + ref)
  if (!validate) cache.set(id + ref, (validate = desc.ajv.compile({ $ref: `${id}${ref}` })))
  return validate
}

function problemsOf(desc: Description, ref: string, value: unknown, what: string): string[] {
  const id = what === 'answer' ? `${desc.name}-answers` : desc.name
  const validate = validator(desc, id, ref)
  if (validate(value)) return []
  return (validate.errors ?? []).map(
    (e) => `${what}${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`
  )
}

interface Operation {
  template: string
  pathRef: string[]
  params: Record<string, string>
  operation: Json
  pathItem: Json
}

/** The described operation of a method and path; the most literal template wins. */
export function findOperation(desc: Description, method: string, pathname: string) {
  const paths = desc.doc.paths as Record<string, Json>
  let best: Operation | null = null
  let bestScore = -1
  for (const [template, pathItem] of Object.entries(paths)) {
    const operation = pathItem[method.toLowerCase()] as Json | undefined
    if (!operation) continue
    const names: string[] = []
    const source = template
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{(\w+)\}/g, (_all, name: string) => {
        names.push(name)
        return multiSegment(desc, pathItem, operation, name) ? '(.+)' : '([^/]+)'
      })
    const found = new RegExp(`^${source}$`).exec(pathname)
    if (!found) continue
    const score = template.replace(/\{\w+\}/g, '').length
    if (score <= bestScore) continue
    const params: Record<string, string> = {}
    names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1])))
    best = {
      template,
      pathRef: ['paths', template, method.toLowerCase()],
      params,
      operation,
      pathItem
    }
    bestScore = score
  }
  return best
}

function multiSegment(desc: Description, pathItem: Json, operation: Json, name: string): boolean {
  return parametersOf(desc, pathItem, operation).some(
    (p) => p.param.name === name && p.param['x-multi-segment'] === true
  )
}

/** Declared parameters with the pointer of each (resolved through $ref). */
function parametersOf(desc: Description, pathItem: Json, operation: Json) {
  const declared = [
    ...((pathItem.parameters as unknown[]) ?? []),
    ...((operation.parameters as unknown[]) ?? [])
  ]
  return declared.map((raw) => ({ param: resolve(desc, raw), raw: raw as Json }))
}

/** The path as the description writes it: without the GHES prefix /api/v3 or the basePath. */
function describedPath(desc: Description, recorded: string): string {
  let pathname = new URL(recorded, 'http://sandbox').pathname
  if (desc.name === 'github' && pathname.startsWith('/api/v3/')) pathname = pathname.slice(7)
  return desc.basePath ? pathname.slice(desc.basePath.length) : pathname
}

/** Everything wrong with one recorded exchange, as readable lines (empty: it matches). */
export function checkExchange(desc: Description, rec: RecordedRequest): string[] {
  const url = new URL(rec.path, 'http://sandbox')
  const pathname = describedPath(desc, rec.path)
  const where = `${rec.method} ${rec.path} (${rec.status})`
  const found = findOperation(desc, rec.method, pathname)
  if (!found) return [`${where}: no such operation in the ${desc.name} description`]
  const problems = [
    ...checkParameters(desc, found, url.searchParams),
    ...checkBody(desc, found, rec),
    ...checkAnswer(desc, found, rec)
  ]
  return problems.map((p) => `${where} [${found.template}]: ${p}`)
}

function paramSchema(desc: Description, param: Json): Json {
  if (desc.kind === 'openapi3') return (param.schema as Json) ?? {}
  const { type, format, enum: values, items } = param
  return { type, format, enum: values, items } as Json
}

function checkParameters(desc: Description, op: Operation, query: URLSearchParams): string[] {
  const problems: string[] = []
  const declared = parametersOf(desc, op.pathItem, op.operation)
  const queryNames = new Set(
    declared.filter((d) => d.param.in === 'query').map((d) => d.param.name)
  )
  for (const name of new Set(query.keys())) {
    if (!queryNames.has(name)) problems.push(`query parameter ${name} is not declared`)
  }
  for (const { param } of declared) {
    const name = String(param.name)
    const value = param.in === 'path' ? op.params[name] : query.get(name)
    if (value === undefined || value === null) {
      if (param.required === true) problems.push(`required ${String(param.in)} ${name} missing`)
      continue
    }
    if (param.in !== 'path' && param.in !== 'query') continue
    let schema = paramSchema(desc, param)
    if (param.in === 'path' && desc.relaxedPathParams?.includes(name)) {
      schema = { ...schema, format: undefined }
    }
    problems.push(...checkValue(desc, schema, value, `${String(param.in)} ${name}`))
  }
  return problems
}

const valueValidators = new Map<string, ValidateFunction>()

/** A parameter value (always text on the wire) against its schema, coerced as servers read it. */
function checkValue(desc: Description, schema: Json, text: string, what: string): string[] {
  const coerced =
    schema.type === 'integer' || schema.type === 'number'
      ? Number(text)
      : schema.type === 'boolean'
        ? text === 'true'
          ? true
          : text === 'false'
            ? false
            : text
        : text
  const key = JSON.stringify(schema)
  let validate = valueValidators.get(key)
  if (!validate) valueValidators.set(key, (validate = desc.ajv.compile(JSON.parse(key) as Json)))
  if (validate(coerced)) return []
  return [`${what}=${JSON.stringify(text)}: ${desc.ajv.errorsText(validate.errors)}`]
}

function checkBody(desc: Description, op: Operation, rec: RecordedRequest): string[] {
  if (rec.body === undefined || rec.body === '') return []
  const contentType = String(rec.headers?.['content-type'] ?? '')
  if (!contentType.includes('json')) return [] // archives (Coder uploads) are not JSON bodies
  let body: unknown
  try {
    body = JSON.parse(rec.body)
  } catch {
    return ['request body is not JSON']
  }
  if (desc.kind === 'openapi3') {
    const requestBody = resolve(desc, op.operation.requestBody)
    const content = requestBody?.content as Json | undefined
    if (!content?.['application/json']) return ['a JSON body is sent, none is described']
    return problemsOf(
      desc,
      pointer(...op.pathRef, 'requestBody', 'content', 'application/json', 'schema'),
      body,
      'request body'
    )
  }
  const declared = (op.operation.parameters as Json[] | undefined) ?? []
  const index = declared.findIndex((p) => resolve(desc, p).in === 'body')
  if (index < 0) return ['a JSON body is sent, none is described']
  return problemsOf(
    desc,
    pointer(...op.pathRef, 'parameters', String(index), 'schema'),
    body,
    'request body'
  )
}

/** The status of an exchange when its description leaves it out (null: described). */
export function undescribedStatus(desc: Description, rec: RecordedRequest): string | null {
  const found = findOperation(desc, rec.method, describedPath(desc, rec.path))
  if (!found || rec.status === 0) return null
  const responses = found.operation.responses as Json
  if (String(rec.status) in responses || 'default' in responses) return null
  return `${rec.method} ${found.template} ${rec.status}`
}

function checkAnswer(desc: Description, op: Operation, rec: RecordedRequest): string[] {
  if (rec.status === 0) return [] // a hang injected by a test: no answer at all
  const responses = op.operation.responses as Json
  const key = String(rec.status) in responses ? String(rec.status) : 'default'
  if (rec.answer === undefined) return []
  const answer: unknown = JSON.parse(rec.answer)
  if (!(key in responses)) {
    // An error status the description leaves out (listed by undescribedStatus): the error body.
    if (rec.status < 400) return [`status ${rec.status} is not described`]
    return problemsOf(desc, desc.errorSchema, answer, 'answer')
  }
  if (desc.kind === 'swagger2') {
    if (!resolve(desc, responses[key]).schema) return []
    return problemsOf(desc, pointer(...op.pathRef, 'responses', key, 'schema'), answer, 'answer')
  }
  const content = resolve(desc, responses[key]).content as Json | undefined
  if (!content?.['application/json']) return [] // e.g. 204, 304: no JSON answer described
  // The response may be a $ref to #/components/responses/…: point at the resolved one.
  const ref = (responses[key] as Json).$ref
  const base =
    typeof ref === 'string'
      ? ref
          .replace(/^#\//, '')
          .split('/')
          .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      : [...op.pathRef, 'responses', key]
  return problemsOf(
    desc,
    pointer(...base, 'content', 'application/json', 'schema'),
    answer,
    'answer'
  )
}
