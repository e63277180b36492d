// The check of one recorded exchange (method, path, query, body, status, answer) against a
// description: the operation must exist, its path and query parameters must be declared and
// valid, the body must match the requestBody, the answer the response schema of its status.
import type { ValidateFunction } from 'ajv'
import type { RecordedRequest } from '../../sandbox/contracts.js'
import type { Description } from './descriptions.js'
import {
  describedPath,
  findOperation,
  type Json,
  type Operation,
  parametersOf,
  pointer,
  resolve
} from './operations.js'
import { unknownFields } from './unknown-fields.js'

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
  // Answers and bodies alike: a field the description does not name is one the server would not
  // send (or would not read).
  const unknown = unknownFields(desc, { $ref: ref }, value).map(
    (at) => `${what}${at} is not in the description`
  )
  if (validate(value)) return unknown
  return [
    ...(validate.errors ?? []).map(
      (e) => `${what}${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`
    ),
    ...unknown
  ]
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
