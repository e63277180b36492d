// Sandbox Coder: a local subset of Coder's REST API (coder-cli.md §3), the /bin/ CLI download
// (coder-cli.md §4) serving the fake `coder` executable, and template-version import jobs.
// The Kubernetes sandbox reaches the same state in-process through `backend` (contracts.ts).
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { archiveRefusal, PageError, versionPage } from './version-pages.js'
import {
  CoderBackendError,
  type CoderBackend,
  type JobStatus,
  type RecordedRequest,
  type SandboxTemplate,
  type SandboxVersion
} from '../contracts.js'

export const FAKE_CODER_PATH = fileURLToPath(new URL('./fake-coder.mjs', import.meta.url))

// coder-cli.md §4 (Makefile OS_ARCHES)
export const SERVED_CLI_PLATFORMS = [
  'linux-amd64',
  'linux-arm64',
  'linux-armv7',
  'darwin-amd64',
  'darwin-arm64',
  'windows-amd64',
  'windows-arm64'
]

export const SIGNED_OUT_MESSAGE =
  'You are signed out or your session has expired. Please sign in again to continue.'

const TEMPLATE_NAME_RE = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/ // coder-cli.md §2
const VERSION_NAME_RE = /^[a-zA-Z0-9]+(?:[_.-][a-zA-Z0-9]+)*$/ // coder-cli.md §2
const SERVER_UPLOAD_LIMIT = 104_857_600 // coder-cli.md §5
const ALREADY_IN_USE = 'This value is already in use and should be unique.'

export interface CoderSandboxOptions {
  /** Canonical name behind the alias `default` (never `default` itself). Default `acme`. */
  defaultOrganization?: string
  /** More organizations the caller is a member of. */
  extraOrganizations?: string[]
  serverVersion?: string
  /** How long an import job takes from creation to its end. Default 50 ms. */
  importDelayMs?: number
  /** How long a job stays `canceling` after a cancel request. Default 20 ms. */
  cancelDelayMs?: number
  /** Platforms served at /bin/ (`linux-amd64`, ...). Default all; [] is a dev build. */
  cliPlatforms?: string[]
  /** The token's user (default ci-bot, a Template Admin: coder-cli.md §4). */
  user?: UserInput
}

export interface UserInput {
  username: string
  email?: string
  /** Site-wide role names, e.g. `owner`, `template-admin` (default ['template-admin']). */
  roles?: string[]
}

/** A user of the sandbox and its session token. */
export interface SandboxUser {
  id: string
  username: string
  email: string
  roles: string[]
  token: string
}

/** One run of the fake CLI, as it reported itself (fake-coder.mjs). */
export interface CliInvocation {
  id: string
  /** Date.now() of the first report. */
  at: number
  argv: string[]
  /** What went to Coder as user_variable_values (tfvars < --variables-file < --variable); null before it was parsed. */
  variables: { name: string; value: string }[] | null
  /** The --variables-file as the CLI read it: path as given, mode (octal, e.g. `600`), entries (null when it failed). */
  variablesFile: {
    path: string
    mode: string | null
    entries: Record<string, string> | null
  } | null
  /** null while running (or when it was killed before its last report). */
  exitCode: number | null
  /** The text after `error: ` on stderr; null on success or a silent cancel. */
  error: string | null
}

/** An activation of a template version, whoever made it. */
export interface ActivationRecord {
  at: number
  templateId: string
  versionId: string
  previousVersionId: string
  /** Username of the writer (REST: the token's user; backend: `coder-k8s-operator`; or as given). */
  by: string
}

export interface StoredFile {
  id: string
  sha256: string
  size: number
  contentType: string
  bytes: Buffer
}

interface OrganizationRecord {
  id: string
  name: string
  isDefault: boolean
  createdAt: string
}

interface TemplateRecord {
  id: string
  name: string
  organizationId: string
  activeVersionId: string
  deprecated: boolean
  createdAt: string
  updatedAt: string
  createdBy: string
}

interface UserRecord extends SandboxUser {
  createdAt: string
}

interface VersionRecord {
  id: string
  name: string
  templateId: string | null
  organizationId: string
  message: string
  archived: boolean
  createdAt: string
  updatedAt: string
  fileId: string
  createdBy: string
  job: {
    id: string
    status: JobStatus
    error: string
    createdAt: string
    startedAt?: string
    completedAt?: string
    canceledAt?: string
  }
}

export interface SeedVersionInput {
  organization?: string
  template: string
  name: string
  jobStatus?: JobStatus
  jobError?: string
  archived?: boolean
  activate?: boolean
  message?: string
  /** created_at (and updated_at); default: the sandbox clock, strictly after every earlier version. */
  createdAt?: string | Date
  /** Username of an existing user (addUser) as created_by; default the token's user. */
  createdBy?: string
}

export interface CoderSandbox {
  url: string
  /** The session token of `user`. */
  token: string
  /** The token's user (GET /api/v2/users/me). */
  user: SandboxUser
  serverVersion: string
  backend: CoderBackend
  requests: RecordedRequest[]
  /** Every run of the fake CLI that reported to this sandbox, in start order. */
  cliInvocations: CliInvocation[]
  /** Every change of a template's active version, in order. */
  activations: ActivationRecord[]
  /** `request` (RecordedRequest) after each answer, `activated` (ActivationRecord). */
  events: EventEmitter
  files: Map<string, StoredFile>
  /** Changeable between calls. */
  importDelayMs: number
  cancelDelayMs: number
  /** Simulates CLIs that ignored --name when creating a template (coder-cli.md §1.5). */
  randomNameOnCreate: boolean
  /** The next import job fails with this error. */
  failNextImport(message: string): void
  /** Ends an import job now, as a provisioner would (for seeded `pending`/`running` versions). */
  completeJob(versionId: string, status: 'succeeded' | 'failed' | 'canceled', error?: string): void
  /** The next `times` requests whose path starts with `pathPrefix` get `status`. */
  failNextRequests(pathPrefix: string, status: number, times: number, message?: string): void
  /** A template with one succeeded, active version (named `initial` unless given). */
  seedTemplate(input: {
    organization?: string
    name: string
    versionName?: string
    /** created_at of the template and of its first version. */
    createdAt?: string | Date
    /** Username (addUser) that created it; default the token's user. */
    createdBy?: string
  }): SandboxTemplate
  seedVersion(input: SeedVersionInput): SandboxVersion
  /** Another user with a token of its own: pushes with that token are created by that user. */
  addUser(input: UserInput): SandboxUser
  /**
   * Activates a version as another writer would (Coder's activation rules apply; throws
   * CoderBackendError on refusal). `by` is only a label in `activations` (default `another-writer`).
   */
  /** A workspace now uses this version (by ID): Coder refuses to archive it. */
  useVersion(versionId: string): void
  activateVersion(input: {
    organization?: string
    template: string
    version: string
    by?: string
  }): void
  close(): Promise<void>
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail?: string,
    readonly validations?: { field: string; detail: string }[]
  ) {
    super(message)
  }
}

const nowIso = (): string => new Date().toISOString()

const ADJECTIVES = ['eager', 'brave', 'calm', 'jolly', 'quirky', 'vibrant']
const SURNAMES = ['hopper', 'lovelace', 'turing', 'hamilton', 'ritchie', 'liskov']
function randomVersionName(): string {
  const pick = (list: string[]): string => list[Math.floor(Math.random() * list.length)]
  return `${pick(ADJECTIVES)}_${pick(SURNAMES)}${Math.floor(Math.random() * 10)}`
}

export async function startCoderSandbox(options: CoderSandboxOptions = {}): Promise<CoderSandbox> {
  const serverVersion = options.serverVersion ?? 'v2.20.1'
  const users: UserRecord[] = []
  // Coder session tokens are `<10 hex id>-<22 hex secret>` (coder-cli.md §4 shows none; guess).
  const newToken = (): string =>
    `${randomBytes(5).toString('hex')}-${randomBytes(11).toString('hex')}`
  const addUser = (input: UserInput): UserRecord => {
    if (users.some((u) => u.username.toLowerCase() === input.username.toLowerCase()))
      throw new Error(`sandbox: user ${input.username} already exists`)
    const record: UserRecord = {
      id: randomUUID(),
      username: input.username,
      email: input.email ?? `${input.username}@example.com`,
      roles: input.roles ?? ['template-admin'],
      token: newToken(),
      createdAt: nowIso()
    }
    users.push(record)
    return record
  }
  const user = addUser(options.user ?? { username: 'ci-bot' })
  const token = user.token
  const userByToken = (given: string | undefined): UserRecord | undefined =>
    given ? users.find((u) => u.token === given) : undefined
  const userByName = (name: string | undefined): UserRecord => {
    if (name === undefined) return user
    const found = users.find((u) => u.username === name)
    if (!found) throw new Error(`sandbox: no user ${name} (add it with addUser)`)
    return found
  }
  // Versions created by the sandbox get strictly increasing created_at, even within one ms.
  let lastCreatedMs = 0
  const nextCreatedAt = (): string => {
    lastCreatedMs = Math.max(Date.now(), lastCreatedMs + 1)
    return new Date(lastCreatedMs).toISOString()
  }
  const cliInvocations: CliInvocation[] = []
  const activations: ActivationRecord[] = []
  const events = new EventEmitter()
  const organizations: OrganizationRecord[] = []
  for (const [index, name] of [
    options.defaultOrganization ?? 'acme',
    ...(options.extraOrganizations ?? [])
  ].entries()) {
    organizations.push({ id: randomUUID(), name, isDefault: index === 0, createdAt: nowIso() })
  }
  const templates = new Map<string, TemplateRecord>()
  const versions = new Map<string, VersionRecord>()
  const files = new Map<string, StoredFile>()
  const requests: RecordedRequest[] = []
  const pendingImportFailures: string[] = []
  const requestFaults: { pathPrefix: string; status: number; times: number; message: string }[] = []
  const timers = new Set<NodeJS.Timeout>()
  const cliTemplate = readFileSync(FAKE_CODER_PATH, 'utf8')
  // The served copy runs outside this repository: it gets the `yaml` package by absolute URL.
  const yamlModule = pathToFileURL(createRequire(import.meta.url).resolve('yaml')).href
  // The deployment serves a CLI of its own version (coder-cli.md §4); cliBytes is set once the
  // server listens, since the copy also carries the sandbox's URL for its reports.
  let cliBytes = Buffer.alloc(0)
  let cliEtag = ''
  const bakeCli = (url: string): void => {
    cliBytes = Buffer.from(
      cliTemplate
        .replace(
          "const BUILT_IN_VERSION = 'v0.0.0-devel'",
          () => `const BUILT_IN_VERSION = ${JSON.stringify(serverVersion)}`
        )
        .replace("const SANDBOX_URL = ''", () => `const SANDBOX_URL = ${JSON.stringify(url)}`)
        .replace(
          "const YAML_MODULE = 'yaml'",
          () => `const YAML_MODULE = ${JSON.stringify(yamlModule)}`
        )
    )
    cliEtag = `"${createHash('sha1').update(cliBytes).digest('hex')}"`
  }

  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      fn()
    }, ms)
    timers.add(timer)
  }

  // --- lookups -------------------------------------------------------------------------------

  const orgById = (id: string): OrganizationRecord => {
    const org = organizations.find((o) => o.id === id)
    if (!org) throw new Error(`sandbox: organization ${id} vanished`)
    return org
  }
  const findOrg = (ref: string): OrganizationRecord | undefined => {
    // coder-cli.md §3: UUID, name, or the alias `default`. guess: name match is case-insensitive.
    if (ref === 'default') return organizations.find((o) => o.isDefault)
    return organizations.find((o) => o.id === ref || o.name.toLowerCase() === ref.toLowerCase())
  }
  const requireOrg = (ref: string): OrganizationRecord => {
    const org = findOrg(ref)
    if (!org) throw new HttpError(404, `Organization ${JSON.stringify(ref)} not found.`)
    return org
  }
  const findTemplateRecord = (orgId: string, name: string): TemplateRecord | undefined =>
    [...templates.values()].find(
      (t) => t.organizationId === orgId && t.name.toLowerCase() === name.toLowerCase() // §2
    )
  const requireTemplate = (orgId: string, name: string): TemplateRecord => {
    const template = findTemplateRecord(orgId, name)
    if (!template) {
      throw new HttpError(404, 'Resource not found or you do not have access to this resource')
    }
    return template
  }
  const findVersionRecord = (templateId: string, name: string): VersionRecord | undefined =>
    [...versions.values()].find((v) => v.templateId === templateId && v.name === name) // §2: case-sensitive

  // --- JSON shapes (field names as codersdk) ------------------------------------------------

  const organizationJson = (org: OrganizationRecord) => ({
    id: org.id,
    name: org.name,
    display_name: org.name.charAt(0).toUpperCase() + org.name.slice(1),
    description: '',
    icon: '',
    created_at: org.createdAt,
    updated_at: org.createdAt,
    is_default: org.isDefault
  })
  const templateJson = (t: TemplateRecord) => {
    const org = orgById(t.organizationId)
    return {
      id: t.id,
      created_at: t.createdAt,
      updated_at: t.updatedAt,
      organization_id: org.id,
      organization_name: org.name,
      organization_display_name: org.name,
      organization_icon: '',
      name: t.name,
      display_name: '',
      provisioner: 'terraform',
      active_version_id: t.activeVersionId,
      active_user_count: 0,
      description: '',
      deprecated: t.deprecated,
      deprecation_message: '',
      icon: '',
      created_by_id: t.createdBy,
      created_by_name: users.find((u) => u.id === t.createdBy)?.username ?? ''
    }
  }
  // avatar_url is `omitempty` in codersdk and the sandbox has no avatars (coder-api-subset.md).
  const minimalUser = (id: string) => ({
    id,
    username: users.find((u) => u.id === id)?.username ?? ''
  })
  // codersdk.User; role display names as Coder's built-in roles (guess for the exact casing).
  const ROLE_DISPLAY: Record<string, string> = {
    owner: 'Owner',
    'template-admin': 'Template Admin',
    'user-admin': 'User Admin',
    auditor: 'Auditor'
  }
  const userJson = (u: UserRecord) => ({
    id: u.id,
    username: u.username,
    name: '',
    email: u.email,
    created_at: u.createdAt,
    updated_at: u.createdAt,
    last_seen_at: nowIso(),
    status: 'active',
    login_type: 'password',
    theme_preference: '',
    organization_ids: organizations.map((o) => o.id),
    roles: u.roles.map((name) => ({ name, display_name: ROLE_DISPLAY[name] ?? name }))
  })
  const versionJson = (v: VersionRecord) => ({
    id: v.id,
    template_id: v.templateId,
    organization_id: v.organizationId,
    created_at: v.createdAt,
    updated_at: v.updatedAt,
    name: v.name,
    message: v.message,
    job: {
      id: v.job.id,
      created_at: v.job.createdAt,
      ...(v.job.startedAt ? { started_at: v.job.startedAt } : {}),
      ...(v.job.completedAt ? { completed_at: v.job.completedAt } : {}),
      ...(v.job.canceledAt ? { canceled_at: v.job.canceledAt } : {}),
      ...(v.job.error ? { error: v.job.error } : {}),
      status: v.job.status,
      file_id: v.fileId,
      tags: { owner: '', scope: 'organization' },
      queue_position: 0,
      queue_size: 0,
      organization_id: v.organizationId,
      type: 'template_version_import'
    },
    readme: '',
    created_by: minimalUser(v.createdBy),
    archived: v.archived,
    warnings: [],
    matched_provisioners: { count: 1, available: 1, most_recently_seen: nowIso() }
  })
  const toSandboxTemplate = (t: TemplateRecord): SandboxTemplate => {
    const org = orgById(t.organizationId)
    return {
      id: t.id,
      name: t.name,
      organizationId: org.id,
      organizationName: org.name,
      activeVersionId: t.activeVersionId,
      deprecated: t.deprecated
    }
  }
  const toSandboxVersion = (v: VersionRecord): SandboxVersion => {
    const org = orgById(v.organizationId)
    return {
      id: v.id,
      name: v.name,
      templateId: v.templateId,
      organizationId: org.id,
      organizationName: org.name,
      templateName: v.templateId ? (templates.get(v.templateId)?.name ?? '') : '',
      message: v.message,
      jobStatus: v.job.status,
      jobError: v.job.error,
      archived: v.archived,
      createdAt: v.createdAt,
      createdBy: minimalUser(v.createdBy).username
    }
  }

  // --- behaviour -----------------------------------------------------------------------------

  const newVersionRecord = (input: {
    name: string
    templateId: string | null
    organizationId: string
    message: string
    fileId: string
    status: JobStatus
    error?: string
    createdAt?: string | Date
    createdBy: string
  }): VersionRecord => {
    const at =
      input.createdAt === undefined ? nextCreatedAt() : new Date(input.createdAt).toISOString()
    const final = ['succeeded', 'failed', 'canceled'].includes(input.status)
    const record: VersionRecord = {
      id: randomUUID(),
      name: input.name,
      templateId: input.templateId,
      organizationId: input.organizationId,
      message: input.message,
      archived: false,
      createdAt: at,
      updatedAt: at,
      fileId: input.fileId,
      createdBy: input.createdBy,
      job: {
        id: randomUUID(),
        status: input.status,
        error: input.error ?? '',
        createdAt: at,
        ...(input.status !== 'pending' ? { startedAt: at } : {}),
        ...(final ? { completedAt: at } : {})
      }
    }
    versions.set(record.id, record)
    return record
  }

  const runImport = (record: VersionRecord): void => {
    const failure = pendingImportFailures.shift()
    const delay = sandbox.importDelayMs
    later(Math.min(10, delay / 2), () => {
      if (record.job.status !== 'pending') return
      record.job.status = 'running'
      record.job.startedAt = nowIso()
    })
    later(delay, () => {
      if (record.job.status !== 'pending' && record.job.status !== 'running') return
      record.job.status = failure === undefined ? 'succeeded' : 'failed'
      record.job.error = failure ?? ''
      record.job.completedAt = nowIso()
      record.updatedAt = record.job.completedAt
    })
  }

  // Coder's PATCH /api/v2/templates/{id}/versions (coder-cli.md §3).
  const activate = (templateId: string, versionId: string, by: string): void => {
    const template = templates.get(templateId)
    if (!template) {
      throw new CoderBackendError(
        404,
        'Resource not found or you do not have access to this resource'
      )
    }
    const version = versions.get(versionId)
    if (!version) throw new CoderBackendError(404, 'Template version not found.')
    if (version.templateId !== template.id) {
      throw new CoderBackendError(
        400,
        "The provided template version doesn't belong to the specified template."
      )
    }
    if (version.job.status !== 'succeeded') {
      throw new CoderBackendError(
        403,
        'Only versions that have been built successfully can be promoted.'
      )
    }
    if (version.archived) {
      throw new CoderBackendError(400, 'The provided template version is archived.')
    }
    const previousVersionId = template.activeVersionId
    template.activeVersionId = version.id
    template.updatedAt = nowIso()
    const record: ActivationRecord = {
      at: Date.now(),
      templateId,
      versionId,
      previousVersionId,
      by
    }
    activations.push(record)
    events.emit('activated', record)
  }

  const backend: CoderBackend = {
    defaultOrganizationName: () => organizations[0].name,
    findTemplate(organization, template) {
      const org = organizations.find((o) => o.name === organization)
      const record = org && findTemplateRecord(org.id, template)
      return record ? toSandboxTemplate(record) : null
    },
    findVersionByName(organization, template, version) {
      const org = organizations.find((o) => o.name === organization)
      const t = org && findTemplateRecord(org.id, template)
      const v = t && findVersionRecord(t.id, version)
      return v ? toSandboxVersion(v) : null
    },
    findVersionById(id) {
      const v = versions.get(id)
      return v ? toSandboxVersion(v) : null
    },
    listVersions(organization, template) {
      const org = organizations.find((o) => o.name === organization)
      const t = org && findTemplateRecord(org.id, template)
      if (!t) return []
      return [...versions.values()].filter((v) => v.templateId === t.id).map(toSandboxVersion)
    },
    // The aggregated API activates with the operator's token (coder-k8s-api.md §2.4 audit).
    activate: (templateId, versionId) => activate(templateId, versionId, 'coder-k8s-operator')
  }

  // --- HTTP ----------------------------------------------------------------------------------

  const readBody = async (req: IncomingMessage, limit: number): Promise<Buffer> => {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of req) {
      size += (chunk as Buffer).length
      if (size > limit) {
        throw new HttpError(
          400,
          'Failed to read file from request.',
          'http: request body too large'
        )
      }
      chunks.push(chunk as Buffer)
    }
    return Buffer.concat(chunks)
  }
  const parseJson = (body: Buffer): Record<string, unknown> => {
    const text = body.toString('utf8')
    try {
      const value: unknown = JSON.parse(text || '{}')
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        return value as Record<string, unknown>
      }
    } catch {
      // fall through
    }
    throw new HttpError(400, 'Request body must be valid JSON.')
  }

  type Answer = { status: number; body: unknown }
  // Versions a workspace uses: coderd refuses to archive them.
  const inUse = new Set<string>()
  const pageOrFail = (list: VersionRecord[], query: URLSearchParams): VersionRecord[] => {
    try {
      return versionPage(list, query)
    } catch (error) {
      if (error instanceof PageError) throw new HttpError(error.status, error.message)
      throw error
    }
  }
  const handleApi = (
    req: IncomingMessage,
    method: string,
    path: string,
    requestBody: Buffer,
    caller: UserRecord
  ): Answer => {
    let m: RegExpMatchArray | null
    if (method === 'GET' && path === '/api/v2/users/me') {
      return { status: 200, body: userJson(caller) }
    }
    if (method === 'GET' && path === '/api/v2/users/me/organizations') {
      return { status: 200, body: organizations.map(organizationJson) }
    }
    if (method === 'GET' && (m = path.match(/^\/api\/v2\/organizations\/([^/]+)$/))) {
      return { status: 200, body: organizationJson(requireOrg(m[1])) }
    }
    if (
      method === 'GET' &&
      (m = path.match(/^\/api\/v2\/organizations\/([^/]+)\/templates\/([^/]+)$/))
    ) {
      const org = requireOrg(m[1])
      return { status: 200, body: templateJson(requireTemplate(org.id, m[2])) }
    }
    if (
      method === 'GET' &&
      (m = path.match(/^\/api\/v2\/organizations\/([^/]+)\/templates\/([^/]+)\/versions\/([^/]+)$/))
    ) {
      const org = requireOrg(m[1])
      const template = requireTemplate(org.id, m[2])
      const version = findVersionRecord(template.id, m[3])
      if (!version) throw new HttpError(404, `No template version found by name "${m[3]}".`)
      return { status: 200, body: versionJson(version) }
    }
    if (method === 'GET' && (m = path.match(/^\/api\/v2\/templates\/([^/]+)\/versions$/))) {
      const template = templates.get(m[1])
      if (!template) {
        throw new HttpError(404, 'Resource not found or you do not have access to this resource')
      }
      const query = new URL(req.url ?? '/', 'http://x').searchParams
      const list = [...versions.values()].filter((v) => v.templateId === template.id)
      return { status: 200, body: pageOrFail(list, query).map(versionJson) }
    }
    if (
      method === 'POST' &&
      (m = path.match(/^\/api\/v2\/templateversions\/([^/]+)\/(archive|unarchive)$/))
    ) {
      const version = versions.get(m[1])
      if (!version)
        throw new HttpError(404, 'Resource not found or you do not have access to this resource')
      const template = version.templateId ? templates.get(version.templateId) : undefined
      if (m[2] === 'unarchive') {
        if (!version.archived) throw new HttpError(400, 'Template version is not archived.')
        version.archived = false
        return { status: 200, body: `template version ${JSON.stringify(version.id)} unarchived` }
      }
      const refusal = archiveRefusal(
        version,
        template?.activeVersionId ?? '',
        inUse.has(version.id)
      )
      if (refusal) throw new HttpError(refusal.status, refusal.message)
      version.archived = true
      // coder-api-subset.md: a bare JSON string, not a codersdk.Response.
      return { status: 200, body: `template version ${JSON.stringify(version.id)} archived` }
    }
    if (method === 'GET' && (m = path.match(/^\/api\/v2\/templateversions\/([^/]+)$/))) {
      const version = versions.get(m[1])
      if (!version)
        throw new HttpError(404, 'Resource not found or you do not have access to this resource')
      return { status: 200, body: versionJson(version) }
    }
    if (method === 'PATCH' && (m = path.match(/^\/api\/v2\/templateversions\/([^/]+)\/cancel$/))) {
      const version = versions.get(m[1])
      if (!version)
        throw new HttpError(404, 'Resource not found or you do not have access to this resource')
      if (version.job.status === 'canceling' || version.job.status === 'canceled') {
        throw new HttpError(400, 'Job has already been marked as canceled!')
      }
      if (version.job.status === 'succeeded' || version.job.status === 'failed') {
        throw new HttpError(400, 'Job has already completed!')
      }
      version.job.status = 'canceling'
      version.job.canceledAt = nowIso()
      later(sandbox.cancelDelayMs, () => {
        version.job.status = 'canceled'
        version.job.completedAt = nowIso()
      })
      // guess: the answer text of a successful cancel
      return { status: 200, body: { message: 'Job has been marked as canceled...' } }
    }
    if (method === 'POST' && path === '/api/v2/files') {
      const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim()
      if (contentType !== 'application/x-tar' && contentType !== 'application/zip') {
        throw new HttpError(400, `Unsupported content type header "${contentType}".`)
      }
      const bytes = requestBody
      const sha256 = createHash('sha256').update(bytes).digest('hex')
      // coder-cli.md §5: identical content from the same user is de-duplicated.
      const existing = [...files.values()].find((f) => f.sha256 === sha256)
      if (existing) return { status: 200, body: { id: existing.id } }
      const id = randomUUID()
      files.set(id, { id, sha256, size: bytes.length, contentType, bytes })
      return { status: 201, body: { id } }
    }
    if (
      method === 'POST' &&
      (m = path.match(/^\/api\/v2\/organizations\/([^/]+)\/templateversions$/))
    ) {
      const org = requireOrg(m[1])
      const body = parseJson(requestBody)
      const fileId = String(body.file_id ?? '')
      if (!files.has(fileId)) throw new HttpError(404, 'File not found.') // guess: exact text
      const templateId =
        typeof body.template_id === 'string' && body.template_id ? body.template_id : null
      let template: TemplateRecord | undefined
      if (templateId) {
        template = templates.get(templateId)
        if (!template || template.organizationId !== org.id) {
          throw new HttpError(404, 'Template not found.') // guess: exact text
        }
      }
      let name = typeof body.name === 'string' ? body.name : ''
      if (!templateId && sandbox.randomNameOnCreate) name = ''
      if (name === '') name = randomVersionName()
      if (!VERSION_NAME_RE.test(name) || name.length > 64) {
        throw new HttpError(400, 'Validation failed.', undefined, [
          {
            field: 'name',
            detail: `Validation failed for tag "template_version_name" with value: "${name}"`
          }
        ])
      }
      if (template && findVersionRecord(template.id, name)) {
        // coder-cli.md §1.6
        throw new HttpError(
          409,
          `A template version with name "${name}" already exists for this template.`,
          undefined,
          [{ field: 'name', detail: ALREADY_IN_USE }]
        )
      }
      const record = newVersionRecord({
        name,
        templateId,
        organizationId: org.id,
        message: typeof body.message === 'string' ? body.message : '',
        fileId,
        status: 'pending',
        createdBy: caller.id
      })
      runImport(record)
      return { status: 201, body: versionJson(record) }
    }
    if (method === 'POST' && (m = path.match(/^\/api\/v2\/organizations\/([^/]+)\/templates$/))) {
      const org = requireOrg(m[1])
      const body = parseJson(requestBody)
      const name = typeof body.name === 'string' ? body.name : ''
      if (!TEMPLATE_NAME_RE.test(name) || name.length > 32) {
        throw new HttpError(400, 'Validation failed.', undefined, [
          {
            field: 'name',
            detail: `Validation failed for tag "template_name" with value: "${name}"`
          }
        ])
      }
      if (findTemplateRecord(org.id, name)) {
        // guess: text modelled on coderd/templates.go
        throw new HttpError(409, `Template with name "${name}" already exists.`, undefined, [
          { field: 'name', detail: ALREADY_IN_USE }
        ])
      }
      const version = versions.get(String(body.template_version_id ?? ''))
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
        activeVersionId: version.id, // coder-cli.md §1.5: the first version is active
        deprecated: false,
        createdAt: at,
        updatedAt: at,
        createdBy: caller.id
      }
      templates.set(template.id, template)
      version.templateId = template.id
      return { status: 201, body: templateJson(template) }
    }
    if (method === 'PATCH' && (m = path.match(/^\/api\/v2\/templates\/([^/]+)\/versions$/))) {
      const body = parseJson(requestBody)
      try {
        activate(m[1], String(body.id ?? ''), caller.username)
      } catch (error) {
        if (error instanceof CoderBackendError) throw new HttpError(error.status, error.message)
        throw error
      }
      return { status: 200, body: { message: 'Updated the active template version!' } }
    }
    throw new HttpError(404, 'Route not found.')
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET'
    const rawPath = req.url ?? '/'
    let path = rawPath.split('?')[0]
    try {
      path = decodeURIComponent(path)
    } catch {
      // a malformed escape stays as sent and matches no route
    }
    let status = 500
    let recordedBody: string | undefined
    let answer: string | undefined
    const send = (code: number, body: unknown): void => {
      status = code
      const text = (answer = JSON.stringify(body))
      res.writeHead(code, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(text)
      })
      res.end(text)
    }
    // coder-cli.md §3: every answer. A hostile test version may hold a newline, which no header can.
    res.setHeader('X-Coder-Build-Version', serverVersion.replace(/[^\x20-\x7e]/g, '?'))
    try {
      const fault = requestFaults.find((f) => path.startsWith(f.pathPrefix) && f.times > 0)
      if (fault) {
        fault.times--
        throw new HttpError(fault.status, fault.message)
      }
      if (method === 'GET' && path === '/api/v2/buildinfo') {
        send(200, {
          external_url: 'https://github.com/coder/coder',
          version: serverVersion,
          dashboard_url: `http://${req.headers.host}`,
          telemetry: false,
          workspace_proxy: false,
          agent_api_version: '2.0',
          upgrade_message: '',
          deployment_id: 'sandbox'
        })
        return
      }
      let m: RegExpMatchArray | null
      if (
        method === 'GET' &&
        (m = path.match(/^\/bin\/coder[-_]([a-z]+)[-_]([a-z0-9]+)(\.exe)?$/))
      ) {
        const platform = `${m[1]}-${m[2]}`
        const exeMatches = (m[1] === 'windows') === (m[3] === '.exe')
        if (!(options.cliPlatforms ?? SERVED_CLI_PLATFORMS).includes(platform) || !exeMatches) {
          throw new HttpError(404, 'Not found') // guess: the body of the /bin/ 404
        }
        status = 200
        res.writeHead(200, {
          'Content-Type': 'application/octet-stream',
          'Content-Length': cliBytes.length,
          ETag: cliEtag,
          'X-Original-Content-Length': String(cliBytes.length)
        })
        res.end(cliBytes)
        return
      }
      if (!path.startsWith('/api/v2/')) throw new HttpError(404, 'Not found')
      const given = sessionToken(req, rawPath)
      const caller = userByToken(given)
      if (!caller) {
        throw new HttpError(
          401,
          SIGNED_OUT_MESSAGE,
          given
            ? 'API key is invalid.'
            : 'Cookie "coder_session_token" or header "Coder-Session-Token" must be provided.'
        )
      }
      const body = await readBody(req, SERVER_UPLOAD_LIMIT)
      // Our JSON bodies carry no secrets (names, IDs, messages, template variables); tar uploads
      // are kept in `files`, not in the log.
      if (req.headers['content-type']?.startsWith('application/json')) {
        recordedBody = body.toString('utf8')
      }
      const answer = handleApi(req, method, path, body, caller)
      send(answer.status, answer.body)
    } catch (error) {
      if (error instanceof HttpError) {
        send(error.status, {
          message: error.message,
          ...(error.detail ? { detail: error.detail } : {}),
          ...(error.validations ? { validations: error.validations } : {})
        })
      } else {
        send(500, { message: 'Internal error.', detail: String(error) })
      }
    } finally {
      const headers: Record<string, string | string[] | undefined> = { ...req.headers }
      for (const secret of ['coder-session-token', 'cookie', 'authorization']) {
        if (headers[secret] !== undefined) headers[secret] = '[redacted]'
      }
      const entry: RecordedRequest = {
        method,
        path: rawPath,
        status,
        at: Date.now(),
        ...(recordedBody !== undefined ? { body: recordedBody } : {}),
        headers,
        ...(answer !== undefined ? { answer } : {})
      }
      requests.push(entry)
      events.emit('request', entry)
    }
  }

  // coder-cli.md §3: the header, else the cookie or the query parameter coder_session_token.
  const sessionToken = (req: IncomingMessage, rawPath: string): string | undefined => {
    const header = req.headers['coder-session-token']
    if (typeof header === 'string' && header) return header
    const cookie = /(?:^|;\s*)coder_session_token=([^;]*)/.exec(String(req.headers.cookie ?? ''))
    if (cookie) return decodeURIComponent(cookie[1])
    return new URL(rawPath, 'http://x').searchParams.get('coder_session_token') ?? undefined
  }

  /** Fake-only: the fake CLI reports its runs here (not a Coder route, not in `requests`). */
  const handleCliReport = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const report = JSON.parse((await readBody(req, 1 << 20)).toString('utf8')) as Omit<
        CliInvocation,
        'at'
      >
      const existing = cliInvocations.find((i) => i.id === report.id)
      if (existing) Object.assign(existing, report)
      else cliInvocations.push({ ...report, at: Date.now() })
      res.writeHead(204).end()
    } catch {
      res.writeHead(400).end()
    }
  }

  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/__sandbox/cli-invocations') {
      void handleCliReport(req, res)
      return
    }
    void handle(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  bakeCli(`http://127.0.0.1:${port}`)

  const sandbox: CoderSandbox = {
    url: `http://127.0.0.1:${port}`,
    token,
    user: publicUser(user),
    serverVersion,
    backend,
    requests,
    cliInvocations,
    activations,
    events,
    files,
    importDelayMs: options.importDelayMs ?? 50,
    cancelDelayMs: options.cancelDelayMs ?? 20,
    randomNameOnCreate: false,
    failNextImport(message) {
      pendingImportFailures.push(message)
    },
    completeJob(versionId, status, error = '') {
      const version = versions.get(versionId)
      if (!version) throw new Error(`sandbox: no version ${versionId}`)
      version.job.status = status
      version.job.error = error
      version.job.completedAt = nowIso()
      version.updatedAt = version.job.completedAt
    },
    failNextRequests(pathPrefix, status, times, message = 'Injected failure.') {
      requestFaults.push({ pathPrefix, status, times, message })
    },
    seedTemplate(input) {
      const org = requireSeedOrg(input.organization)
      if (findTemplateRecord(org.id, input.name)) {
        throw new Error(`sandbox: template ${input.name} already exists`)
      }
      const creator = userByName(input.createdBy)
      const version = newVersionRecord({
        name: input.versionName ?? 'initial',
        templateId: null,
        organizationId: org.id,
        message: 'seeded',
        fileId: randomUUID(), // codersdk.ProvisionerJob.file_id: always a UUID
        status: 'succeeded',
        createdAt: input.createdAt,
        createdBy: creator.id
      })
      const at = version.createdAt
      const template: TemplateRecord = {
        id: randomUUID(),
        name: input.name,
        organizationId: org.id,
        activeVersionId: version.id,
        deprecated: false,
        createdAt: at,
        updatedAt: at,
        createdBy: creator.id
      }
      templates.set(template.id, template)
      version.templateId = template.id
      return toSandboxTemplate(template)
    },
    seedVersion(input) {
      const org = requireSeedOrg(input.organization)
      const template = findTemplateRecord(org.id, input.template)
      if (!template) throw new Error(`sandbox: no template ${input.template}`)
      if (findVersionRecord(template.id, input.name)) {
        throw new Error(`sandbox: version ${input.name} already exists`)
      }
      const record = newVersionRecord({
        name: input.name,
        templateId: template.id,
        organizationId: org.id,
        message: input.message ?? 'seeded',
        fileId: randomUUID(), // codersdk.ProvisionerJob.file_id: always a UUID
        status: input.jobStatus ?? 'succeeded',
        error: input.jobError,
        createdAt: input.createdAt,
        createdBy: userByName(input.createdBy).id
      })
      record.archived = input.archived ?? false
      if (input.activate) activate(template.id, record.id, userByName(input.createdBy).username)
      return toSandboxVersion(record)
    },
    addUser(input) {
      return publicUser(addUser(input))
    },
    useVersion(versionId) {
      inUse.add(versionId)
    },
    activateVersion(input) {
      const org = requireSeedOrg(input.organization)
      const template = findTemplateRecord(org.id, input.template)
      if (!template) throw new Error(`sandbox: no template ${input.template}`)
      const version = findVersionRecord(template.id, input.version)
      if (!version) throw new Error(`sandbox: no version ${input.version} of ${input.template}`)
      activate(template.id, version.id, input.by ?? 'another-writer')
    },
    async close() {
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }

  function publicUser(u: UserRecord): SandboxUser {
    return { id: u.id, username: u.username, email: u.email, roles: [...u.roles], token: u.token }
  }

  function requireSeedOrg(name: string | undefined): OrganizationRecord {
    const org = findOrg(name ?? 'default')
    if (!org) throw new Error(`sandbox: no organization ${name}`)
    return org
  }

  return sandbox
}
