// The Coder sandbox's state: users, organizations, templates, versions and their import jobs,
// uploaded files, injected faults, and Coder's activation rule. Routes (routes-*.ts) and the
// Kubernetes backend (backend.ts) read and change it; nothing here speaks HTTP.
import { randomBytes, randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { CoderBackendError, type JobStatus, type RecordedRequest } from '../contracts.js'
import { presetsOfArchive } from './presets.js'
import {
  HttpError,
  NO_ACCESS,
  nowIso,
  type OrganizationRecord,
  type TemplateRecord,
  type UserRecord,
  type VersionRecord
} from './records.js'
import type {
  ActivationRecord,
  CliInvocation,
  CoderSandboxOptions,
  StoredFile,
  UserInput
} from './types.js'

export interface RequestFault {
  pathPrefix: string
  status: number
  times: number
  message: string
}

export interface NewVersionInput {
  name: string
  templateId: string | null
  organizationId: string
  message: string
  fileId: string
  status: JobStatus
  error?: string
  createdAt?: string | Date
  createdBy: string
}

/** What tests change between calls (CoderSandbox exposes these as its own fields). */
export interface CoderSettings {
  importDelayMs: number
  cancelDelayMs: number
  randomNameOnCreate: boolean
}

// Coder session tokens are `<10 hex id>-<22 hex secret>` (guess).
const newToken = (): string =>
  `${randomBytes(5).toString('hex')}-${randomBytes(11).toString('hex')}`

export class CoderState {
  readonly serverVersion: string
  readonly users: UserRecord[] = []
  readonly organizations: OrganizationRecord[] = []
  readonly templates = new Map<string, TemplateRecord>()
  readonly versions = new Map<string, VersionRecord>()
  readonly files = new Map<string, StoredFile>()
  readonly requests: RecordedRequest[] = []
  readonly cliInvocations: CliInvocation[] = []
  readonly activations: ActivationRecord[] = []
  readonly events = new EventEmitter()
  readonly pendingImportFailures: string[] = []
  readonly requestFaults: RequestFault[] = []
  // Versions a workspace uses: coderd refuses to archive them.
  readonly inUse = new Set<string>()
  readonly settings: CoderSettings
  /** The token's user. */
  readonly user: UserRecord
  private readonly timers = new Set<NodeJS.Timeout>()
  // Versions created by the sandbox get strictly increasing created_at, even within one ms.
  private lastCreatedMs = 0

  constructor(options: CoderSandboxOptions) {
    this.serverVersion = options.serverVersion ?? 'v2.20.1'
    this.settings = {
      importDelayMs: options.importDelayMs ?? 50,
      cancelDelayMs: options.cancelDelayMs ?? 20,
      randomNameOnCreate: false
    }
    this.user = this.addUser(options.user ?? { username: 'ci-bot' })
    for (const [index, name] of [
      options.defaultOrganization ?? 'acme',
      ...(options.extraOrganizations ?? [])
    ].entries()) {
      this.organizations.push({
        id: randomUUID(),
        name,
        isDefault: index === 0,
        createdAt: nowIso()
      })
    }
  }

  // --- users ---------------------------------------------------------------------------------

  addUser(input: UserInput): UserRecord {
    if (this.users.some((u) => u.username.toLowerCase() === input.username.toLowerCase()))
      throw new Error(`sandbox: user ${input.username} already exists`)
    const record: UserRecord = {
      id: randomUUID(),
      username: input.username,
      email: input.email ?? `${input.username}@example.com`,
      roles: input.roles ?? ['template-admin'],
      token: newToken(),
      createdAt: nowIso()
    }
    this.users.push(record)
    return record
  }
  userByToken(given: string | undefined): UserRecord | undefined {
    return given ? this.users.find((u) => u.token === given) : undefined
  }
  userByName(name: string | undefined): UserRecord {
    if (name === undefined) return this.user
    const found = this.users.find((u) => u.username === name)
    if (!found) throw new Error(`sandbox: no user ${name} (add it with addUser)`)
    return found
  }

  // --- lookups -------------------------------------------------------------------------------

  orgById(id: string): OrganizationRecord {
    const org = this.organizations.find((o) => o.id === id)
    if (!org) throw new Error(`sandbox: organization ${id} vanished`)
    return org
  }
  findOrg(ref: string): OrganizationRecord | undefined {
    // UUID, name, or the alias `default`. guess: name match is case-insensitive.
    if (ref === 'default') return this.organizations.find((o) => o.isDefault)
    return this.organizations.find(
      (o) => o.id === ref || o.name.toLowerCase() === ref.toLowerCase()
    )
  }
  requireOrg(ref: string): OrganizationRecord {
    const org = this.findOrg(ref)
    if (!org) throw new HttpError(404, `Organization ${JSON.stringify(ref)} not found.`)
    return org
  }
  findTemplateRecord(orgId: string, name: string): TemplateRecord | undefined {
    return [...this.templates.values()].find(
      (t) => t.organizationId === orgId && t.name.toLowerCase() === name.toLowerCase() // case-insensitive
    )
  }
  requireTemplate(orgId: string, name: string): TemplateRecord {
    const template = this.findTemplateRecord(orgId, name)
    if (!template) throw new HttpError(404, NO_ACCESS)
    return template
  }
  findVersionRecord(templateId: string, name: string): VersionRecord | undefined {
    // Case-sensitive
    return [...this.versions.values()].find((v) => v.templateId === templateId && v.name === name)
  }

  // --- behaviour -----------------------------------------------------------------------------

  later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
    }, ms)
    this.timers.add(timer)
  }
  clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }

  newVersionRecord(input: NewVersionInput): VersionRecord {
    const at =
      input.createdAt === undefined ? this.nextCreatedAt() : new Date(input.createdAt).toISOString()
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
    this.versions.set(record.id, record)
    return record
  }

  runImport(record: VersionRecord): void {
    const failure = this.pendingImportFailures.shift()
    const delay = this.settings.importDelayMs
    this.later(Math.min(10, delay / 2), () => {
      if (record.job.status !== 'pending') return
      record.job.status = 'running'
      record.job.startedAt = nowIso()
    })
    this.later(delay, () => {
      if (record.job.status !== 'pending' && record.job.status !== 'running') return
      record.job.status = failure === undefined ? 'succeeded' : 'failed'
      const file = this.files.get(record.fileId)
      if (failure === undefined && file) record.presets = presetsOfArchive(file.bytes)
      record.job.error = failure ?? ''
      record.job.completedAt = nowIso()
      record.updatedAt = record.job.completedAt
    })
  }

  // Coder's PATCH /api/v2/templates/{id}/versions.
  activate(templateId: string, versionId: string, by: string): void {
    const template = this.templates.get(templateId)
    if (!template) throw new CoderBackendError(404, NO_ACCESS)
    const version = this.versions.get(versionId)
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
    this.activations.push(record)
    this.events.emit('activated', record)
  }

  private nextCreatedAt(): string {
    this.lastCreatedMs = Math.max(Date.now(), this.lastCreatedMs + 1)
    return new Date(this.lastCreatedMs).toISOString()
  }
}
