// In-process contracts between the parts of the sandbox world.
// The Coder sandbox implements CoderBackend; the Kubernetes sandbox (controller and aggregated API)
// reads and changes Coder state only through it, as the real coder-k8s talks to Coder's REST API.
// The GitHub sandbox emits GitCommit events; the GitOps sync loop applies them to the Kubernetes sandbox.

export interface SandboxTemplate {
  id: string
  name: string
  organizationId: string
  organizationName: string
  activeVersionId: string
  deprecated: boolean
}

export type JobStatus = 'pending' | 'running' | 'succeeded' | 'canceling' | 'canceled' | 'failed'

export interface SandboxVersion {
  id: string
  name: string
  templateId: string | null
  organizationId: string
  organizationName: string
  templateName: string
  message: string
  jobStatus: JobStatus
  jobError: string
  archived: boolean
  /** Coder's created_at (ISO 8601). */
  createdAt: string
  /** Username of the creator (created_by.username); absent when the backend does not know it. */
  createdBy?: string
}

export interface CoderBackend {
  /** Canonical name of the default organization (never the alias `default`). */
  defaultOrganizationName(): string
  /** Canonical names only; null when absent. Template lookup by name is case-insensitive in Coder. */
  findTemplate(organization: string, template: string): SandboxTemplate | null
  findVersionByName(organization: string, template: string, version: string): SandboxVersion | null
  findVersionById(id: string): SandboxVersion | null
  listVersions(organization: string, template: string): SandboxVersion[]
  /** Coder's PATCH /api/v2/templates/{id}/versions semantics: throws CoderBackendError on refusal. */
  activate(templateId: string, versionId: string): void
}

export class CoderBackendError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

export interface GitCommit {
  owner: string
  repo: string
  branch: string
  sha: string
  /** path -> new content (null when deleted), only the paths this commit changed */
  changes: Map<string, string | null>
}

export interface RecordedRequest {
  method: string
  path: string // path and query, as received
  status: number
  at: number // Date.now() when the answer was sent
  body?: string
  headers?: Record<string, string | string[] | undefined>
  /** The JSON text of the answer, when there was one (checked against the API descriptions). */
  answer?: string
}
