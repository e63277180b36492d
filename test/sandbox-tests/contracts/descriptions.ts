// The official API descriptions, loaded once: GitHub's @octokit/openapi api.github.com.json
// (OpenAPI 3.0.3) and the Swagger 2.0 subset of Coder's in /work/shared/reference/
// coder-api-subset.json (a subset of coder/coder coderd/apidoc/swagger.json). What is relaxed, and
// why, is said where it is done.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { RecordedRequest } from '../../sandbox/contracts.js'
import { describedPath, findOperation, type Json, pointer } from './operations.js'

export type Kind = 'openapi3' | 'swagger2'

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
  // `{organization}` is typed as a UUID, but coderd also takes the name (httpmw/organizationparam.go).
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
