// The objects of the aggregated API: CoderTemplate and CoderTemplateVersion as the sandbox serves
// them from CoderBackend.
import { createHash } from 'node:crypto'
import { AGGREGATION_API_VERSION, AGGREGATION_GROUP } from '../../../src/objects/coder-k8s.js'
import type { SandboxTemplate, SandboxVersion } from '../contracts.js'
import { rfc3339 } from './store.js'

export const TEMPLATES = { group: AGGREGATION_GROUP, resource: 'codertemplates' }
export const VERSIONS = { group: AGGREGATION_GROUP, resource: 'codertemplateversions' }
export const ORG_LABEL = 'aggregation.coder.com/organization'
export const TEMPLATE_LABEL = 'aggregation.coder.com/template'

export function templateObject(namespace: string, template: SandboxTemplate): unknown {
  const name = `${template.organizationName}.${template.name}`
  return {
    apiVersion: AGGREGATION_API_VERSION,
    kind: 'CoderTemplate',
    metadata: {
      name,
      namespace,
      uid: template.id,
      // guess: derived from Coder updated_at in the real server; here from the active version
      resourceVersion: fingerprint([template.activeVersionId, template.deprecated]),
      labels: { [ORG_LABEL]: template.organizationName }
    },
    spec: {
      organization: template.organizationName,
      versionID: template.activeVersionId,
      displayName: '',
      description: '',
      icon: ''
    },
    status: {
      id: template.id,
      organizationName: template.organizationName,
      activeVersionID: template.activeVersionId,
      deprecated: template.deprecated
    }
  }
}

export function versionObject(
  namespace: string,
  template: SandboxTemplate,
  version: SandboxVersion
): unknown {
  const active = template.activeVersionId === version.id
  return {
    apiVersion: AGGREGATION_API_VERSION,
    kind: 'CoderTemplateVersion',
    metadata: {
      name: `${template.organizationName}.${template.name}.${version.name}`,
      namespace,
      uid: version.id,
      creationTimestamp: rfc3339(new Date(version.createdAt)),
      // A hex SHA-256 fingerprint, changes when activity changes
      resourceVersion: fingerprint([version, active]),
      labels: { [ORG_LABEL]: template.organizationName, [TEMPLATE_LABEL]: template.name }
    },
    spec: {
      organization: template.organizationName,
      templateName: template.name,
      message: version.message
    },
    status: {
      id: version.id,
      templateID: version.templateId ?? '',
      active,
      archived: version.archived,
      createdBy: version.createdBy ?? 'sandbox', // the creator's username
      updatedAt: version.createdAt,
      job: { status: version.jobStatus, errorCode: '' }
    }
  }
}

function fingerprint(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex')
}
