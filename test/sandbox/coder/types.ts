// The Coder sandbox's public shapes: its options, its users, what it records, and the handle
// tests hold (CoderSandbox).
import type { EventEmitter } from 'node:events'
import type {
  CoderBackend,
  JobStatus,
  RecordedRequest,
  SandboxTemplate,
  SandboxVersion
} from '../contracts.js'

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
  /** The token's user (default ci-bot, a Template Admin, the role a CI token needs). */
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

/** A preset of a version (test/sandbox/coder/presets.ts). */
export interface SandboxPreset {
  id?: string
  name: string
  parameters: Record<string, string>
  default?: boolean
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
  presets?: SandboxPreset[]
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
  /** Simulates CLIs that ignored --name when creating a template. */
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
