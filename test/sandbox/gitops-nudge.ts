// The engine side of gitops-refresh in the sandbox sync loop: which patch of an engine object makes
// the loop sync at once, and what the engine writes back.
// - Argo CD: `argocd.argoproj.io/refresh` on the Application refreshes it, and the controller removes
//   the annotation afterwards (guess from the docs:
//   https://argo-cd.readthedocs.io/en/stable/user-guide/annotations-and-labels/).
// - Flux: a new `reconcile.fluxcd.io/requestedAt` makes the controller reconcile, and it writes the
//   value to status.lastHandledReconcileAt (guess from the docs:
//   https://github.com/fluxcd/pkg/blob/main/apis/meta/annotations.go). The
//   GitRepository fetches the new commit; the Kustomization applies what its source last fetched, so
//   a Kustomization nudged without its source applies nothing new until the source's own poll.
import type { EngineObject, EngineObjects, EnginePatched } from './kube/engine-objects.js'

export type SyncEngine =
  | { kind: 'argocd'; namespace: string; application: string }
  | { kind: 'flux'; namespace: string; kustomization: string; source: string }

const ARGO = 'argocd.argoproj.io/refresh'
const FLUX = 'reconcile.fluxcd.io/requestedAt'

/** Creates the engine's objects in the sandbox and calls `sync` when a patch asks for one. */
export function followEngine(
  engines: EngineObjects,
  engine: SyncEngine,
  handlers: { fetch(): void; sync(): void }
): () => void {
  if (engine.kind === 'argocd') {
    engines.put('applications', engine.namespace, engine.application, {
      source: { repoURL: 'https://github.com/sandbox/gitops', path: 'coder-template-tests' }
    })
  } else {
    engines.put('gitrepositories', engine.namespace, engine.source, { interval: '10m' })
    engines.put('kustomizations', engine.namespace, engine.kustomization, {
      interval: '10m',
      sourceRef: { kind: 'GitRepository', name: engine.source }
    })
  }
  const listener = ({ plural, object }: EnginePatched): void => {
    const { namespace, name } = object.metadata
    if (namespace !== engine.namespace) return
    if (engine.kind === 'argocd') {
      if (plural !== 'applications' || name !== engine.application || !hasAnnotation(object, ARGO))
        return
      handlers.fetch()
      handlers.sync()
      // The controller removes the annotation once it refreshed (guess, see above).
      const annotations = { ...object.metadata.annotations }
      delete annotations[ARGO]
      engines.update(plural, { ...object, metadata: { ...object.metadata, annotations } })
      return
    }
    const requested = object.metadata.annotations?.[FLUX]
    if (!requested || requested === object.status?.lastHandledReconcileAt) return
    const isSource = plural === 'gitrepositories' && name === engine.source
    const isKustomization = plural === 'kustomizations' && name === engine.kustomization
    if (!isSource && !isKustomization) return
    if (isSource) handlers.fetch()
    else handlers.sync()
    engines.update(plural, handled(object, requested))
  }
  engines.events.on('patched', listener)
  return () => engines.events.off('patched', listener)
}

function hasAnnotation(object: EngineObject, key: string): boolean {
  return typeof object.metadata.annotations?.[key] === 'string'
}

function handled(object: EngineObject, requested: string): EngineObject {
  return { ...object, status: { ...object.status, lastHandledReconcileAt: requested } }
}
