// One run of the sandbox controller over one CoderTemplateTest: finalizer, Initializing, resolve
// the template and version through Coder, the running steps, then the final status.
// Lifecycle: https://github.com/coder/coder-k8s/blob/main/docs/how-to/test-templates.md
import { randomUUID } from 'node:crypto'
import type { CoderTemplateTest, CoderTemplateTestStatus } from '../../../src/objects/coder-k8s.js'
import type { CoderBackend } from '../contracts.js'
import {
  CLEANUP_PENDING,
  DELETED,
  NOT_CREATED,
  RUNNING_STEPS,
  STARTED_MESSAGE,
  failureMessages,
  scriptedFailureDeleted,
  waitMessages,
  workspaceNameFor
} from './controller-script.js'
import type {
  ConditionValue,
  ControllerOptions,
  ControllerStep,
  RunningStep,
  TestScript
} from './controller-script.js'
import { rfc3339 } from './store.js'

/** What a run needs of its controller (the store and the clock stay there). */
export interface RunHost {
  readonly coder: CoderBackend
  readonly options: ControllerOptions
  readonly ownerID: string
  sleep(ms: number): Promise<void>
  delayFor(script: TestScript, step: ControllerStep): number
  read(namespace: string, name: string): CoderTemplateTest
  addFinalizer(namespace: string, name: string): void
  writeStatus(
    namespace: string,
    name: string,
    script: TestScript,
    fields: Partial<CoderTemplateTestStatus>,
    conditions?: Record<string, ConditionValue>
  ): CoderTemplateTest
  finish(
    namespace: string,
    name: string,
    script: TestScript,
    phase: 'Succeeded' | 'Failed',
    reason: string,
    message: string,
    workspaceDeleted: ConditionValue
  ): Promise<void>
}

interface Resolved {
  templateID: string
  organizationID: string
  versionID: string
  versionName: string
}

/** The longest holdUntil waits; the world's close (the controller's stop) ends it sooner. */
const HOLD_LIMIT_MS = 600_000

type Lookup = { wait: string } | { failure: string } | { resolved: Resolved }

export class TestRun {
  private last = { reason: 'Initializing', message: STARTED_MESSAGE }
  private createSent = false
  private timeoutSeconds = 900
  private deadline = 0

  constructor(
    private readonly host: RunHost,
    private readonly namespace: string,
    private readonly name: string,
    private readonly script: TestScript
  ) {}

  async run(): Promise<void> {
    const { host, namespace, name, script } = this
    if (script.downForMs) await host.sleep(script.downForMs)
    if (script.holdUntil) await Promise.race([script.holdUntil, host.sleep(HOLD_LIMIT_MS)])

    // Reconcile 1: finalizer only, no status.
    await host.sleep(host.delayFor(script, 'finalizer'))
    host.read(namespace, name)
    host.addFinalizer(namespace, name)

    const object = await this.initialize()
    const workspaceName = workspaceNameFor(object.metadata.uid!)
    const resolved = await this.resolve(object)
    if (!resolved) return
    if (!(await this.runSteps(resolved, workspaceName))) return

    await host.sleep(host.delayFor(script, 'final'))
    await host.finish(
      namespace,
      name,
      script,
      'Succeeded',
      'Succeeded',
      // The documented success message
      `Every agent of workspace ${workspaceName} was ready, and the workspace is deleted.`,
      DELETED
    )
  }

  /** Reconcile 2: Pending/Initializing; the deadline counts from here. */
  private async initialize(): Promise<CoderTemplateTest> {
    const { host, namespace, name, script } = this
    await host.sleep(host.delayFor(script, 'initializing'))
    const startedAt = Date.now()
    const started = { reason: 'Initializing', message: STARTED_MESSAGE }
    const object = host.writeStatus(
      namespace,
      name,
      script,
      { phase: 'Pending', ...started, startTime: rfc3339(new Date(startedAt)) },
      {
        Ready: { status: 'False', ...started },
        Reconciling: { status: 'True', ...started },
        Stalled: { status: 'False', ...started }
      }
    )
    this.timeoutSeconds = object.spec.timeoutSeconds ?? 900
    this.deadline = startedAt + this.timeoutSeconds * (host.options.secondMs ?? 1000)
    return object
  }

  private setWait(phase: 'Pending' | 'Running', reason: string, extra = {}): void {
    const message = waitMessages[reason] ?? reason
    this.last = { reason, message }
    this.host.writeStatus(
      this.namespace,
      this.name,
      this.script,
      { phase, reason, message, ...extra },
      { Reconciling: { status: 'True', reason, message } }
    )
  }

  private async fail(reason: string, message: string, deleted?: ConditionValue): Promise<void> {
    const { host, namespace, name, script } = this
    const workspaceDeleted = deleted ?? (this.createSent ? CLEANUP_PENDING : NOT_CREATED)
    await host.finish(namespace, name, script, 'Failed', reason, message, workspaceDeleted)
    if (!deleted && this.createSent) {
      // Cleanup changes only WorkspaceDeleted, never the phase.
      await host.sleep(host.options.cleanupDelayMs ?? 20)
      host.writeStatus(namespace, name, script, {}, { WorkspaceDeleted: DELETED })
    }
  }

  /** Sleeps one step; false when the deadline passed (then the test has failed). */
  private async step(which: ControllerStep): Promise<boolean> {
    const delay = this.host.delayFor(this.script, which)
    await this.host.sleep(Math.max(0, Math.min(delay, this.deadline - Date.now())))
    if (Date.now() < this.deadline) return true
    await this.fail(
      'DeadlineExceeded',
      // The documented message format
      `The test did not finish within ${this.timeoutSeconds}s. Last wait: ${this.last.reason}: ${this.last.message}`
    )
    return false
  }

  /** Resolves the template and the version through Coder (its wait and failure reasons). */
  private async resolve(object: CoderTemplateTest): Promise<Resolved | undefined> {
    const [organization, templateName] = object.spec.template.split('.')
    for (;;) {
      if (!(await this.step('resolve'))) return undefined
      const failAt = this.script.failAt
      if (failAt?.step === 'resolve') {
        await this.fail(
          failAt.reason,
          failAt.message ?? failureMessages[failAt.reason] ?? failAt.reason,
          failAt.workspaceDeleted
        )
        return undefined
      }
      const found = this.lookup(object, organization, templateName)
      if ('resolved' in found) return found.resolved
      if ('failure' in found) {
        await this.fail(found.failure, failureMessages[found.failure])
        return undefined
      }
      this.setWait('Pending', found.wait)
      await this.host.sleep(this.host.options.pollIntervalMs ?? 25)
    }
  }

  private lookup(object: CoderTemplateTest, organization: string, templateName: string): Lookup {
    const coder = this.host.coder
    const template = coder.findTemplate(organization, templateName)
    if (!template) return { wait: 'TemplateNotFound' }
    if (template.deprecated) return { failure: 'TemplateDeprecated' }
    const selector = object.spec.version
    const version = selector.name
      ? coder.findVersionByName(organization, templateName, selector.name)
      : selector.id
        ? coder.findVersionById(selector.id)
        : coder.findVersionById(template.activeVersionId)
    if (!version) return { wait: 'TemplateVersionNotFound' }
    if (version.templateId !== null && version.templateId !== template.id)
      return { failure: 'TemplateVersionMismatch' }
    if (version.archived) return { failure: 'TemplateVersionArchived' }
    if (version.jobStatus === 'failed' || version.jobStatus === 'canceled')
      return { failure: 'TemplateVersionImportFailed' }
    if (version.jobStatus !== 'succeeded') return { wait: 'TemplateVersionImporting' }
    return {
      resolved: {
        templateID: template.id,
        organizationID: template.organizationId,
        versionID: this.script.overrideVersionID ?? version.id,
        versionName: version.name
      }
    }
  }

  /** The running steps; false when the run ended early (failure or deadline). */
  private async runSteps(resolved: Resolved, workspaceName: string): Promise<boolean> {
    const pinned = {
      organizationID: resolved.organizationID,
      templateID: resolved.templateID,
      templateVersionID: resolved.versionID,
      templateVersionName: resolved.versionName,
      ownerID: this.host.ownerID,
      workspaceName
    }
    for (const running of RUNNING_STEPS) {
      // Cleanup continues after the deadline (timeoutSeconds).
      if (running === 'DeletingWorkspace')
        await this.host.sleep(this.host.delayFor(this.script, running))
      else if (!(await this.step(running))) return false
      const failAt = this.script.failAt
      if (failAt?.step === running) {
        const reason = failAt.reason
        const deleted = failAt.workspaceDeleted ?? scriptedFailureDeleted(running, reason)
        await this.fail(reason, failAt.message ?? failureMessages[reason] ?? reason, deleted)
        return false
      }
      this.setWait('Running', running, this.stepFields(running, pinned))
    }
    return true
  }

  /** The status fields a running step writes (ids are made up, times are now). */
  private stepFields(
    running: RunningStep,
    pinned: Partial<CoderTemplateTestStatus>
  ): Partial<CoderTemplateTestStatus> {
    const extra: Partial<CoderTemplateTestStatus> = { ...pinned }
    if (running === 'CreatingWorkspace') {
      extra.createAttemptTime = rfc3339(new Date())
      this.createSent = true
    }
    if (running === 'WaitingForBuild') {
      extra.workspaceID = randomUUID()
      extra.startBuildID = randomUUID()
    }
    if (running === 'AgentsReady') extra.agentsReadyTime = rfc3339(new Date())
    if (running === 'DeletingWorkspace') extra.deleteBuildID = randomUUID()
    return extra
  }
}
