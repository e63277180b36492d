// A GitOps sync loop like Argo CD / Flux: it follows the commits of the GitOps repository's synced
// branch (never other branches, such as the pull request branches of pull-request mode) and,
// delayMs after each commit, applies every `*.yaml` / `*.yml` under the watched folder as of that
// commit. Absent objects are created; an object with the same spec is left alone; a changed spec of
// an existing CoderTemplateTest is a sync error carrying the API server's immutable-spec message
// (coder-k8s-api.md §1.2), as the real tools report a failed apply. Deleted files prune nothing by
// default (guess: the default of both tools without prune enabled); with `prune: true` an object
// this loop applied that no file describes any more is deleted, as Argo CD's automated sync with
// prune and Flux's Kustomization `prune: true` do.
import { parseAllDocuments } from 'yaml'
import { TEST_KIND } from '../../src/api.js'
import type { CoderTemplateTest } from '../../src/api.js'
import type { GitCommit } from './contracts.js'
import type { KubeSandbox } from './kube/server.js'
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

export function startGitOpsSync(options: GitOpsSyncOptions): GitOpsSync {
  const folder = options.path.replace(/^\/+|\/+$/g, '')
  const files = new Map<string, string>() // the folder's content at the newest commit seen
  const applied: AppliedManifest[] = []
  const syncErrors: SyncError[] = []
  const pending = new Set<Promise<void>>()
  const timers = new Set<NodeJS.Timeout>()
  // Objects this loop applied (Argo CD / Flux track them by label): the only ones it may prune.
  const tracked = new Map<string, { namespace: string; name: string }>()
  let stopped = false
  const branch = options.branch ?? 'main'

  const inFolder = (file: string): boolean =>
    (folder === '' || file.startsWith(`${folder}/`)) && /\.ya?ml$/.test(file)

  /** Applies one document; returns the object's key when it is one this loop manages. */
  const applyOne = (sha: string, file: string, doc: unknown): string | null => {
    const object = doc as Partial<CoderTemplateTest> | null
    if (!object || typeof object !== 'object') return null
    const namespace = object.metadata?.namespace ?? options.namespaceDefault ?? 'default'
    const name = object.metadata?.name ?? ''
    const fail = (message: string): void => {
      syncErrors.push({ at: Date.now(), sha, file, namespace, name, message })
    }
    if (object.kind !== TEST_KIND) {
      fail(`sandbox sync applies only ${TEST_KIND} objects, not ${String(object.kind)}`)
      return null
    }
    const key = `${namespace}/${name}`
    tracked.set(key, { namespace, name })
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
  const pruneRemoved = (sha: string, desired: Set<string>, removedFiles: string[]): void => {
    for (const [key, { namespace, name }] of [...tracked]) {
      if (desired.has(key)) continue
      tracked.delete(key)
      const store = options.kube.store
      if (!store.get(namespace, name)) continue
      try {
        // With finalizers the API server only marks it deleting; the controller finishes.
        store.delete(namespace, name)
        const file = removedFiles.join(', ')
        applied.push({ at: Date.now(), sha, file, namespace, name, action: 'pruned' })
      } catch (error) {
        const message = error instanceof ApiError ? error.message : (error as Error).message
        syncErrors.push({ at: Date.now(), sha, file: '', namespace, name, message })
      }
    }
  }

  const sync = (sha: string, snapshot: Map<string, string>, removedFiles: string[]): void => {
    const desired = new Set<string>()
    // A folder that does not parse fails the sync as a whole: nothing is pruned then.
    let complete = true
    for (const [file, content] of [...snapshot].sort(([a], [b]) => a.localeCompare(b))) {
      let docs
      try {
        docs = parseAllDocuments(content)
      } catch (error) {
        complete = false
        syncErrors.push({
          at: Date.now(),
          sha,
          file,
          namespace: '',
          name: '',
          message: (error as Error).message
        })
        continue
      }
      for (const doc of Array.isArray(docs) ? docs : [docs]) {
        if (doc.errors.length > 0) {
          complete = false
          syncErrors.push({
            at: Date.now(),
            sha,
            file,
            namespace: '',
            name: '',
            message: doc.errors.map((e) => e.message).join('; ')
          })
          continue
        }
        const key = applyOne(sha, file, doc.toJS())
        if (key) desired.add(key)
      }
    }
    if (options.prune && complete) pruneRemoved(sha, desired, removedFiles)
  }

  const unsubscribe = options.subscribe((commit) => {
    if (stopped || commit.branch !== branch) return
    if (options.repository && `${commit.owner}/${commit.repo}` !== options.repository) return
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
    if (!touched) return
    const snapshot = new Map(files)
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        if (!stopped) sync(commit.sha, snapshot, removedFiles)
        resolve()
      }, options.delayMs)
      timers.add(timer)
    })
    pending.add(done)
    void done.then(() => pending.delete(done))
  })

  return {
    applied,
    syncErrors,
    async idle() {
      while (pending.size > 0) await Promise.all([...pending])
    },
    stop() {
      stopped = true
      unsubscribe()
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      pending.clear()
    }
  }
}
