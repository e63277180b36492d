// The JSON shapes of Coder's answers (field names as codersdk), and the records as tests see
// them (contracts.ts).
import type { SandboxTemplate, SandboxVersion } from '../contracts.js'
import {
  nowIso,
  type OrganizationRecord,
  type TemplateRecord,
  type UserRecord,
  type VersionRecord
} from './records.js'
import type { CoderState } from './state.js'

export const organizationJson = (org: OrganizationRecord) => ({
  id: org.id,
  name: org.name,
  display_name: org.name.charAt(0).toUpperCase() + org.name.slice(1),
  description: '',
  icon: '',
  created_at: org.createdAt,
  updated_at: org.createdAt,
  is_default: org.isDefault
})
export const templateJson = (state: CoderState, t: TemplateRecord) => {
  const org = state.orgById(t.organizationId)
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
    created_by_name: state.users.find((u) => u.id === t.createdBy)?.username ?? ''
  }
}
// avatar_url is `omitempty` in codersdk and the sandbox has no avatars.
export const minimalUser = (state: CoderState, id: string) => ({
  id,
  username: state.users.find((u) => u.id === id)?.username ?? ''
})
// codersdk.User; role display names as Coder's built-in roles (guess for the exact casing).
const ROLE_DISPLAY: Record<string, string> = {
  owner: 'Owner',
  'template-admin': 'Template Admin',
  'user-admin': 'User Admin',
  auditor: 'Auditor'
}
export const userJson = (state: CoderState, u: UserRecord) => ({
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
  organization_ids: state.organizations.map((o) => o.id),
  roles: u.roles.map((name) => ({ name, display_name: ROLE_DISPLAY[name] ?? name }))
})
export const versionJson = (state: CoderState, v: VersionRecord) => ({
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
  created_by: minimalUser(state, v.createdBy),
  archived: v.archived,
  warnings: [],
  matched_provisioners: { count: 1, available: 1, most_recently_seen: nowIso() }
})
export const toSandboxTemplate = (state: CoderState, t: TemplateRecord): SandboxTemplate => {
  const org = state.orgById(t.organizationId)
  return {
    id: t.id,
    name: t.name,
    organizationId: org.id,
    organizationName: org.name,
    activeVersionId: t.activeVersionId,
    deprecated: t.deprecated
  }
}
export const toSandboxVersion = (state: CoderState, v: VersionRecord): SandboxVersion => {
  const org = state.orgById(v.organizationId)
  return {
    id: v.id,
    name: v.name,
    templateId: v.templateId,
    organizationId: org.id,
    organizationName: org.name,
    templateName: v.templateId ? (state.templates.get(v.templateId)?.name ?? '') : '',
    message: v.message,
    jobStatus: v.job.status,
    jobError: v.job.error,
    archived: v.archived,
    createdAt: v.createdAt,
    createdBy: minimalUser(state, v.createdBy).username
  }
}
