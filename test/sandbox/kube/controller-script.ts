// What a test's script can ask of the sandbox controller, and the controller's fixed texts.
// Facts: https://github.com/coder/coder-k8s/blob/main/docs/how-to/test-templates.md

/** The points where a script can delay or fail a run. */
export type ControllerStep =
  | 'finalizer'
  | 'initializing'
  | 'resolve'
  | 'CreatingWorkspace'
  | 'WaitingForBuild'
  | 'WaitingForAgents'
  | 'AgentsReady'
  | 'DeletingWorkspace'
  | 'final'

export const RUNNING_STEPS = [
  'CreatingWorkspace',
  'WaitingForBuild',
  'WaitingForAgents',
  'AgentsReady',
  'DeletingWorkspace'
] as const
export type RunningStep = (typeof RUNNING_STEPS)[number]

export interface ConditionValue {
  status: 'True' | 'False' | 'Unknown'
  reason: string
  message: string
}

export interface TestScript {
  /** Delay before each step (default: the controller's stepDelayMs). */
  stepDelayMs?: number
  stepDelays?: Partial<Record<ControllerStep, number>>
  /** The controller does not reconcile this test for this long after it appears (no status). */
  downForMs?: number
  /**
   * The controller does not reconcile this test until this settles (after downForMs): a hold that
   * ends on an event of the test, not after a guessed time. Bounded by the controller's stop.
   */
  holdUntil?: Promise<unknown>
  /** Fail with this reason at this step (before the step's own status write). */
  failAt?: {
    step: 'resolve' | RunningStep
    reason: string
    /** Written verbatim (newlines and `::` lines included), cut to 256 bytes as the real one. */
    message?: string
    /** Final WorkspaceDeleted condition; default as documented (NotCreated before a create, else Deleted after cleanup). */
    workspaceDeleted?: ConditionValue
  }
  /**
   * `old-observed-generation`: status writes carry generation - 1; `bump-generation`: right
   * after the final write the object's generation is bumped (status not rewritten). With
   * `forMs`, the controller writes a fresh status that long after the final write.
   */
  staleGeneration?: { mode: 'old-observed-generation' | 'bump-generation'; forMs?: number }
  /** Record this templateVersionID instead of the resolved one (tests the gate's integrity check). */
  overrideVersionID?: string
  /** Called right after this test's final status write committed (info.at is that time). */
  onFinal?: (info: FinalStatusInfo) => void
}

export interface FinalStatusInfo {
  namespace: string
  name: string
  phase: 'Succeeded' | 'Failed'
  reason: string
  templateVersionID?: string
  /** Date.now() right after the final status write committed. */
  at: number
}

export interface ControllerOptions {
  /** Scripts by test name; `default` applies to the others. */
  scripts?: Record<string, TestScript>
  /** Default delay before each step. guess: the real controller takes seconds to minutes. */
  stepDelayMs?: number
  /** Requeue interval while waiting for Coder inputs (real: 15 s Pending). */
  pollIntervalMs?: number
  /** Milliseconds per spec second, to scale timeoutSeconds (default 1000; tests use ~1-5). */
  secondMs?: number
  /** Delay of the workspace cleanup after a failure and of finalizer release on delete. */
  cleanupDelayMs?: number
}

/** status.message limit. */
export const STATUS_MESSAGE_LIMIT_BYTES = 256

/** The longest prefix of `text` whose UTF-8 encoding has at most `limit` bytes. */
export function truncateUtf8(text: string, limit: number): string {
  if (Buffer.byteLength(text, 'utf8') <= limit) return text
  let bytes = 0
  let end = 0
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8')
    if (bytes + size > limit) break
    bytes += size
    end += char.length
  }
  return text.slice(0, end)
}

/** ktt- + first 28 hex chars of the UID without dashes. */
export const workspaceNameFor = (uid: string): string => `ktt-${uid.replace(/-/g, '').slice(0, 28)}`

// guess: wait-reason messages are not documented; these paraphrase the reasons.
export const waitMessages: Record<string, string> = {
  TemplateNotFound: 'The template was not found in Coder. The controller keeps waiting.',
  TemplateVersionNotFound:
    'The template version was not found in Coder. The controller keeps waiting.',
  TemplateVersionImporting: 'The template version import job has not finished.',
  CreatingWorkspace: 'The controller is creating the workspace.',
  WaitingForBuild: 'The workspace start build is running.',
  WaitingForAgents: 'Waiting for every top-level agent to be connected and ready.',
  AgentsReady: 'Every agent is ready. The controller deletes the workspace.',
  DeletingWorkspace: 'The workspace delete build is running.'
}

// guess: failure messages paraphrase the reasons (only DeadlineExceeded's format is documented).
export const failureMessages: Record<string, string> = {
  TemplateDeprecated: 'The template is deprecated in Coder.',
  TemplateVersionArchived: 'The template version is archived.',
  TemplateVersionImportFailed: 'The template version import job failed.',
  TemplateVersionMismatch: 'The version ID belongs to another template.',
  CreateRejected: 'Coder refused the workspace create request.',
  BuildFailed: 'The workspace start build failed.',
  BuildCanceled: 'The workspace start build was canceled.',
  NoAgents: 'The template has no top-level agent.',
  AgentConnectionTimeout: 'An agent did not connect in time.',
  AgentStartError: 'An agent startup script failed.',
  AgentStartTimeout: 'An agent startup script timed out.',
  AgentStopped: 'An agent stopped.',
  DeleteBuildFailed: 'The agents were ready, but the workspace delete build failed.'
}

export const STARTED_MESSAGE = 'The controller started the test.'

/** WorkspaceDeleted before any create request. */
export const NOT_CREATED: ConditionValue = {
  status: 'True',
  reason: 'NotCreated',
  message: 'The controller never sent a workspace create request.'
}

/** WorkspaceDeleted after a failure once a create was sent, until the cleanup ran. */
export const CLEANUP_PENDING: ConditionValue = {
  status: 'False',
  reason: 'CleanupPending',
  message: 'The workspace can exist. The controller deletes it.'
}

export const DELETED: ConditionValue = {
  status: 'True',
  reason: 'Deleted',
  message: 'The workspace is deleted.'
}

/** WorkspaceDeleted of a scripted failure at a running step, unless the script gives one. */
export function scriptedFailureDeleted(
  running: RunningStep,
  reason: string
): ConditionValue | undefined {
  if (running === 'CreatingWorkspace' && reason === 'CreateRejected') return NOT_CREATED
  if (reason === 'DeleteBuildFailed')
    return {
      status: 'False',
      reason: 'DeleteRetrying',
      message: 'The delete build failed. The controller retries it.'
    }
  return undefined
}
