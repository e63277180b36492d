// What the push of a template version takes: shared by the push (push.ts) and its reuse of an
// existing version (push-reuse.ts), so neither imports the other's types.
import type { StepLog } from '../log/log.js'
import type { Clock } from '../timing/clock.js'
import type { CoderClient, CoderTemplateVersion } from './client.js'

/** The part of the step's log that the push and its reuse of a version write to. */
export type PushLog = Pick<StepLog, 'info' | 'warning'>

export interface PushTemplateVersionInput {
  client: Pick<CoderClient, 'template' | 'versionByName' | 'versionById'>
  cli: string
  coderUrl: string
  token: string
  /** Canonical organization name (or ID) for REST paths. */
  organization: string
  /** Pass `--org <organization>` to the CLI; only when the user set it: CLIs before ~v2.13 reject
   * the flag (coder/coder#13674), and without it a one-organization user gets that organization. */
  passOrganization?: boolean
  template: string
  directory: string
  version: string
  message?: string
  /**
   * Whether an existing version with our name is this commit's push (a re-run) rather than someone
   * else's (a moved tag, a manual push). Default: its message equals the message we push.
   */
  isOwnVersion?: (existing: CoderTemplateVersion) => boolean
  variables?: { name: string; value: string }[]
  /** Where the CLI's variables file is written (RUNNER_TEMP). */
  tempDir?: string
  /** Limit of the CLI run, and of the wait for an import another run started. */
  timeoutMs: number
  killGraceMs?: number
  /** Poll interval while waiting for an import already running. Default 2 s. */
  pollIntervalMs?: number
  /** The time and the pause of that wait. Default the system clock; the push step gives its own. */
  clock?: Clock
  signal?: AbortSignal
  /** The step's log: foreign text written here never runs as a workflow command. */
  log: StepLog
  /** Where the CLI output is shown. Default process.stdout. */
  output?: NodeJS.WritableStream
}
