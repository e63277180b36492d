// A GitOps sync loop like Argo CD / Flux: it follows the commits of the GitOps repository's synced
// branch (never other branches, such as the pull request branches of pull-request mode) and,
// delayMs after each commit, applies every `*.yaml` / `*.yml` under the watched folder as of that
// commit. Absent objects are created; an object with the same spec is left alone; a changed spec of
// an existing CoderTemplateTest is a sync error carrying the API server's immutable-spec message
// (a CEL rule of the CRD), as the real tools report a failed apply. Deleted files prune nothing by
// default (guess: the default of both tools without prune enabled); with `prune: true` an object
// this loop applied that no file describes any more is deleted, as Argo CD's automated sync with
// prune and Flux's Kustomization `prune: true` do.
import { parseAllDocuments } from 'yaml'
import { TEST_KIND } from '../../src/objects/coder-k8s.js'
import type { CoderTemplateTest } from '../../src/objects/coder-k8s.js'
import type { GitCommit } from './contracts.js'
import type { KubeSandbox } from './kube/server.js'
import { followEngine, type SyncEngine } from './gitops-nudge.js'
import { ApiError } from './kube/status.js'
import { applyDefaults, deepEqual, prune as dropUnknownFields } from './kube/validation.js'

export interface GitOpsSyncOptions {
  subscribe: (listener: (commit: GitCommit) => void) => () => void
  kube: KubeSandbox
  /** Folder watched in the repository, e.g. `coder-template-tests`. */
  path: string
  delayMs: number
  /** Namespace of manifests without metadata.namespace (Argo CD's destination namespace). */
  namespaceDefault?: string
  /** Only commits to this branch count. Default 'main' (the world's default branch). */
  branch?: string
  /** Only commits to this repository ('owner/name') count. Default: any repository. */
  repository?: string
  /** Delete the objects whose manifests were removed from the folder. Default false. */
  prune?: boolean
  /** Poll Git every pollIntervalMs, not after each commit; a nudge of `engine` syncs at once. */
  pollIntervalMs?: number
  /** The Argo CD Application or Flux Kustomization + GitRepository of this loop (gitops-nudge.ts). */
  engine?: SyncEngine
}

export interface AppliedManifest {
  at: number
  sha: string
  file: string
  namespace: string
  name: string
  action: 'created' | 'unchanged' | 'pruned'
}

export interface SyncError {
  at: number
  sha: string
  file: string
  namespace: string
  name: string
  message: string
}

export interface GitOpsSync {
  applied: AppliedManifest[]
  syncErrors: SyncError[]
  /** Resolves when every scheduled sync has run. */
  idle(): Promise<void>
  stop(): void
}

/** What one sync loop has applied and tracks, apart from the commits it follows. */
interface SyncState {
  options: GitOpsSyncOptions
  applied: AppliedManifest[]
  syncErrors: SyncError[]
  // Objects this loop applied (Argo CD / Flux track them by label): the only ones it may prune.
  tracked: Map<string, { namespace: string; name: string }>
}

/** Applies one document; returns the object's key when it is one this loop manages. */
function applyOne(state: SyncState, sha: string, file: string, doc: unknown): string | null {
  const { options, applied } = state
  const object = doc as Partial<CoderTemplateTest> | null
  if (!object || typeof object !== 'object') return null
  const namespace = object.metadata?.namespace ?? options.namespaceDefault ?? 'default'
  const name = object.metadata?.name ?? ''
  const fail = (message: string): void => {
    state.syncErrors.push({ at: Date.now(), sha, file, namespace, name, message })
  }
  if (object.kind !== TEST_KIND) {
    fail(`sandbox sync applies only ${TEST_KIND} objects, not ${String(object.kind)}`)
    return null
  }
  const key = `${namespace}/${name}`
  state.tracked.set(key, { namespace, name })
  const store = options.kube.store
  try {
    const existing = store.get(namespace, name)
    if (!existing) {
      store.create(namespace, { ...object, metadata: { ...object.metadata, namespace } })
      applied.push({ at: Date.now(), sha, file, namespace, name, action: 'created' })
      return key
    }
    const desired = dropUnknownFields(options.kube.schema.spec, structuredClone(object.spec))
    applyDefaults(options.kube.schema.spec, desired)
    if (deepEqual(desired, existing.spec)) {
      applied.push({ at: Date.now(), sha, file, namespace, name, action: 'unchanged' })
      return key
    }
    // The apply the tools would send; the API server refuses it (spec is immutable).
    store.update(namespace, name, { ...existing, spec: object.spec as CoderTemplateTest['spec'] })
    applied.push({ at: Date.now(), sha, file, namespace, name, action: 'unchanged' })
  } catch (error) {
    fail(error instanceof ApiError ? error.message : (error as Error).message)
  }
  return key
}

/** Deletes tracked objects no manifest describes any more (prune enabled). */
function pruneRemoved(
  state: SyncState,
  sha: string,
  desired: Set<string>,
  removedFiles: string[]
): void {
  for (const [key, { namespace, name }] of [...state.tracked]) {
    if (desired.has(key)) continue
    state.tracked.delete(key)
    const store = state.options.kube.store
    if (!store.get(namespace, name)) continue
    try {
      // With finalizers the API server only marks it deleting; the controller finishes.
      store.delete(namespace, name)
      const file = removedFiles.join(', ')
      state.applied.push({ at: Date.now(), sha, file, namespace, name, action: 'pruned' })
    } catch (error) {
      const message = error instanceof ApiError ? error.message : (error as Error).message
      state.syncErrors.push({ at: Date.now(), sha, file: '', namespace, name, message })
    }
  }
}

function sync(
  state: SyncState,
  sha: string,
  snapshot: Map<string, string>,
  removedFiles: string[]
): void {
  const desired = new Set<string>()
  const folderError = (file: string, message: string): void => {
    state.syncErrors.push({ at: Date.now(), sha, file, namespace: '', name: '', message })
  }
  // A folder that does not parse fails the sync as a whole: nothing is pruned then.
  let complete = true
  for (const [file, content] of [...snapshot].sort(([a], [b]) => a.localeCompare(b))) {
    let docs
    try {
      docs = parseAllDocuments(content)
    } catch (error) {
      complete = false
      folderError(file, (error as Error).message)
      continue
    }
    for (const doc of Array.isArray(docs) ? docs : [docs]) {
      if (doc.errors.length > 0) {
        complete = false
        folderError(file, doc.errors.map((e) => e.message).join('; '))
        continue
      }
      const key = applyOne(state, sha, file, doc.toJS())
      if (key) desired.add(key)
    }
  }
  if (state.options.prune && complete) pruneRemoved(state, sha, desired, removedFiles)
}

/**
 * Updates `files` (the folder's content at the newest commit seen) from one commit; the files it
 * removed, or null when it touched nothing in the folder.
 */
function followCommit(
  folder: string,
  files: Map<string, string>,
  commit: GitCommit
): string[] | null {
  const inFolder = (file: string): boolean =>
    (folder === '' || file.startsWith(`${folder}/`)) && /\.ya?ml$/.test(file)
  let touched = false
  const removedFiles: string[] = []
  for (const [file, content] of commit.changes) {
    if (!inFolder(file)) continue
    touched = true
    if (content === null) {
      files.delete(file)
      removedFiles.push(file)
    } else files.set(file, content)
  }
  return touched ? removedFiles : null
}

export function startGitOpsSync(options: GitOpsSyncOptions): GitOpsSync {
  const folder = options.path.replace(/^\/+|\/+$/g, '')
  const files = new Map<string, string>() // the folder's content at the newest commit seen
  const state: SyncState = { options, applied: [], syncErrors: [], tracked: new Map() }
  const pending = new Set<Promise<void>>()
  const timers = new Set<NodeJS.Timeout>()
  let stopped = false
  const branch = options.branch ?? 'main'
  // The newest revision seen in Git, the one the engine fetched, and the one it applied.
  let latest: Revision | null = null
  let fetched: Revision | null = null
  let appliedRevision: Revision | null = null

  const schedule = scheduler(state, pending, timers, () => stopped)
  const fetch = (): void => {
    fetched = latest
  }
  const syncFetched = (): void => {
    if (stopped || !fetched || fetched === appliedRevision) return
    appliedRevision = fetched
    schedule(fetched)
  }

  const unsubscribe = options.subscribe((commit) => {
    if (stopped || commit.branch !== branch) return
    if (options.repository && `${commit.owner}/${commit.repo}` !== options.repository) return
    const removedFiles = followCommit(folder, files, commit)
    if (!removedFiles) return
    const removed = [
      ...(latest && latest !== appliedRevision ? latest.removedFiles : []),
      ...removedFiles
    ]
    latest = { sha: commit.sha, snapshot: new Map(files), removedFiles: removed }
    if (options.pollIntervalMs === undefined) {
      appliedRevision = latest
      schedule(latest)
    }
  })
  const unfollow = pollAndFollow(options, { fetch, sync: syncFetched })

  return {
    applied: state.applied,
    syncErrors: state.syncErrors,
    async idle() {
      while (pending.size > 0) await Promise.all([...pending])
    },
    stop() {
      stopped = true
      unsubscribe()
      unfollow()
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      pending.clear()
    }
  }
}

/** Applies a revision delayMs later (the loop's `idle` waits for it). */
function scheduler(
  state: SyncState,
  pending: Set<Promise<void>>,
  timers: Set<NodeJS.Timeout>,
  stopped: () => boolean
): (revision: Revision) => void {
  return (revision) => {
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        if (!stopped()) sync(state, revision.sha, revision.snapshot, revision.removedFiles)
        resolve()
      }, state.options.delayMs)
      timers.add(timer)
    })
    pending.add(done)
    void done.then(() => pending.delete(done))
  }
}

/** The engine's own poll, and the nudges of its objects; returns the stop. */
function pollAndFollow(
  options: GitOpsSyncOptions,
  handlers: { fetch(): void; sync(): void }
): () => void {
  const poll =
    options.pollIntervalMs === undefined
      ? null
      : setInterval(() => {
          handlers.fetch()
          handlers.sync()
        }, options.pollIntervalMs)
  const unfollow = options.engine
    ? followEngine(options.kube.engines, options.engine, handlers)
    : () => {}
  return () => {
    unfollow()
    if (poll) clearInterval(poll)
  }
}

interface Revision {
  sha: string
  snapshot: Map<string, string>
  removedFiles: string[]
}
