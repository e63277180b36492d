// The CoderTemplateTest store: a global, monotonically increasing resourceVersion (decimal string,
// like etcd's revision), a bounded history of watch events (older resourceVersions give 410 Gone)
// and in-process listeners (watch streams and the controller).
import { randomUUID } from 'node:crypto'
import {
  TEST_API_VERSION,
  TEST_GROUP,
  TEST_KIND,
  TEST_PLURAL
} from '../../../src/objects/coder-k8s.js'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import { alreadyExists, apiError, conflict, invalid, notFound } from './status.js'
import { applyDefaults, prune, validateSpec } from './validation.js'
import type { FieldCause, TestSchema } from './validation.js'

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED'

export interface StoredEvent {
  type: WatchEventType
  resourceVersion: number
  object: CoderTemplateTest
}

export type StoreListener = (event: StoredEvent) => void

export const TEST_RESOURCE = { group: TEST_GROUP, resource: TEST_PLURAL, kind: TEST_KIND }
export const FINALIZER = 'coder.com/template-test-cleanup'

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

const key = (namespace: string, name: string): string => `${namespace}/${name}`

export class TestStore {
  private readonly objects = new Map<string, CoderTemplateTest>()
  private readonly history: StoredEvent[] = []
  private readonly listeners = new Set<StoreListener>()
  private revision: number

  constructor(
    readonly schema: TestSchema,
    private readonly historyLimit: number,
    startRevision = 1000
  ) {
    this.revision = startRevision
  }

  get currentResourceVersion(): string {
    return String(this.revision)
  }

  /** The oldest resourceVersion a watch may still start from (events after it are retained). */
  get oldestWatchableRevision(): number {
    return this.history.length > 0 ? this.history[0].resourceVersion - 1 : this.revision
  }

  eventsAfter(revision: number): StoredEvent[] {
    return this.history.filter((e) => e.resourceVersion > revision)
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  get(namespace: string, name: string): CoderTemplateTest | undefined {
    const found = this.objects.get(key(namespace, name))
    return found ? structuredClone(found) : undefined
  }

  mustGet(namespace: string, name: string): CoderTemplateTest {
    const found = this.get(namespace, name)
    if (!found) throw notFound(TEST_RESOURCE, name)
    return found
  }

  list(namespace?: string): CoderTemplateTest[] {
    return [...this.objects.values()]
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
      .sort((a, b) =>
        key(a.metadata.namespace!, a.metadata.name!).localeCompare(
          key(b.metadata.namespace!, b.metadata.name!)
        )
      )
      .map((o) => structuredClone(o))
  }

  /** API create: validation, defaults, status dropped (status subresource), identity fields set. */
  create(namespace: string, input: unknown, dryRun = false): CoderTemplateTest {
    const body = (input ?? {}) as Partial<CoderTemplateTest> & {
      metadata?: Record<string, unknown>
    }
    const metadata = { ...(body.metadata ?? {}) } as CoderTemplateTest['metadata'] & {
      generateName?: string
    }
    if (metadata.namespace && metadata.namespace !== namespace)
      throw apiError(
        400,
        'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request'
      )
    if (body.apiVersion && body.apiVersion !== TEST_API_VERSION)
      throw apiError(
        400,
        'BadRequest',
        `the API version in the data (${body.apiVersion}) does not match the expected API version (${TEST_API_VERSION})`
      )
    if (!metadata.name && metadata.generateName)
      metadata.name = metadata.generateName + Math.random().toString(36).slice(2, 7)
    const name = metadata.name ?? ''
    const causes = nameCauses(name)
    const spec = prune(this.schema.spec, structuredClone(body.spec)) as CoderTemplateTest['spec']
    applyDefaults(this.schema.spec, spec)
    causes.push(...validateSpec(this.schema, spec))
    if (causes.length > 0) throw invalid(TEST_KIND, TEST_GROUP, name, causes)
    if (this.objects.has(key(namespace, name))) throw alreadyExists(TEST_RESOURCE, name)

    const object: CoderTemplateTest = {
      apiVersion: TEST_API_VERSION,
      kind: TEST_KIND,
      metadata: {
        ...(metadata.labels ? { labels: metadata.labels } : {}),
        ...(metadata.annotations ? { annotations: metadata.annotations } : {}),
        ...(metadata.finalizers ? { finalizers: metadata.finalizers } : {}),
        name,
        namespace,
        uid: randomUUID(),
        resourceVersion: '',
        generation: 1,
        creationTimestamp: rfc3339(new Date())
      },
      spec
    }
    if (dryRun) {
      object.metadata.resourceVersion = ''
      return object
    }
    this.commit('ADDED', object)
    return structuredClone(object)
  }

  /**
   * API update (PUT) or the result of a merge patch: the spec must be unchanged (CEL
   * `self == oldSelf`), metadata stays writable, status is ignored (status subresource).
   */
  update(
    namespace: string,
    name: string,
    input: CoderTemplateTest,
    dryRun = false
  ): CoderTemplateTest {
    const current = this.mustGet(namespace, name)
    const sentVersion = input.metadata?.resourceVersion
    if (sentVersion && sentVersion !== current.metadata.resourceVersion)
      throw conflict(TEST_RESOURCE, name)
    const spec = prune(this.schema.spec, structuredClone(input.spec)) as CoderTemplateTest['spec']
    applyDefaults(this.schema.spec, spec)
    const causes = validateSpec(this.schema, spec, current.spec)
    if (causes.length > 0) throw invalid(TEST_KIND, TEST_GROUP, name, causes)
    const next = structuredClone(current)
    next.metadata.labels = input.metadata?.labels
    next.metadata.annotations = input.metadata?.annotations
    next.metadata.finalizers = input.metadata?.finalizers
    for (const field of ['labels', 'annotations', 'finalizers'] as const)
      if (next.metadata[field] === undefined) delete next.metadata[field]
    if (dryRun) return next
    return this.writeOrRemove(next)
  }

  /** `/status` PUT and the controller's in-process status writes (optimistic concurrency). */
  updateStatus(
    namespace: string,
    name: string,
    status: CoderTemplateTest['status'],
    expectedResourceVersion?: string
  ): CoderTemplateTest {
    const current = this.mustGet(namespace, name)
    if (expectedResourceVersion && expectedResourceVersion !== current.metadata.resourceVersion)
      throw conflict(TEST_RESOURCE, name)
    current.status = structuredClone(status)
    this.commit('MODIFIED', current)
    return structuredClone(current)
  }

  /** In-process metadata change (the controller's finalizer, a generation bump). */
  mutate(
    namespace: string,
    name: string,
    change: (object: CoderTemplateTest) => void
  ): CoderTemplateTest {
    const current = this.mustGet(namespace, name)
    change(current)
    return this.writeOrRemove(current)
  }

  /** Delete: with finalizers, sets deletionTimestamp and bumps generation (inferred). */
  delete(namespace: string, name: string, dryRun = false): CoderTemplateTest {
    const current = this.mustGet(namespace, name)
    if (dryRun) return current
    if ((current.metadata.finalizers ?? []).length === 0) {
      this.remove(current)
      return current
    }
    if (current.metadata.deletionTimestamp) return current
    current.metadata.deletionTimestamp = rfc3339(new Date())
    current.metadata.generation = (current.metadata.generation ?? 1) + 1
    this.commit('MODIFIED', current)
    return structuredClone(current)
  }

  private writeOrRemove(object: CoderTemplateTest): CoderTemplateTest {
    if (object.metadata.deletionTimestamp && (object.metadata.finalizers ?? []).length === 0) {
      this.remove(object)
      return object
    }
    this.commit('MODIFIED', object)
    return structuredClone(object)
  }

  private remove(object: CoderTemplateTest): void {
    this.objects.delete(key(object.metadata.namespace!, object.metadata.name!))
    this.revision += 1
    object.metadata.resourceVersion = String(this.revision)
    this.record('DELETED', object)
  }

  private commit(type: WatchEventType, object: CoderTemplateTest): void {
    this.revision += 1
    object.metadata.resourceVersion = String(this.revision)
    this.objects.set(
      key(object.metadata.namespace!, object.metadata.name!),
      structuredClone(object)
    )
    this.record(type, object)
  }

  private record(type: WatchEventType, object: CoderTemplateTest): void {
    const event: StoredEvent = {
      type,
      resourceVersion: this.revision,
      object: structuredClone(object)
    }
    this.history.push(event)
    while (this.history.length > this.historyLimit) this.history.shift()
    for (const listener of [...this.listeners]) listener(event)
  }
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** metadata.name: required, a lowercase RFC 1123 subdomain of at most 253 characters. */
function nameCauses(name: string): FieldCause[] {
  const causes: FieldCause[] = []
  if (!name)
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value: name or generateName is required',
      field: 'metadata.name'
    })
  else if (!dnsSubdomain.test(name) || name.length > 253)
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(name)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      field: 'metadata.name'
    })
  return causes
}
