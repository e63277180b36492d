// Server-side printing of codertemplatetests (kubectl get asks for a Table).
import type { IncomingMessage } from 'node:http'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'

function age(created: string | undefined): string {
  if (!created) return '<unknown>'
  const seconds = Math.max(0, Math.floor((Date.now() - Date.parse(created)) / 1000))
  if (seconds < 120) return `${seconds}s`
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`
  return `${Math.floor(seconds / 3600)}h`
}

/** Server-side printing (meta.k8s.io/v1 Table) with the CRD's printer columns. */
export function table(items: CoderTemplateTest[], resourceVersion: string) {
  const column = (name: string, type: string, format = '') => ({
    name,
    type,
    format,
    description: '',
    priority: 0
  })
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: [
      column('Name', 'string', 'name'),
      column('Phase', 'string'),
      column('Template', 'string'),
      column('Version', 'string'),
      column('Reason', 'string'),
      column('Age', 'date')
    ],
    rows: items.map((o) => ({
      cells: [
        o.metadata.name,
        o.status?.phase ?? null,
        o.spec.template,
        o.status?.templateVersionName ?? null,
        o.status?.reason ?? null,
        age(o.metadata.creationTimestamp)
      ],
      object: {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: o.metadata
      }
    }))
  }
}

export function wantsTable(req: IncomingMessage): boolean {
  return /as=Table/.test(String(req.headers.accept ?? ''))
}
