// Template version routes: read by name or ID, the paged list, archive and unarchive, cancel an
// import, create one from an uploaded file; and the file upload itself.
import { createHash, randomUUID } from 'node:crypto'
import { parseJson } from './body.js'
import { versionJson } from './json.js'
import { presetsJson } from './presets.js'
import {
  ALREADY_IN_USE,
  HttpError,
  NO_ACCESS,
  nowIso,
  randomVersionName,
  VERSION_NAME_RE,
  type TemplateRecord,
  type VersionRecord
} from './records.js'
import type { Answer, ApiCall, Route } from './route.js'
import type { CoderState } from './state.js'
import { archiveRefusal, PageError, versionPage } from './version-pages.js'

const requireVersion = (state: CoderState, id: string): VersionRecord => {
  const version = state.versions.get(id)
  if (!version) throw new HttpError(404, NO_ACCESS)
  return version
}

const pageOrFail = (list: VersionRecord[], query: URLSearchParams): VersionRecord[] => {
  try {
    return versionPage(list, query)
  } catch (error) {
    if (error instanceof PageError) throw new HttpError(error.status, error.message)
    throw error
  }
}

function listVersions({ state, req }: ApiCall, templateId: string): Answer {
  const template = state.templates.get(templateId)
  if (!template) throw new HttpError(404, NO_ACCESS)
  const query = new URL(req.url ?? '/', 'http://x').searchParams
  const list = [...state.versions.values()].filter((v) => v.templateId === template.id)
  return { status: 200, body: pageOrFail(list, query).map((v) => versionJson(state, v)) }
}

function archiveOrUnarchive({ state }: ApiCall, id: string, action: string): Answer {
  const version = requireVersion(state, id)
  const template = version.templateId ? state.templates.get(version.templateId) : undefined
  if (action === 'unarchive') {
    if (!version.archived) throw new HttpError(400, 'Template version is not archived.')
    version.archived = false
    return { status: 200, body: `template version ${JSON.stringify(version.id)} unarchived` }
  }
  const refusal = archiveRefusal(
    version,
    template?.activeVersionId ?? '',
    state.inUse.has(version.id)
  )
  if (refusal) throw new HttpError(refusal.status, refusal.message)
  version.archived = true
  // A bare JSON string, not a codersdk.Response.
  return { status: 200, body: `template version ${JSON.stringify(version.id)} archived` }
}

function cancelJob({ state }: ApiCall, id: string): Answer {
  const version = requireVersion(state, id)
  if (version.job.status === 'canceling' || version.job.status === 'canceled') {
    throw new HttpError(400, 'Job has already been marked as canceled!')
  }
  if (version.job.status === 'succeeded' || version.job.status === 'failed') {
    throw new HttpError(400, 'Job has already completed!')
  }
  version.job.status = 'canceling'
  version.job.canceledAt = nowIso()
  state.later(state.settings.cancelDelayMs, () => {
    version.job.status = 'canceled'
    version.job.completedAt = nowIso()
  })
  // guess: the answer text of a successful cancel
  return { status: 200, body: { message: 'Job has been marked as canceled...' } }
}

function uploadFile({ state, req, body: bytes }: ApiCall): Answer {
  const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim()
  if (contentType !== 'application/x-tar' && contentType !== 'application/zip') {
    throw new HttpError(400, `Unsupported content type header "${contentType}".`)
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  // Identical content from the same user is de-duplicated.
  const existing = [...state.files.values()].find((f) => f.sha256 === sha256)
  if (existing) return { status: 200, body: { id: existing.id } }
  const id = randomUUID()
  state.files.set(id, { id, sha256, size: bytes.length, contentType, bytes })
  return { status: 201, body: { id } }
}

function versionName(state: CoderState, given: unknown, template?: TemplateRecord): string {
  let name = typeof given === 'string' ? given : ''
  if (!template && state.settings.randomNameOnCreate) name = ''
  if (name === '') name = randomVersionName()
  if (!VERSION_NAME_RE.test(name) || name.length > 64) {
    throw new HttpError(400, 'Validation failed.', undefined, [
      {
        field: 'name',
        detail: `Validation failed for tag "template_version_name" with value: "${name}"`
      }
    ])
  }
  if (template && state.findVersionRecord(template.id, name)) {
    // Coder's 409 for a taken version name
    throw new HttpError(
      409,
      `A template version with name "${name}" already exists for this template.`,
      undefined,
      [{ field: 'name', detail: ALREADY_IN_USE }]
    )
  }
  return name
}

function createVersion({ state, body: requestBody, caller }: ApiCall, orgRef: string): Answer {
  const org = state.requireOrg(orgRef)
  const body = parseJson(requestBody)
  const fileId = String(body.file_id ?? '')
  if (!state.files.has(fileId)) throw new HttpError(404, 'File not found.') // guess: exact text
  const templateId =
    typeof body.template_id === 'string' && body.template_id ? body.template_id : null
  let template: TemplateRecord | undefined
  if (templateId) {
    template = state.templates.get(templateId)
    if (!template || template.organizationId !== org.id) {
      throw new HttpError(404, 'Template not found.') // guess: exact text
    }
  }
  const record = state.newVersionRecord({
    name: versionName(state, body.name, template),
    templateId,
    organizationId: org.id,
    message: typeof body.message === 'string' ? body.message : '',
    fileId,
    status: 'pending',
    createdBy: caller.id
  })
  state.runImport(record)
  return { status: 201, body: versionJson(state, record) }
}

export const versionRoutes: Route[] = [
  {
    method: 'GET',
    pattern: /^\/api\/v2\/organizations\/([^/]+)\/templates\/([^/]+)\/versions\/([^/]+)$/,
    answer: ({ state }, m) => {
      const org = state.requireOrg(m[1])
      const template = state.requireTemplate(org.id, m[2])
      const version = state.findVersionRecord(template.id, m[3])
      if (!version) throw new HttpError(404, `No template version found by name "${m[3]}".`)
      return { status: 200, body: versionJson(state, version) }
    }
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/templates\/([^/]+)\/versions$/,
    answer: (call, m) => listVersions(call, m[1])
  },
  {
    method: 'POST',
    pattern: /^\/api\/v2\/templateversions\/([^/]+)\/(archive|unarchive)$/,
    answer: (call, m) => archiveOrUnarchive(call, m[1], m[2])
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/templateversions\/([^/]+)\/presets$/,
    answer: ({ state }, m) => ({
      status: 200,
      body: presetsJson(requireVersion(state, m[1]).presets)
    })
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/templateversions\/([^/]+)$/,
    answer: ({ state }, m) => ({
      status: 200,
      body: versionJson(state, requireVersion(state, m[1]))
    })
  },
  {
    method: 'PATCH',
    pattern: /^\/api\/v2\/templateversions\/([^/]+)\/cancel$/,
    answer: (call, m) => cancelJob(call, m[1])
  },
  { method: 'POST', pattern: /^\/api\/v2\/files$/, answer: (call) => uploadFile(call) },
  {
    method: 'POST',
    pattern: /^\/api\/v2\/organizations\/([^/]+)\/templateversions$/,
    answer: (call, m) => createVersion(call, m[1])
  }
]
