// The Kubernetes sandbox reaches the Coder sandbox's state in-process (contracts.ts).
import type { CoderBackend } from '../contracts.js'
import { toSandboxTemplate, toSandboxVersion } from './json.js'
import type { CoderState } from './state.js'

export function coderBackend(state: CoderState): CoderBackend {
  const { organizations, versions } = state
  return {
    defaultOrganizationName: () => organizations[0].name,
    findTemplate(organization, template) {
      const org = organizations.find((o) => o.name === organization)
      const record = org && state.findTemplateRecord(org.id, template)
      return record ? toSandboxTemplate(state, record) : null
    },
    findVersionByName(organization, template, version) {
      const org = organizations.find((o) => o.name === organization)
      const t = org && state.findTemplateRecord(org.id, template)
      const v = t && state.findVersionRecord(t.id, version)
      return v ? toSandboxVersion(state, v) : null
    },
    findVersionById(id) {
      const v = versions.get(id)
      return v ? toSandboxVersion(state, v) : null
    },
    listVersions(organization, template) {
      const org = organizations.find((o) => o.name === organization)
      const t = org && state.findTemplateRecord(org.id, template)
      if (!t) return []
      return [...versions.values()]
        .filter((v) => v.templateId === t.id)
        .map((v) => toSandboxVersion(state, v))
    },
    // The aggregated API activates with the operator's token (its audit log shows the operator).
    activate: (templateId, versionId) => state.activate(templateId, versionId, 'coder-k8s-operator')
  }
}
