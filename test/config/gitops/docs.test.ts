// docs/how-to/gitops.md copies the rule files and the RBAC file verbatim; the RBAC grants exactly
// what the action needs (config/rbac/gate-role.yaml says why for each rule); the rule files keep the text of
// the product owner's specification.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it, expect } from '@jest/globals'
import { parse as parseYaml, parseAllDocuments } from 'yaml'
import { readHealthCheckEntries } from './flux-cel.js'
import {
  ARGO_SCRIPT_PATH,
  DOCS_PATH,
  FLUX_CHECK_PATH,
  RBAC_PATH,
  readRepoFile,
  REPO_ROOT
} from './paths.js'

interface FencedBlock {
  info: string
  content: string
  /** The line before the fence, blank lines skipped. */
  precededBy: string
}

/** Fenced code blocks of a Markdown text; content with its final newline, as a file has it. */
function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n')
  const blocks: FencedBlock[] = []
  let previous = ''
  for (let index = 0; index < lines.length; index++) {
    const opening = /^(`{3,})(.*)$/.exec(lines[index])
    if (!opening) {
      if (lines[index].trim() !== '') previous = lines[index]
      continue
    }
    const closingIndex = lines.findIndex((line, at) => at > index && line.trim() === opening[1])
    if (closingIndex < 0) throw new Error(`unclosed fence at line ${index + 1}`)
    const body = lines.slice(index + 1, closingIndex)
    blocks.push({
      info: opening[2].trim(),
      content: body.length === 0 ? '' : `${body.join('\n')}\n`,
      precededBy: previous
    })
    previous = lines[closingIndex]
    index = closingIndex
  }
  return blocks
}

const COPIED_FILES = [
  { path: ARGO_SCRIPT_PATH, info: 'lua' },
  { path: FLUX_CHECK_PATH, info: 'yaml' },
  { path: RBAC_PATH, info: 'yaml' }
]

describe(DOCS_PATH, () => {
  const blocks = fencedBlocks(readRepoFile(DOCS_PATH))

  it.each(COPIED_FILES)('copies $path byte for byte', ({ path, info }) => {
    const marker = `<!-- copy of ${path} -->`
    const copies = blocks.filter((block) => block.precededBy.trim() === marker)
    expect(copies).toHaveLength(1)
    expect(copies[0].info).toBe(info)
    expect(copies[0].content).toBe(readRepoFile(path))
  })

  it('shows the Flux entry unchanged inside its Kustomization example', () => {
    const kustomizations = blocks
      .filter((block) => block.info === 'yaml' && block.content.includes('kind: Kustomization'))
      .map((block) => parseYaml(block.content) as { spec: { healthCheckExprs: unknown } })
    expect(kustomizations).toHaveLength(1)
    expect(kustomizations[0].spec.healthCheckExprs).toEqual(
      readHealthCheckEntries(readRepoFile(FLUX_CHECK_PATH))
    )
  })

  it('names the argocd-cm key and the patch command of the specification', () => {
    const docs = readRepoFile(DOCS_PATH)
    expect(docs).toContain('resource.customizations.health.coder.com_CoderTemplateTest')
    expect(docs).toContain(
      `jq -n --rawfile lua ${ARGO_SCRIPT_PATH} \\\n` +
        `    '{data: {"resource.customizations.health.coder.com_CoderTemplateTest": $lua}}')"`
    )
  })
})

interface PolicyRule {
  apiGroups?: string[]
  resources?: string[]
  resourceNames?: string[]
  verbs?: string[]
}

interface RbacObject {
  apiVersion: string
  kind: string
  metadata: { name: string; namespace?: string }
  rules?: PolicyRule[]
  subjects?: { kind: string; name: string; namespace?: string }[]
  roleRef?: { apiGroup: string; kind: string; name: string }
}

/** Every (group, resource) -> verbs granted by the rules, plus the resourceNames of each. */
function grants(rules: PolicyRule[]): Map<string, { verbs: string[]; resourceNames?: string[] }> {
  const granted = new Map<string, { verbs: string[]; resourceNames?: string[] }>()
  for (const rule of rules) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const key = `${group}/${resource}`
        if (granted.has(key)) throw new Error(`${key} is granted twice`)
        granted.set(key, {
          verbs: [...(rule.verbs ?? [])].sort(),
          resourceNames: rule.resourceNames
        })
      }
    }
  }
  return granted
}

describe(RBAC_PATH, () => {
  const parsed = parseAllDocuments(readRepoFile(RBAC_PATH))
  const documents = parsed.map((document) => document.toJS() as RbacObject)
  const role = documents.find((object) => object.kind === 'Role')
  const binding = documents.find((object) => object.kind === 'RoleBinding')

  it('holds one namespaced Role and one RoleBinding to it', () => {
    expect(parsed.flatMap((document) => document.errors)).toEqual([])
    expect(documents.map((object) => object.kind)).toEqual(['Role', 'RoleBinding'])
    for (const object of documents) {
      expect(object.apiVersion).toBe('rbac.authorization.k8s.io/v1')
      expect(object.metadata.namespace).toBe('coder-tests')
    }
    expect(binding?.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: role?.metadata.name
    })
    expect(binding?.subjects).toHaveLength(1)
    expect(binding?.subjects?.[0]).toMatchObject({
      kind: 'ServiceAccount',
      namespace: 'coder-tests'
    })
  })

  it('grants exactly what the action uses, with promote limited to named templates', () => {
    const granted = grants(role?.rules ?? [])
    expect(Object.fromEntries(granted)).toEqual({
      'coder.com/codertemplatetests': { verbs: ['get', 'list', 'watch'] },
      'aggregation.coder.com/codertemplates/promote': {
        verbs: ['create'],
        resourceNames: ['acme.docker']
      },
      'aggregation.coder.com/codertemplates': { verbs: ['get', 'list'] },
      'aggregation.coder.com/codertemplateversions': { verbs: ['get', 'list'] }
    })
  })

  it('never lets the action create, change or delete tests, and uses no wildcard', () => {
    const granted = grants(role?.rules ?? [])
    const testVerbs = granted.get('coder.com/codertemplatetests')?.verbs ?? []
    for (const verb of ['create', 'update', 'patch', 'delete', 'deletecollection']) {
      expect(testVerbs).not.toContain(verb)
    }
    expect(JSON.stringify(role?.rules)).not.toContain('*')
  })
})

// The product owner's specification, outside this repository; present in the team's workspace.
const SPEC_PATH = join(REPO_ROOT, '../shared/seed/gitops-promotion-gate.md')
const describeWithSpec = existsSync(SPEC_PATH) ? describe : describe.skip

describeWithSpec(`the rule files keep the text of the specification (${SPEC_PATH})`, () => {
  const spec = existsSync(SPEC_PATH) ? readFileSync(SPEC_PATH, 'utf8') : ''

  it('has the Argo CD script, header comments included', () => {
    const script = readRepoFile(ARGO_SCRIPT_PATH)
    expect(script.startsWith('-- Argo CD health check for CoderTemplateTest')).toBe(true)
    expect(spec).toContain(`(${ARGO_SCRIPT_PATH}):\n\n${script}\n`)
  })

  it('has the Flux entry, header comments included', () => {
    const entry = readRepoFile(FLUX_CHECK_PATH)
    expect(entry.startsWith('# Flux health check expressions for CoderTemplateTest')).toBe(true)
    expect(spec).toContain(`\n\n${entry}\n`)
  })
})
