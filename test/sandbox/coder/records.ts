// The Coder sandbox's internal records (field names ours; JSON shapes are in json.ts), its error
// answer, and the limits it shares between routes.
import type { JobStatus } from '../contracts.js'
import type { SandboxPreset, SandboxUser } from './types.js'

export const TEMPLATE_NAME_RE = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/ // coder/coder codersdk/name.go
export const VERSION_NAME_RE = /^[a-zA-Z0-9]+(?:[_.-][a-zA-Z0-9]+)*$/ // codersdk/name.go
export const SERVER_UPLOAD_LIMIT = 104_857_600 // coder/coder coderd/files.go
export const ALREADY_IN_USE = 'This value is already in use and should be unique.'
export const NO_ACCESS = 'Resource not found or you do not have access to this resource'

export interface OrganizationRecord {
  id: string
  name: string
  isDefault: boolean
  createdAt: string
}

export interface TemplateRecord {
  id: string
  name: string
  organizationId: string
  activeVersionId: string
  deprecated: boolean
  createdAt: string
  updatedAt: string
  createdBy: string
}

export interface UserRecord extends SandboxUser {
  createdAt: string
}

export interface VersionRecord {
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
  /** Set when the import succeeds (from the archive) or by seedVersion. */
  presets?: SandboxPreset[]
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

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail?: string,
    readonly validations?: { field: string; detail: string }[]
  ) {
    super(message)
  }
}

export const nowIso = (): string => new Date().toISOString()

const ADJECTIVES = ['eager', 'brave', 'calm', 'jolly', 'quirky', 'vibrant']
const SURNAMES = ['hopper', 'lovelace', 'turing', 'hamilton', 'ritchie', 'liskov']
export function randomVersionName(): string {
  const pick = (list: string[]): string => list[Math.floor(Math.random() * list.length)]
  return `${pick(ADJECTIVES)}_${pick(SURNAMES)}${Math.floor(Math.random() * 10)}`
}
