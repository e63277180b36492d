// The GitOps engines' objects, modelled minimally: Argo CD Applications (argoproj.io/v1alpha1) and
// Flux Kustomizations (kustomize.toolkit.fluxcd.io/v1) and GitRepositories
// (source.toolkit.fluxcd.io/v1), with get and patch (JSON merge patch and the others of patch.ts),
// a resourceVersion, managedFields naming the field manager of each patch, and an event per patch
// that the sandbox sync loop (test/sandbox/gitops-sync.ts) follows. No schema: the CRDs are large,
// and the gate only reads spec.sourceRef and writes annotations.
import { EventEmitter } from 'node:events'
import { applyPatch } from './patch.js'
import { parseJson, readBody } from './request-body.js'
import type { RouteTable } from './routes.js'
import { apiError } from './status.js'

export const ENGINE_RESOURCES = {
  applications: { group: 'argoproj.io', version: 'v1alpha1', kind: 'Application' },
  kustomizations: { group: 'kustomize.toolkit.fluxcd.io', version: 'v1', kind: 'Kustomization' },
  gitrepositories: { group: 'source.toolkit.fluxcd.io', version: 'v1', kind: 'GitRepository' }
} as const
export type EnginePlural = keyof typeof ENGINE_RESOURCES

export interface EngineObject {
  apiVersion: string
  kind: string
  metadata: {
    namespace: string
    name: string
    resourceVersion?: string
    annotations?: Record<string, string>
    managedFields?: { manager: string; operation: string; time: string }[]
  }
  spec?: Record<string, unknown>
  status?: Record<string, unknown>
}

export interface EnginePatched {
  plural: EnginePlural
  object: EngineObject
}

export class EngineObjects {
  private readonly objects = new Map<string, EngineObject>()
  private version = 1
  readonly events = new EventEmitter()
  /** Every patch as it arrived: plural, namespace/name, field manager, content type. */
  readonly patches: {
    plural: EnginePlural
    key: string
    fieldManager: string
    contentType: string
  }[] = []

  put(
    plural: EnginePlural,
    namespace: string,
    name: string,
    spec: Record<string, unknown> = {}
  ): EngineObject {
    const { group, version, kind } = ENGINE_RESOURCES[plural]
    const object: EngineObject = {
      apiVersion: `${group}/${version}`,
      kind,
      metadata: { namespace, name, resourceVersion: String(this.version++) },
      spec
    }
    this.objects.set(`${plural}/${namespace}/${name}`, object)
    return object
  }

  get(plural: EnginePlural, namespace: string, name: string): EngineObject | undefined {
    return this.objects.get(`${plural}/${namespace}/${name}`)
  }

  /** A change by the engine itself (e.g. Argo CD removing its refresh annotation): no event. */
  update(plural: EnginePlural, object: EngineObject): void {
    object.metadata.resourceVersion = String(this.version++)
    this.objects.set(`${plural}/${object.metadata.namespace}/${object.metadata.name}`, object)
  }

  patched(plural: EnginePlural, object: EngineObject): void {
    this.update(plural, object)
    this.events.emit('patched', { plural, object } satisfies EnginePatched)
  }
}

const itemPath =
  /^\/apis\/([a-z.]+)\/([a-z0-9]+)\/namespaces\/([^/]+)\/(applications|kustomizations|gitrepositories)\/([^/]+)$/

function lookup(engines: EngineObjects, match: RegExpExecArray) {
  const [, group, version, namespace = '', plural, name = ''] = match
  const resource = ENGINE_RESOURCES[plural as EnginePlural]
  if (resource.group !== group || resource.version !== version)
    throw apiError(404, 'NotFound', 'the server could not find the requested resource', {})
  const object = engines.get(plural as EnginePlural, namespace, name)
  if (!object)
    throw apiError(404, 'NotFound', `${plural}.${group} "${name}" not found`, {
      name,
      group,
      kind: plural
    })
  return { plural: plural as EnginePlural, object }
}

export function addEngineRoutes(routes: RouteTable, engines: EngineObjects): void {
  routes.route('GET', itemPath, async (_req, _res, match) => {
    return { status: 200, body: lookup(engines, match).object }
  })
  routes.route('PATCH', itemPath, async (req, _res, match, query) => {
    const { plural, object } = lookup(engines, match)
    const patched = applyPatch(req, object, parseJson(await readBody(req))) as EngineObject
    const fieldManager = query.get('fieldManager') ?? ''
    const contentType = String(req.headers['content-type'] ?? '')
    engines.patches.push({
      plural,
      key: `${object.metadata.namespace}/${object.metadata.name}`,
      fieldManager,
      contentType
    })
    patched.metadata.managedFields = [
      ...(object.metadata.managedFields ?? []),
      { manager: fieldManager || 'unknown', operation: 'Update', time: new Date().toISOString() }
    ]
    engines.patched(plural, patched)
    return { status: 200, body: patched }
  })
}
