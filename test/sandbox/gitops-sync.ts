// A GitOps sync loop like Argo CD / Flux: it follows the commits of the GitOps repository and,
// delayMs after each commit, applies every `*.yaml` / `*.yml` under the watched folder as of that
// commit. Absent objects are created; an object with the same spec is left alone; a changed spec of
// an existing CoderTemplateTest is a sync error carrying the API server's immutable-spec message
// (coder-k8s-api.md §1.2), as the real tools report a failed apply. Deleted files prune nothing
// (guess: the default of both tools without prune enabled).
import { parseAllDocuments } from 'yaml'
import { TEST_KIND } from '../../src/api.js'
import type { CoderTemplateTest } from '../../src/api.js'
import type { GitCommit } from './contracts.js'
import type { KubeSandbox } from './kube/server.js'
import { ApiError } from './kube/status.js'
import { applyDefaults, deepEqual, prune } from './kube/validation.js'

export interface GitOpsSyncOptions {
  subscribe: (listener: (commit: GitCommit) => void) => () => void
  kube: KubeSandbox
  /** Folder watched in the repository, e.g. `coder-template-tests`. */
  path: string
  delayMs: number
  /** Namespace of manifests without metadata.namespace (Argo CD's destination namespace). */
  namespaceDefault?: string
  /** Only commits to this branch count (default: every branch). */
  branch?: string
}

export interface AppliedManifest {
  at: number
  sha: string
  file: string
  namespace: string
  name: string
  action: 'created' | 'unchanged'
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
  let stopped = false

  const inFolder = (file: string): boolean =>
    (folder === '' || file.startsWith(`${folder}/`)) && /\.ya?ml$/.test(file)

  const applyOne = (sha: string, file: string, doc: unknown): void => {
    const object = doc as Partial<CoderTemplateTest> | null
    if (!object || typeof object !== 'object') return
    const namespace = object.metadata?.namespace ?? options.namespaceDefault ?? 'default'
    const name = object.metadata?.name ?? ''
    const fail = (message: string): void => {
      syncErrors.push({ at: Date.now(), sha, file, namespace, name, message })
    }
    if (object.kind !== TEST_KIND)
      return fail(`sandbox sync applies only ${TEST_KIND} objects, not ${String(object.kind)}`)
    const store = options.kube.store
    try {
      const existing = store.get(namespace, name)
      if (!existing) {
        store.create(namespace, { ...object, metadata: { ...object.metadata, namespace } })
        applied.push({ at: Date.now(), sha, file, namespace, name, action: 'created' })
        return
      }
      const desired = prune(options.kube.schema.spec, structuredClone(object.spec))
      applyDefaults(options.kube.schema.spec, desired)
      if (deepEqual(desired, existing.spec)) {
        applied.push({ at: Date.now(), sha, file, namespace, name, action: 'unchanged' })
        return
      }
      // The apply the tools would send; the API server refuses it (spec is immutable).
      store.update(namespace, name, { ...existing, spec: object.spec as CoderTemplateTest['spec'] })
      applied.push({ at: Date.now(), sha, file, namespace, name, action: 'unchanged' })
    } catch (error) {
      fail(error instanceof ApiError ? error.message : (error as Error).message)
    }
  }

  const sync = (sha: string, snapshot: Map<string, string>): void => {
    for (const [file, content] of [...snapshot].sort(([a], [b]) => a.localeCompare(b))) {
      let docs
      try {
        docs = parseAllDocuments(content)
      } catch (error) {
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
        applyOne(sha, file, doc.toJS())
      }
    }
  }

  const unsubscribe = options.subscribe((commit) => {
    if (stopped || (options.branch && commit.branch !== options.branch)) return
    let touched = false
    for (const [file, content] of commit.changes) {
      if (!inFolder(file)) continue
      touched = true
      if (content === null) files.delete(file)
      else files.set(file, content)
    }
    if (!touched) return
    const snapshot = new Map(files)
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        if (!stopped) sync(commit.sha, snapshot)
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
