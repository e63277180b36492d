// Test helpers: a tiny in-memory CoderBackend double and a raw HTTP client for the sandbox.
import { randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import type { ClientRequest, IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { CoderBackendError } from '../../sandbox/contracts.js'
import type {
  CoderBackend,
  JobStatus,
  SandboxTemplate,
  SandboxVersion
} from '../../sandbox/contracts.js'
import type { KubeSandbox } from '../../sandbox/kube/server.js'

export class FakeCoder implements CoderBackend {
  readonly templates: SandboxTemplate[] = []
  readonly versions: SandboxVersion[] = []
  readonly activations: { templateId: string; versionId: string }[] = []

  constructor(readonly organization = 'acme') {}

  defaultOrganizationName(): string {
    return this.organization
  }

  addTemplate(name: string): SandboxTemplate {
    const template: SandboxTemplate = {
      id: randomUUID(),
      name,
      organizationId: 'org-' + this.organization,
      organizationName: this.organization,
      activeVersionId: '',
      deprecated: false
    }
    this.templates.push(template)
    return template
  }

  addVersion(
    template: SandboxTemplate,
    name: string,
    jobStatus: JobStatus = 'succeeded',
    extra: Partial<SandboxVersion> = {}
  ): SandboxVersion {
    const version: SandboxVersion = {
      id: randomUUID(),
      name,
      templateId: template.id,
      organizationId: template.organizationId,
      organizationName: template.organizationName,
      templateName: template.name,
      message: `message of ${name}`,
      jobStatus,
      jobError: '',
      archived: false,
      createdAt: new Date(Date.now() + this.versions.length).toISOString(),
      ...extra
    }
    this.versions.push(version)
    if (!template.activeVersionId) template.activeVersionId = version.id
    return version
  }

  findTemplate(organization: string, template: string): SandboxTemplate | null {
    return (
      this.templates.find(
        (t) =>
          t.organizationName === organization && t.name.toLowerCase() === template.toLowerCase()
      ) ?? null
    )
  }

  findVersionByName(
    organization: string,
    template: string,
    version: string
  ): SandboxVersion | null {
    const t = this.findTemplate(organization, template)
    return this.versions.find((v) => t && v.templateId === t.id && v.name === version) ?? null
  }

  findVersionById(id: string): SandboxVersion | null {
    return this.versions.find((v) => v.id === id) ?? null
  }

  listVersions(organization: string, template: string): SandboxVersion[] {
    const t = this.findTemplate(organization, template)
    return this.versions.filter((v) => t && v.templateId === t.id)
  }

  activate(templateId: string, versionId: string): void {
    const template = this.templates.find((t) => t.id === templateId)
    const version = this.findVersionById(versionId)
    if (!template || !version || version.templateId !== templateId)
      throw new CoderBackendError(404, 'not found')
    if (version.jobStatus !== 'succeeded' || version.archived)
      throw new CoderBackendError(400, 'cannot activate')
    template.activeVersionId = versionId
    this.activations.push({ templateId, versionId })
  }
}

export interface RawAnswer {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
  text: string
}

/** One HTTP(S) request to the sandbox, trusting its self-signed certificate. */
function open(
  kube: KubeSandbox,
  method: string,
  path: string,
  headers: Record<string, string>,
  signal?: AbortSignal
): { request: ClientRequest; response: Promise<IncomingMessage> } {
  const url = new URL(kube.url + path)
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  const request = send(url, {
    method,
    headers,
    ...(kube.caCertificate ? { ca: kube.caCertificate } : {}),
    ...(signal ? { signal } : {})
  })
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request.on('response', resolve)
    request.on('error', reject)
  })
  return { request, response }
}

export async function call(
  kube: KubeSandbox,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  token: string | null = kube.token
): Promise<RawAnswer> {
  const payload =
    body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
  const { request, response } = open(kube, method, path, {
    ...(token !== null ? { Authorization: `Bearer ${token}` } : {}),
    ...(payload !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...headers
  })
  request.end(payload)
  const answer = await response
  const chunks: Buffer[] = []
  for await (const chunk of answer) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return { status: answer.statusCode ?? 0, body: parsed, text }
}

export interface WatchEvent {
  type: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any
}

/**
 * Opens a watch and collects events until `until` says stop (then aborts) or the server ends the
 * stream. Returns the events and whether the server ended it.
 */
export async function watch(
  kube: KubeSandbox,
  path: string,
  until: (events: WatchEvent[]) => boolean = () => false,
  limitMs = 5000
): Promise<{ events: WatchEvent[]; serverEnded: boolean }> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), limitMs)
  const events: WatchEvent[] = []
  let serverEnded = false
  try {
    const { request, response } = open(
      kube,
      'GET',
      path,
      { Authorization: `Bearer ${kube.token}` },
      controller.signal
    )
    request.end()
    const answer = await response
    let buffer = ''
    let stop = false
    answer.on('end', () => {
      serverEnded = !stop
    })
    for await (const chunk of answer) {
      buffer += (chunk as Buffer).toString('utf8')
      let newline: number
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        if (line.trim()) events.push(JSON.parse(line) as WatchEvent)
      }
      if (until(events)) {
        stop = true
        controller.abort()
        break
      }
    }
    if (!stop) serverEnded = true
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error
  } finally {
    clearTimeout(timer)
  }
  return { events, serverEnded }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Polls until check() returns a value (not undefined/false) or the limit passes. */
export async function eventually<T>(
  check: () => T | undefined | false,
  limitMs = 5000
): Promise<T> {
  const end = Date.now() + limitMs
  for (;;) {
    const value = check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > end) throw new Error('condition not met in time')
    await sleep(5)
  }
}

export const testsPath = (ns: string, name = ''): string =>
  `/apis/coder.com/v1alpha1/namespaces/${ns}/codertemplatetests${name ? '/' + name : ''}`

export function testManifest(
  name: string,
  spec: Record<string, unknown> = {}
): Record<string, unknown> {
  return {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTest',
    metadata: { name },
    spec: {
      controlPlaneRef: { name: 'coder' },
      template: 'acme.docker',
      version: { name: 'v1' },
      ...spec
    }
  }
}
