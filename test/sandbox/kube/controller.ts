// The CoderTemplateTest controller, in-process and scriptable per test.
// Lifecycle: coder-k8s-api.md §1.4 (phases), §1.5 (conditions), §1.6 (reasons), §1.7
// (observedGeneration), §1.8 (Succeeded only after the workspace delete), §1.9 (names, deadline).
// Coder is reached only through CoderBackend. Workspaces are simulated by step delays.
import { randomUUID } from 'node:crypto'
import type { CoderTemplateTest, CoderTemplateTestStatus, Condition } from '../../../src/api.js'
import type { CoderBackend } from '../contracts.js'
import { FINALIZER, rfc3339 } from './store.js'
import type { StoredEvent, TestStore } from './store.js'
import { deepEqual } from './validation.js'

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
  /** Fail with this reason at this step (before the step's own status write). */
  failAt?: {
    step: 'resolve' | RunningStep
    reason: string
    /** Written verbatim (newlines and `::` lines included), cut to 256 bytes as the real one (§1.3). */
    message?: string
    /** Final WorkspaceDeleted condition; default from §1.5 (NotCreated before a create, else Deleted after cleanup). */
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
  /** Requeue interval while waiting for Coder inputs (real: 15 s Pending, §1.9). */
  pollIntervalMs?: number
  /** Milliseconds per spec second, to scale timeoutSeconds (default 1000; tests use ~1-5). */
  secondMs?: number
  /** Delay of the workspace cleanup after a failure and of finalizer release on delete. */
  cleanupDelayMs?: number
}

/** status.message limit (§1.3). */
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

/** ktt- + first 28 hex chars of the UID without dashes (§1.9). */
export const workspaceNameFor = (uid: string): string => `ktt-${uid.replace(/-/g, '').slice(0, 28)}`

// guess: wait-reason messages are not quoted in the reference; these paraphrase §1.6.
const waitMessages: Record<string, string> = {
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

// guess: failure messages paraphrase §1.6 (only DeadlineExceeded's format is documented).
const failureMessages: Record<string, string> = {
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

class Stopped extends Error {}

export class TestController {
  readonly finals: FinalStatusInfo[] = []
  private readonly scripts: Record<string, TestScript>
  private readonly finalListeners = new Set<(info: FinalStatusInfo) => void>()
  private readonly unsubscribe: () => void
  private readonly running = new Set<string>()
  private down = false
  private stopped = false
  private readonly sleepers = new Set<() => void>()
  private readonly ownerID = randomUUID()

  constructor(
    private readonly store: TestStore,
    private readonly coder: CoderBackend,
    private readonly options: ControllerOptions = {}
  ) {
    this.scripts = { ...(options.scripts ?? {}) }
    this.unsubscribe = store.subscribe((event) => this.onEvent(event))
  }

  /** Sets the script of one test (by name) or of `default`. */
  script(name: string, script: TestScript): void {
    this.scripts[name] = script
  }

  /** While down, no reconcile happens (objects keep their last status). */
  setDown(down: boolean): void {
    this.down = down
  }

  onFinal(listener: (info: FinalStatusInfo) => void): () => void {
    this.finalListeners.add(listener)
    return () => this.finalListeners.delete(listener)
  }

  stop(): void {
    this.stopped = true
    this.unsubscribe()
    for (const wake of [...this.sleepers]) wake()
    this.sleepers.clear()
  }

  private scriptFor(name: string): TestScript {
    return this.scripts[name] ?? this.scripts.default ?? {}
  }

  private onEvent(event: StoredEvent): void {
    const { namespace, name } = event.object.metadata
    const id = `${namespace}/${name}`
    if (event.type === 'ADDED' && !this.running.has(id)) {
      this.running.add(id)
      void this.run(namespace!, name!)
        .then(() => this.expire(namespace!, name!))
        .catch(() => undefined)
        .finally(() => this.running.delete(id))
    }
    if (event.type === 'MODIFIED' && event.object.metadata.deletionTimestamp)
      void this.release(namespace!, name!).catch(() => undefined)
  }

  /**
   * ttlSecondsAfterFinished: deletes a finished test whose workspace is gone (WorkspaceDeleted=True)
   * that long after (§1.2, §1.10). guess: counted from the end of the run, not from the later of
   * completionTime and the workspace deletion (the same moment here).
   */
  private async expire(namespace: string, name: string): Promise<void> {
    const object = this.store.get(namespace, name)
    const ttl = object?.spec.ttlSecondsAfterFinished
    if (ttl === undefined) return
    const deleted = object?.status?.conditions?.find((c) => c.type === 'WorkspaceDeleted')
    if (deleted?.status !== 'True') return
    await this.sleep(ttl * (this.options.secondMs ?? 1000))
    if (this.store.get(namespace, name)?.metadata.uid === object?.metadata.uid)
      this.store.delete(namespace, name)
  }

  /** Deletion: the workspace is deleted first, then the finalizer goes (§1.10). */
  private async release(namespace: string, name: string): Promise<void> {
    await this.sleep(this.options.cleanupDelayMs ?? 20)
    const current = this.store.get(namespace, name)
    if (!current?.metadata.finalizers?.includes(FINALIZER)) return
    this.store.mutate(namespace, name, (o) => {
      o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== FINALIZER)
    })
  }

  /** Waits ms (then while down); stop() wakes every sleeper at once so no timer outlives it. */
  private async sleep(ms: number): Promise<void> {
    const pause = (delay: number): Promise<void> =>
      new Promise((resolve) => {
        if (this.stopped) return resolve()
        const timer = setTimeout(() => {
          this.sleepers.delete(wake)
          resolve()
        }, delay)
        const wake = (): void => {
          clearTimeout(timer)
          resolve()
        }
        this.sleepers.add(wake)
      })
    await pause(ms)
    while (this.down && !this.stopped) await pause(10)
    if (this.stopped) throw new Stopped()
  }

  private delayFor(script: TestScript, step: ControllerStep): number {
    return script.stepDelays?.[step] ?? script.stepDelayMs ?? this.options.stepDelayMs ?? 10
  }

  private read(namespace: string, name: string): CoderTemplateTest {
    const object = this.store.get(namespace, name)
    if (!object || object.metadata.deletionTimestamp) throw new Stopped()
    return object
  }

  /** Writes the status only when it changed; sets observedGeneration everywhere (§1.7). */
  private writeStatus(
    namespace: string,
    name: string,
    script: TestScript,
    fields: Partial<CoderTemplateTestStatus>,
    conditions: Record<string, ConditionValue> = {}
  ): CoderTemplateTest {
    const object = this.read(namespace, name)
    const generation = object.metadata.generation ?? 1
    const observed =
      script.staleGeneration?.mode === 'old-observed-generation' ? generation - 1 : generation
    const previous = object.status ?? {}
    const next: CoderTemplateTestStatus = { ...previous, ...fields, observedGeneration: observed }
    const now = rfc3339(new Date())
    const merged = [...(previous.conditions ?? [])]
    for (const [type, value] of Object.entries(conditions)) {
      const index = merged.findIndex((c) => c.type === type)
      const old = index >= 0 ? merged[index] : undefined
      const condition: Condition = {
        type,
        status: value.status,
        observedGeneration: observed,
        lastTransitionTime:
          old && old.status === value.status && old.lastTransitionTime
            ? old.lastTransitionTime
            : now,
        reason: value.reason,
        message: value.message
      }
      if (index >= 0) merged[index] = condition
      else merged.push(condition)
    }
    next.conditions = merged.map((c) => ({ ...c, observedGeneration: observed }))
    for (const [field, value] of Object.entries(next)) if (value === undefined) delete next[field]
    if (deepEqual(next, previous)) return object
    return this.store.updateStatus(namespace, name, next, object.metadata.resourceVersion)
  }

  private async run(namespace: string, name: string): Promise<void> {
    const script = this.scriptFor(name)
    if (script.downForMs) await this.sleep(script.downForMs)

    // Reconcile 1: finalizer only, no status (§1.7).
    await this.sleep(this.delayFor(script, 'finalizer'))
    this.read(namespace, name)
    this.store.mutate(namespace, name, (o) => {
      o.metadata.finalizers = [...(o.metadata.finalizers ?? []), FINALIZER]
    })

    // Reconcile 2: Pending/Initializing (§1.5).
    await this.sleep(this.delayFor(script, 'initializing'))
    const startedAt = Date.now()
    const object = this.writeStatus(
      namespace,
      name,
      script,
      {
        phase: 'Pending',
        reason: 'Initializing',
        message: 'The controller started the test.',
        startTime: rfc3339(new Date(startedAt))
      },
      {
        Ready: {
          status: 'False',
          reason: 'Initializing',
          message: 'The controller started the test.'
        },
        Reconciling: {
          status: 'True',
          reason: 'Initializing',
          message: 'The controller started the test.'
        },
        Stalled: {
          status: 'False',
          reason: 'Initializing',
          message: 'The controller started the test.'
        }
      }
    )
    const timeoutSeconds = object.spec.timeoutSeconds ?? 900
    const deadline = startedAt + timeoutSeconds * (this.options.secondMs ?? 1000)
    const workspaceName = workspaceNameFor(object.metadata.uid!)
    let last = { reason: 'Initializing', message: 'The controller started the test.' }
    let createSent = false

    const setWait = (phase: 'Pending' | 'Running', reason: string, extra = {}): void => {
      const message = waitMessages[reason] ?? reason
      last = { reason, message }
      this.writeStatus(
        namespace,
        name,
        script,
        { phase, reason, message, ...extra },
        {
          Reconciling: { status: 'True', reason, message }
        }
      )
    }
    const fail = async (
      reason: string,
      message: string,
      deleted?: ConditionValue
    ): Promise<void> => {
      const workspaceDeleted: ConditionValue =
        deleted ??
        (createSent
          ? {
              status: 'False',
              reason: 'CleanupPending',
              message: 'The workspace can exist. The controller deletes it.'
            }
          : {
              status: 'True',
              reason: 'NotCreated',
              message: 'The controller never sent a workspace create request.'
            })
      await this.finish(namespace, name, script, 'Failed', reason, message, workspaceDeleted)
      if (!deleted && createSent) {
        // Cleanup changes only WorkspaceDeleted, never the phase (§1.4).
        await this.sleep(this.options.cleanupDelayMs ?? 20)
        this.writeStatus(
          namespace,
          name,
          script,
          {},
          {
            WorkspaceDeleted: {
              status: 'True',
              reason: 'Deleted',
              message: 'The workspace is deleted.'
            }
          }
        )
      }
    }
    /** Sleeps one step; false when the deadline passed (then the test has failed). */
    const step = async (which: ControllerStep): Promise<boolean> => {
      const delay = this.delayFor(script, which)
      await this.sleep(Math.max(0, Math.min(delay, deadline - Date.now())))
      if (Date.now() < deadline) return true
      await fail(
        'DeadlineExceeded',
        // §1.6: the documented message format
        `The test did not finish within ${timeoutSeconds}s. Last wait: ${last.reason}: ${last.message}`
      )
      return false
    }

    // Resolve the template and the version through Coder (§1.6 wait and failure reasons).
    const [organization, templateName] = object.spec.template.split('.')
    let resolved: {
      templateID: string
      organizationID: string
      versionID: string
      versionName: string
    }
    for (;;) {
      if (!(await step('resolve'))) return
      if (script.failAt?.step === 'resolve')
        return fail(
          script.failAt.reason,
          script.failAt.message ?? failureMessages[script.failAt.reason] ?? script.failAt.reason,
          script.failAt.workspaceDeleted
        )
      const template = this.coder.findTemplate(organization, templateName)
      if (!template) {
        setWait('Pending', 'TemplateNotFound')
        await this.sleep(this.options.pollIntervalMs ?? 25)
        continue
      }
      if (template.deprecated) return fail('TemplateDeprecated', failureMessages.TemplateDeprecated)
      const selector = object.spec.version
      const version = selector.name
        ? this.coder.findVersionByName(organization, templateName, selector.name)
        : selector.id
          ? this.coder.findVersionById(selector.id)
          : this.coder.findVersionById(template.activeVersionId)
      if (!version) {
        setWait('Pending', 'TemplateVersionNotFound')
        await this.sleep(this.options.pollIntervalMs ?? 25)
        continue
      }
      if (version.templateId !== null && version.templateId !== template.id)
        return fail('TemplateVersionMismatch', failureMessages.TemplateVersionMismatch)
      if (version.archived)
        return fail('TemplateVersionArchived', failureMessages.TemplateVersionArchived)
      if (version.jobStatus === 'failed' || version.jobStatus === 'canceled')
        return fail('TemplateVersionImportFailed', failureMessages.TemplateVersionImportFailed)
      if (version.jobStatus !== 'succeeded') {
        setWait('Pending', 'TemplateVersionImporting')
        await this.sleep(this.options.pollIntervalMs ?? 25)
        continue
      }
      resolved = {
        templateID: template.id,
        organizationID: template.organizationId,
        versionID: script.overrideVersionID ?? version.id,
        versionName: version.name
      }
      break
    }

    const pinned = {
      organizationID: resolved.organizationID,
      templateID: resolved.templateID,
      templateVersionID: resolved.versionID,
      templateVersionName: resolved.versionName,
      ownerID: this.ownerID,
      workspaceName
    }
    for (const running of RUNNING_STEPS) {
      // Cleanup continues after the deadline (§1.2 timeoutSeconds).
      if (running === 'DeletingWorkspace') await this.sleep(this.delayFor(script, running))
      else if (!(await step(running))) return
      if (script.failAt?.step === running) {
        const reason = script.failAt.reason
        const deleted =
          script.failAt.workspaceDeleted ??
          (running === 'CreatingWorkspace' && reason === 'CreateRejected'
            ? {
                status: 'True' as const,
                reason: 'NotCreated',
                message: 'The controller never sent a workspace create request.'
              }
            : reason === 'DeleteBuildFailed'
              ? {
                  status: 'False' as const,
                  reason: 'DeleteRetrying',
                  message: 'The delete build failed. The controller retries it.'
                }
              : undefined)
        return fail(reason, script.failAt.message ?? failureMessages[reason] ?? reason, deleted)
      }
      const extra: Partial<CoderTemplateTestStatus> = { ...pinned }
      if (running === 'CreatingWorkspace') {
        extra.createAttemptTime = rfc3339(new Date())
        createSent = true
      }
      if (running === 'WaitingForBuild') {
        extra.workspaceID = randomUUID()
        extra.startBuildID = randomUUID()
      }
      if (running === 'AgentsReady') extra.agentsReadyTime = rfc3339(new Date())
      if (running === 'DeletingWorkspace') extra.deleteBuildID = randomUUID()
      setWait('Running', running, extra)
    }

    await this.sleep(this.delayFor(script, 'final'))
    await this.finish(
      namespace,
      name,
      script,
      'Succeeded',
      'Succeeded',
      // §1.5: the documented success message
      `Every agent of workspace ${workspaceName} was ready, and the workspace is deleted.`,
      { status: 'True', reason: 'Deleted', message: 'The workspace is deleted.' }
    )
  }

  private async finish(
    namespace: string,
    name: string,
    script: TestScript,
    phase: 'Succeeded' | 'Failed',
    reason: string,
    message: string,
    workspaceDeleted: ConditionValue
  ): Promise<void> {
    const success = phase === 'Succeeded'
    // §1.3: the message is truncated to 256 bytes; the conditions carry the same text.
    // guess: cut at a UTF-8 character boundary, without a marker; conditions are cut alike.
    message = truncateUtf8(message, STATUS_MESSAGE_LIMIT_BYTES)
    const written = this.writeStatus(
      namespace,
      name,
      script,
      { phase, reason, message, completionTime: rfc3339(new Date()) },
      {
        Ready: { status: success ? 'True' : 'False', reason, message },
        Reconciling: { status: 'False', reason, message },
        Stalled: { status: success ? 'False' : 'True', reason, message },
        WorkspaceDeleted: workspaceDeleted
      }
    )
    const info: FinalStatusInfo = {
      namespace,
      name,
      phase,
      reason,
      templateVersionID: written.status?.templateVersionID,
      at: Date.now()
    }
    this.finals.push(info)
    script.onFinal?.(info)
    for (const listener of [...this.finalListeners]) listener(info)
    const stale = script.staleGeneration
    if (stale?.mode === 'bump-generation')
      this.store.mutate(namespace, name, (o) => {
        o.metadata.generation = (o.metadata.generation ?? 1) + 1
      })
    if (stale?.forMs !== undefined) {
      await this.sleep(stale.forMs)
      const fresh = { ...script, staleGeneration: undefined }
      const object = this.read(namespace, name)
      this.writeStatus(namespace, name, fresh, {
        observedGeneration: object.metadata.generation
      })
    }
  }
}
