// What tests do to the Coder sandbox besides HTTP: seed templates and versions, end jobs,
// activate as another writer (CoderSandbox in types.ts documents each).
import { randomUUID } from 'node:crypto'
import type { SandboxTemplate, SandboxVersion } from '../contracts.js'
import { toSandboxTemplate, toSandboxVersion } from './json.js'
import { nowIso, type OrganizationRecord, type TemplateRecord, type UserRecord } from './records.js'
import type { CoderState } from './state.js'
import type { CoderSandbox, SandboxUser, SeedVersionInput } from './types.js'

export function publicUser(u: UserRecord): SandboxUser {
  return { id: u.id, username: u.username, email: u.email, roles: [...u.roles], token: u.token }
}

function requireSeedOrg(state: CoderState, name: string | undefined): OrganizationRecord {
  const org = state.findOrg(name ?? 'default')
  if (!org) throw new Error(`sandbox: no organization ${name}`)
  return org
}

export function completeJob(
  state: CoderState,
  versionId: string,
  status: 'succeeded' | 'failed' | 'canceled',
  error = ''
): void {
  const version = state.versions.get(versionId)
  if (!version) throw new Error(`sandbox: no version ${versionId}`)
  version.job.status = status
  version.job.error = error
  version.job.completedAt = nowIso()
  version.updatedAt = version.job.completedAt
}

export function seedTemplate(
  state: CoderState,
  input: Parameters<CoderSandbox['seedTemplate']>[0]
): SandboxTemplate {
  const org = requireSeedOrg(state, input.organization)
  if (state.findTemplateRecord(org.id, input.name)) {
    throw new Error(`sandbox: template ${input.name} already exists`)
  }
  const creator = state.userByName(input.createdBy)
  const version = state.newVersionRecord({
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
  state.templates.set(template.id, template)
  version.templateId = template.id
  return toSandboxTemplate(state, template)
}

export function seedVersion(state: CoderState, input: SeedVersionInput): SandboxVersion {
  const org = requireSeedOrg(state, input.organization)
  const template = state.findTemplateRecord(org.id, input.template)
  if (!template) throw new Error(`sandbox: no template ${input.template}`)
  if (state.findVersionRecord(template.id, input.name)) {
    throw new Error(`sandbox: version ${input.name} already exists`)
  }
  const record = state.newVersionRecord({
    name: input.name,
    templateId: template.id,
    organizationId: org.id,
    message: input.message ?? 'seeded',
    fileId: randomUUID(), // codersdk.ProvisionerJob.file_id: always a UUID
    status: input.jobStatus ?? 'succeeded',
    error: input.jobError,
    createdAt: input.createdAt,
    createdBy: state.userByName(input.createdBy).id
  })
  record.archived = input.archived ?? false
  record.presets = input.presets
  if (input.activate) {
    state.activate(template.id, record.id, state.userByName(input.createdBy).username)
  }
  return toSandboxVersion(state, record)
}

export function activateAs(
  state: CoderState,
  input: Parameters<CoderSandbox['activateVersion']>[0]
): void {
  const org = requireSeedOrg(state, input.organization)
  const template = state.findTemplateRecord(org.id, input.template)
  if (!template) throw new Error(`sandbox: no template ${input.template}`)
  const version = state.findVersionRecord(template.id, input.version)
  if (!version) throw new Error(`sandbox: no version ${input.version} of ${input.template}`)
  state.activate(template.id, version.id, input.by ?? 'another-writer')
}
