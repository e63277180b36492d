// The CoderTemplateTest controller, in-process and scriptable per test: it watches the store,
// starts one TestRun (controller-run.ts) per new object, writes status and releases finalizers.
// Lifecycle (phases, conditions, reasons, observedGeneration, Succeeded only after the workspace
// delete, names, deadline): https://github.com/coder/coder-k8s/blob/main/docs/how-to/test-templates.md
// Coder is reached only through CoderBackend. Workspaces are simulated by step delays.
import { randomUUID } from 'node:crypto'
import type {
  CoderTemplateTest,
  CoderTemplateTestStatus,
  Condition
} from '../../../src/objects/coder-k8s.js'
import type { CoderBackend } from '../contracts.js'
import { TestRun } from './controller-run.js'
import type { RunHost } from './controller-run.js'
import { STATUS_MESSAGE_LIMIT_BYTES, truncateUtf8 } from './controller-script.js'
import type {
  ConditionValue,
  ControllerOptions,
  ControllerStep,
  FinalStatusInfo,
  TestScript
} from './controller-script.js'
import { FINALIZER, rfc3339 } from './store.js'
import type { StoredEvent, TestStore } from './store.js'
import { deepEqual } from './validation.js'

export {
  RUNNING_STEPS,
  STATUS_MESSAGE_LIMIT_BYTES,
  truncateUtf8,
  workspaceNameFor
} from './controller-script.js'
export type {
  ConditionValue,
  ControllerOptions,
  ControllerStep,
  FinalStatusInfo,
  RunningStep,
  TestScript
} from './controller-script.js'

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
   * that long after. guess: counted from the end of the run, not from the later of
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

  /** Deletion: the workspace is deleted first, then the finalizer goes. */
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

  /** Writes the status only when it changed; sets observedGeneration everywhere. */
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
    await new TestRun(this.runHost(), namespace, name, this.scriptFor(name)).run()
  }

  private runHost(): RunHost {
    return {
      coder: this.coder,
      options: this.options,
      ownerID: this.ownerID,
      sleep: (ms) => this.sleep(ms),
      delayFor: (script, step) => this.delayFor(script, step),
      read: (namespace, name) => this.read(namespace, name),
      addFinalizer: (namespace, name) =>
        this.store.mutate(namespace, name, (o) => {
          o.metadata.finalizers = [...(o.metadata.finalizers ?? []), FINALIZER]
        }),
      writeStatus: (...args) => this.writeStatus(...args),
      finish: (...args) => this.finish(...args)
    }
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
    // The message is truncated to 256 bytes; the conditions carry the same text.
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
