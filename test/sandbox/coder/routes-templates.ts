// Template routes: read one, create one from an imported version, change its active version
// (https://coder.com/docs/reference/api/templates).
import { randomUUID } from 'node:crypto'
import { CoderBackendError } from '../contracts.js'
import { parseJson } from './body.js'
import { templateJson } from './json.js'
import {
  ALREADY_IN_USE,
  HttpError,
  nowIso,
  TEMPLATE_NAME_RE,
  type TemplateRecord
} from './records.js'
import type { Answer, ApiCall, Route } from './route.js'

function createTemplate({ state, body: requestBody, caller }: ApiCall, orgRef: string): Answer {
  const org = state.requireOrg(orgRef)
  const body = parseJson(requestBody)
  const name = typeof body.name === 'string' ? body.name : ''
  if (!TEMPLATE_NAME_RE.test(name) || name.length > 32) {
    throw new HttpError(400, 'Validation failed.', undefined, [
      { field: 'name', detail: `Validation failed for tag "template_name" with value: "${name}"` }
    ])
  }
  if (state.findTemplateRecord(org.id, name)) {
    // guess: text modelled on coderd/templates.go
    throw new HttpError(409, `Template with name "${name}" already exists.`, undefined, [
      { field: 'name', detail: ALREADY_IN_USE }
    ])
  }
  const version = state.versions.get(String(body.template_version_id ?? ''))
  if (!version || version.organizationId !== org.id) {
    throw new HttpError(404, 'Template version not found.') // guess: exact text
  }
  if (version.templateId) {
    throw new HttpError(409, 'Template version is already attached to a template.') // guess
  }
  if (version.job.status !== 'succeeded') {
    // guess: Coder refuses a template whose version did not import
    throw new HttpError(400, 'Template version import job has not succeeded.')
  }
  const at = nowIso()
  const template: TemplateRecord = {
    id: randomUUID(),
    name,
    organizationId: org.id,
    activeVersionId: version.id, // the first version is active
    deprecated: false,
    createdAt: at,
    updatedAt: at,
    createdBy: caller.id
  }
  state.templates.set(template.id, template)
  version.templateId = template.id
  return { status: 201, body: templateJson(state, template) }
}

function activateVersion(
  { state, body: requestBody, caller }: ApiCall,
  templateId: string
): Answer {
  const body = parseJson(requestBody)
  try {
    state.activate(templateId, String(body.id ?? ''), caller.username)
  } catch (error) {
    if (error instanceof CoderBackendError) throw new HttpError(error.status, error.message)
    throw error
  }
  return { status: 200, body: { message: 'Updated the active template version!' } }
}

export const templateRoutes: Route[] = [
  {
    method: 'GET',
    pattern: /^\/api\/v2\/organizations\/([^/]+)\/templates\/([^/]+)$/,
    answer: ({ state }, m) => {
      const org = state.requireOrg(m[1])
      return { status: 200, body: templateJson(state, state.requireTemplate(org.id, m[2])) }
    }
  },
  {
    method: 'POST',
    pattern: /^\/api\/v2\/organizations\/([^/]+)\/templates$/,
    answer: (call, m) => createTemplate(call, m[1])
  },
  {
    method: 'PATCH',
    pattern: /^\/api\/v2\/templates\/([^/]+)\/versions$/,
    answer: (call, m) => activateVersion(call, m[1])
  }
]
