// The aggregated API aggregation.coder.com/v1alpha1, served live from CoderBackend:
// codertemplates (get), codertemplateversions (get, list) and codertemplates/{name}/promote.
// Facts: coder-k8s-api.md §2.2 (templates), §2.3 (versions), §2.4 (promote: processing order,
// results, error messages, confirmation table, time budgets), §3 (RBAC).
import { createHash } from 'node:crypto'
import { AGGREGATION_API_VERSION, AGGREGATION_GROUP, PROMOTION_KIND } from '../../../src/api.js'
import { CoderBackendError } from '../contracts.js'
import type { CoderBackend, SandboxTemplate, SandboxVersion } from '../contracts.js'
import { apiError, badRequest, forbidden, invalid, notFound, serviceUnavailable } from './status.js'
import { matches, parseLabelSelector, pinned } from './selectors.js'
import { rfc3339 } from './store.js'

export const TEMPLATES = { group: AGGREGATION_GROUP, resource: 'codertemplates' }
export const VERSIONS = { group: AGGREGATION_GROUP, resource: 'codertemplateversions' }
export const ORG_LABEL = 'aggregation.coder.com/organization'
export const TEMPLATE_LABEL = 'aggregation.coder.com/template'

/**
 * One fault, consumed by the next promote request. `afterAnswer` runs once that request's answer is
 * decided, before it is sent: e.g. another writer activating a version during the gate's pause.
 */
export type PromoteFault = PromoteFaultKind & { afterAnswer?: () => void }

type PromoteFaultKind =
  /** Coder answers the activation PATCH with this HTTP status (mapped per §2.4; nothing applied). */
  | { kind: 'status'; code: number }
  /** 504 "not attempted", as if the lookups left less than 15 s. */
  | { kind: '504-not-attempted' }
  /** The activation has no clear answer; the re-read then shows this version (confirmation table). */
  | { kind: 'activation-unclear'; activeAfter: 'requested' | 'previous' | 'third' }
  /** Our activation succeeds, then another writer activates a third version before the re-read. */
  | { kind: 'superseded-after-success' }
  /** The re-read after the activation fails (→ 503 could not confirm). */
  | { kind: 'reread-fails' }
  /** The aggregated server's SubjectAccessReview denies (standard 403 Forbidden). */
  | { kind: 'forbidden' }
  /** Slows the lookups by ms (real time; it counts against the request deadline). */
  | { kind: 'delay'; ms: number }
  /** kube-apiserver cannot reach the aggregated server (503). */
  | { kind: 'apiserver-unavailable' }
  /**
   * The request goes through as usual (the activation applies at once), and the answer waits ms
   * before it is sent: a slow promote, in flight while the version is already active.
   */
  | { kind: 'slow-answer'; ms: number }

export interface PromoteTiming {
  /** requestTimeoutUpperBound of create requests (§2.4: 34 s). */
  requestTimeoutUpperBoundMs: number
  /** Coder PATCH budget (§2.4: 10 s). */
  patchBudgetMs: number
  /** Re-read reserve (§2.4: 5 s). */
  rereadReserveMs: number
}

export const REAL_PROMOTE_TIMING: PromoteTiming = {
  requestTimeoutUpperBoundMs: 34_000,
  patchBudgetMs: 10_000,
  rereadReserveMs: 5_000
}

export interface AggregatedOptions {
  coder: CoderBackend
  faults: PromoteFault[]
  /** User name in the Forbidden message of the `forbidden` fault. */
  user: string
  timing: PromoteTiming
}

export interface Answer {
  status: number
  body: unknown
}

const coderName = /^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$/
const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const nilUuid = '00000000-0000-0000-0000-000000000000'
const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Parses a Kubernetes `?timeout=` duration (e.g. `30s`, `1m30s`, `500ms`) into ms. */
export function parseDuration(text: string): number | null {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return null
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0)
}

export class AggregatedApi {
  constructor(private readonly options: AggregatedOptions) {}

  private get coder(): CoderBackend {
    return this.options.coder
  }

  /** §2.2: canonical names only; aliases and wrong casing → 400 with a hint; missing → 404. */
  lookupTemplate(name: string, resource = TEMPLATES, notFoundName = name): SandboxTemplate {
    const segments = name.split('.')
    if (segments.length !== 2 || !segments.every((s) => s.length <= 32 && coderName.test(s)))
      // guess: the text after the colon
      throw badRequest(`invalid template name "${name}": expected "<organization>.<template>"`)
    const [org, template] = segments
    const defaultOrg = this.coder.defaultOrganizationName()
    if (org === 'default' && defaultOrg !== 'default')
      // guess: wording around the documented hint
      throw badRequest(
        `invalid template name "${name}": "default" is an alias; use the canonical organization name "${defaultOrg}"`
      )
    const found =
      this.coder.findTemplate(org, template) ??
      this.coder.findTemplate(org.toLowerCase(), template.toLowerCase())
    if (!found) throw notFound(resource, notFoundName)
    const canonical = `${found.organizationName}.${found.name}`
    if (canonical !== name)
      throw badRequest(`invalid template name "${name}": use the canonical name "${canonical}"`)
    return found
  }

  templateObject(namespace: string, template: SandboxTemplate): unknown {
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

  getTemplate(namespace: string, name: string): Answer {
    return { status: 200, body: this.templateObject(namespace, this.lookupTemplate(name)) }
  }

  versionObject(namespace: string, template: SandboxTemplate, version: SandboxVersion): unknown {
    const active = template.activeVersionId === version.id
    return {
      apiVersion: AGGREGATION_API_VERSION,
      kind: 'CoderTemplateVersion',
      metadata: {
        name: `${template.organizationName}.${template.name}.${version.name}`,
        namespace,
        uid: version.id,
        creationTimestamp: rfc3339(new Date(version.createdAt)),
        // §2.3: hex SHA-256 fingerprint, changes when activity changes
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
        createdBy: version.createdBy ?? 'sandbox', // §2.3: the creator's username
        updatedAt: version.createdAt,
        job: { status: version.jobStatus, errorCode: '' }
      }
    }
  }

  /** §2.3: `<org>.<template>.<version>`; the first two dots split, the version keeps more dots. */
  getVersion(namespace: string, name: string): Answer {
    const first = name.indexOf('.')
    const second = first < 0 ? -1 : name.indexOf('.', first + 1)
    const versionName = second < 0 ? '' : name.slice(second + 1)
    if (
      second < 0 ||
      !versionName ||
      /[/\\?#%\s\p{Cc}]/u.test(name) ||
      ['.', '..'].includes(versionName)
    )
      throw badRequest(
        `invalid template version name "${name}": expected "<organization>.<template>.<version>"`
      )
    const template = this.lookupTemplate(name.slice(0, second), VERSIONS, name)
    const version = this.coder.findVersionByName(
      template.organizationName,
      template.name,
      versionName
    )
    // Version names are case-sensitive: wrong case is 404 (§2.3).
    if (!version || version.name !== versionName) throw notFound(VERSIONS, name)
    return { status: 200, body: this.versionObject(namespace, template, version) }
  }

  listVersions(namespace: string, query: URLSearchParams): Answer {
    if (
      query.has('continue') ||
      query.has('resourceVersionMatch') ||
      (query.has('resourceVersion') && query.get('resourceVersion') !== '0')
    )
      throw badRequest(
        'codertemplateversions lists are always complete and current: continue, resourceVersionMatch and resourceVersion other than "0" are not supported'
      )
    const selector = parseLabelSelector(query.get('labelSelector'))
    const templateName = pinned(selector, TEMPLATE_LABEL)
    // Sandbox limit: CoderBackend cannot enumerate templates, so the template label is required.
    if (!templateName)
      throw badRequest(
        `sandbox limitation: list codertemplateversions with labelSelector ${TEMPLATE_LABEL}=<template>`
      )
    const org = pinned(selector, ORG_LABEL) ?? this.coder.defaultOrganizationName()
    const template = this.coder.findTemplate(org, templateName)
    const items = template
      ? this.coder
          .listVersions(template.organizationName, template.name)
          .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
          .map(
            (v) =>
              this.versionObject(namespace, template, v) as {
                metadata: { labels: Record<string, string> }
              }
          )
          .filter((o) => matches(selector, o.metadata.labels))
      : []
    return {
      status: 200,
      body: {
        apiVersion: AGGREGATION_API_VERSION,
        kind: 'CoderTemplateVersionList',
        metadata: { resourceVersion: '' },
        items
      }
    }
  }

  /** One promote request, with the next fault (if any). */
  async promote(
    namespace: string,
    name: string,
    rawBody: string,
    query: URLSearchParams,
    receivedAt: number
  ): Promise<Answer> {
    const fault = this.options.faults.shift()
    try {
      return await this.promoteWith(fault, namespace, name, rawBody, query, receivedAt)
    } finally {
      fault?.afterAnswer?.()
      // unref: a world closed while the answer waits must not keep the process alive.
      if (fault?.kind === 'slow-answer')
        await new Promise<void>((resolve) => setTimeout(resolve, fault.ms).unref())
    }
  }

  /** §2.4: the processing order, results, errors and confirmation table. */
  private async promoteWith(
    fault: PromoteFault | undefined,
    namespace: string,
    name: string,
    rawBody: string,
    query: URLSearchParams,
    receivedAt: number
  ): Promise<Answer> {
    if (fault?.kind === 'apiserver-unavailable') throw serviceUnavailable()
    // Request deadline: 34 s, lowered by a shorter client `?timeout=` (§2.4 time budgets).
    const timing = this.options.timing
    const clientTimeout = query.get('timeout') ? parseDuration(query.get('timeout')!) : null
    const deadline =
      receivedAt + Math.min(timing.requestTimeoutUpperBoundMs, clientTimeout ?? Infinity)

    // 1. SubjectAccessReview. The sandbox's RBAC (rbac.ts) already authorized the request as
    // kube-apiserver does before proxying; the aggregated server's own review gives the same
    // answer, so only the fault can deny here.
    if (fault?.kind === 'forbidden')
      throw forbidden(
        TEMPLATES,
        name,
        this.options.user,
        'create',
        'codertemplates/promote',
        namespace
      )

    // guess: where in the order the dryRun value is checked (the API server checks it early)
    const dryRunValues = query.getAll('dryRun')
    if (dryRunValues.some((v) => v !== 'All'))
      throw invalid(PROMOTION_KIND, AGGREGATION_GROUP, name, [
        {
          reason: 'FieldValueNotSupported',
          field: 'dryRun',
          message: `Unsupported value: ${JSON.stringify(dryRunValues)}: supported values: "All"`
        }
      ])
    const dryRun = dryRunValues.length > 0

    // 2. Name and body checks (400), versionID UUID check (422).
    const segments = name.split('.')
    if (segments.length !== 2 || !segments.every((s) => s.length <= 32 && coderName.test(s)))
      throw badRequest(`invalid template name "${name}": expected "<organization>.<template>"`)
    let body: { metadata?: { name?: string }; spec?: { versionID?: unknown } }
    try {
      body = JSON.parse(rawBody || '{}')
    } catch {
      throw badRequest(
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml'
      )
    }
    const bodyName = body.metadata?.name
    if (bodyName && bodyName !== name)
      throw badRequest(
        `metadata.name "${bodyName}" must be empty or match the template name "${name}"`
      )
    const rawVersionID = body.spec?.versionID
    if (
      typeof rawVersionID !== 'string' ||
      !uuidPattern.test(rawVersionID) ||
      rawVersionID === nilUuid
    )
      throw invalid(PROMOTION_KIND, AGGREGATION_GROUP, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.versionID',
          message: `Invalid value: ${JSON.stringify(rawVersionID ?? '')}: must be the Coder ID (a UUID) of a template version`
        }
      ])
    const versionID = rawVersionID.toLowerCase()

    // 3. Org and template lookups.
    if (fault?.kind === 'delay') await wait(fault.ms)
    const template = this.lookupTemplate(name)

    // 4. Version lookup.
    const version = this.coder.findVersionById(versionID)
    if (!version || version.templateId !== template.id)
      throw badRequest(`spec.versionID is not a version of template "${name}"`)
    if (version.archived)
      throw badRequest(
        `version ${versionID} of template "${name}" is archived; unarchive it in Coder before promoting it`
      )
    if (version.jobStatus !== 'succeeded')
      throw badRequest(
        `version ${versionID} of template "${name}" cannot be promoted: its import job is "${version.jobStatus}"; only versions whose import succeeded can be promoted`
      )

    // 5. Already active, or dry-run.
    const previous = template.activeVersionId
    const answer = (result: string, prev: string, active: string): Answer => ({
      status: 201,
      body: {
        apiVersion: AGGREGATION_API_VERSION,
        kind: PROMOTION_KIND,
        metadata: { name, namespace },
        spec: { versionID },
        status: { result, previousActiveVersionID: prev, activeVersionID: active }
      }
    })
    if (previous === versionID) return answer('AlreadyActive', versionID, versionID)
    if (dryRun) return answer('WouldPromote', previous, previous)

    // 6. Enough time left for the patch and the re-read?
    const left = deadline - Date.now()
    if (fault?.kind === '504-not-attempted' || left < timing.patchBudgetMs + timing.rereadReserveMs)
      throw apiError(
        504,
        'Timeout',
        `the promotion of version ${versionID} on template "${name}" was not attempted: too little of the request time was left after the lookups; nothing was sent to Coder, so it is safe to try again`
      )

    // 7. One activation, never retried.
    let activation: 'success' | 'unclear'
    if (fault?.kind === 'status') activation = this.coderRefusal(fault.code, versionID, name)
    else if (fault?.kind === 'activation-unclear') {
      if (fault.activeAfter === 'requested') this.coder.activate(template.id, versionID)
      if (fault.activeAfter === 'third')
        this.coder.activate(template.id, this.thirdVersion(template, previous, versionID))
      activation = 'unclear'
    } else {
      try {
        this.coder.activate(template.id, versionID)
        activation = 'success'
      } catch (error) {
        if (!(error instanceof CoderBackendError)) activation = 'unclear'
        else activation = this.coderRefusal(error.status, versionID, name)
      }
      if (activation === 'success' && fault?.kind === 'superseded-after-success')
        this.coder.activate(template.id, this.thirdVersion(template, previous, versionID))
    }

    // 8. One re-read, then the confirmation table.
    const couldNotConfirm = apiError(
      503,
      'ServiceUnavailable',
      `could not confirm the promotion of version ${versionID} on template "${name}"; it may or may not have been applied: re-read the template before retrying`
    )
    if (fault?.kind === 'reread-fails') throw couldNotConfirm
    const reread = this.coder.findTemplate(template.organizationName, template.name)
    if (!reread) throw couldNotConfirm
    const active = reread.activeVersionId
    if (active === versionID) return answer('Promoted', previous, versionID)
    if (activation === 'unclear' && active === previous) throw couldNotConfirm
    throw apiError(
      409,
      'Conflict',
      `the promotion of version ${versionID} was superseded by a concurrent change: version ${active} is active; re-read before retrying`
    )
  }

  /** Maps Coder's answer to the PATCH (§2.4 error table); 5xx has no clear answer. */
  private coderRefusal(code: number, versionID: string, name: string): 'unclear' {
    if (code >= 500) return 'unclear'
    if (code === 429)
      throw apiError(
        429,
        'TooManyRequests',
        'Coder rate-limited the activation; nothing was changed'
      )
    if (code === 404)
      throw apiError(
        409,
        'Conflict',
        `the template or version ${versionID} was not found in Coder during the activation; nothing was changed: re-read before retrying`
      )
    throw badRequest(
      `Coder refused to activate version ${versionID} on template "${name}" (status ${code}); nothing was changed: check that its import succeeded and that it is not archived`
    )
  }

  /** Another promotable version of the template, neither the previous nor the requested one. */
  private thirdVersion(template: SandboxTemplate, previous: string, requested: string): string {
    const third = this.coder
      .listVersions(template.organizationName, template.name)
      .find(
        (v) => v.id !== previous && v.id !== requested && v.jobStatus === 'succeeded' && !v.archived
      )
    if (!third)
      throw apiError(
        500,
        'InternalError',
        'sandbox fault needs a third promotable version of the template, and there is none'
      )
    return third.id
  }
}

function fingerprint(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex')
}
