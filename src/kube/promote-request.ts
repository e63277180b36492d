// The promote subresource of the coder-k8s aggregated API, and the active-version read used after a
// 409 or 503 answer (request, answers, time budgets, retry rules, the template and version status):
// https://github.com/coder/coder-k8s/blob/main/docs/reference/aggregated-api-behavior.md
import type { KubeConfig } from '@kubernetes/client-node'
import { AGGREGATION_API_VERSION, PROMOTION_KIND } from '../objects/coder-k8s.js'
import type { CoderTemplateVersionPromotion, KubeStatus } from '../objects/coder-k8s.js'
import type { PromoteAnswer } from '../promotion/answer.js'
import {
  KubeAbortError,
  KubeTimeoutError,
  KubeTransportError,
  isKubeStatus,
  kubeRequest,
  statusMessage
} from './request.js'

export interface PromoteOptions {
  kc: KubeConfig
  namespace: string
  /** `<org>.<template>` (canonical names). */
  template: string
  versionID: string
  dryRun: boolean
  signal?: AbortSignal
  /** Client timeout; default 30000 (above 15 s, at most 34 s; coder-k8s's E2E uses 30 s). */
  timeoutMs?: number
}

/**
 * The answer for the pure table (promotion.ts): httpStatus 0 on a transport error or the client
 * timeout; `status` from a metav1.Status body only; `message` on one line, for display.
 */
export interface PostedPromotion extends PromoteAnswer {
  body: unknown
}

const DEFAULT_PROMOTE_TIMEOUT_MS = 30000

function templatesPath(namespace: string): string {
  return `/apis/${AGGREGATION_API_VERSION}/namespaces/${encodeURIComponent(namespace)}/codertemplates`
}

/**
 * POST the promotion. Never throws for an HTTP answer or a transport failure (the caller's pure table
 * decides); throws only when the caller's signal aborts.
 */
export async function postPromotion(options: PromoteOptions): Promise<PostedPromotion> {
  const path = `${templatesPath(options.namespace)}/${encodeURIComponent(options.template)}/promote`
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROMOTE_TIMEOUT_MS
  try {
    const response = await kubeRequest(options.kc, {
      method: 'POST',
      path,
      query: {
        // dry-run must be exactly `All` (any other value answers 422).
        dryRun: options.dryRun ? 'All' : undefined,
        // The API server allows a create 34 s; a shorter `?timeout=` lowers its
        // deadline, so an attempted activation is answered (Promoted/409/503) before we give up.
        timeout: serverTimeout(timeoutMs)
      },
      // coder-k8s's E2E and unit tests send apiVersion and kind with the spec.
      body: {
        apiVersion: AGGREGATION_API_VERSION,
        kind: PROMOTION_KIND,
        spec: { versionID: options.versionID }
      },
      signal: options.signal,
      timeoutMs
    })
    const answer: PostedPromotion = {
      httpStatus: response.status,
      body: response.body,
      message: response.status === 201 ? '' : oneLine(statusMessage(response))
    }
    if (response.status === 201 && isPromotion(response.body)) answer.promotion = response.body
    const status = statusOf(response.body)
    if (status) answer.status = status
    return answer
  } catch (err) {
    if (err instanceof KubeTimeoutError || err instanceof KubeTransportError) {
      return { httpStatus: 0, body: undefined, message: oneLine(err.message) }
    }
    throw err
  }
}

/**
 * The `?timeout=` for a client timeout: whole seconds rounded down (`30000` → `30s`), so the server's
 * deadline never falls after ours. Below one second, milliseconds (Go's time.ParseDuration, which the
 * API server uses, accepts `500ms`; guess: `0s` would be read as "no timeout given").
 */
function serverTimeout(timeoutMs: number): string {
  const ms = Math.max(1, Math.floor(timeoutMs))
  return ms >= 1000 ? `${Math.floor(ms / 1000)}s` : `${ms}ms`
}

/** A proxy's page or a quoted text may span lines; a log line must not start with its content. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** The metav1.Status fields the table reads, each only when it has the type Kubernetes gives it. */
function statusOf(body: unknown): KubeStatus | undefined {
  if (!isKubeStatus(body)) return undefined
  const status: KubeStatus = { kind: 'Status' }
  if (typeof body.message === 'string') status.message = body.message
  if (typeof body.reason === 'string') status.reason = body.reason
  if (typeof body.code === 'number') status.code = body.code
  const details: unknown = body.details
  if (typeof details === 'object' && details !== null) {
    const { name, group, kind } = details as Record<string, unknown>
    status.details = {}
    if (typeof name === 'string') status.details.name = name
    if (typeof group === 'string') status.details.group = group
    if (typeof kind === 'string') status.details.kind = kind
  }
  return status
}

function isPromotion(body: unknown): body is CoderTemplateVersionPromotion {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { spec?: { versionID?: unknown } }).spec?.versionID === 'string'
  )
}

export interface ReadActiveOptions {
  kc: KubeConfig
  namespace: string
  /** `<org>.<template>`. */
  template: string
  signal?: AbortSignal
  /** Per-request client timeout; default 30000 (versions get/list are capped at 25 s). */
  timeoutMs?: number
}

/**
 * The template's active version ID: CoderTemplate `status.activeVersionID`, or, when that GET
 * is forbidden or fails, the versions list filtered by the template labels with `status.active`
 * (the documented re-read after 409 or 503). null: the template does not exist or no version is active.
 */
export async function readActiveVersionID(options: ReadActiveOptions): Promise<string | null> {
  const timeoutMs = options.timeoutMs ?? 30000
  const dot = options.template.indexOf('.')
  if (dot <= 0 || dot === options.template.length - 1) {
    throw new Error(`template "${options.template}" is not of the form <organization>.<template>`)
  }
  const organization = options.template.slice(0, dot)
  const templateName = options.template.slice(dot + 1)
  const fromTemplate = await readTemplateActive(options, timeoutMs)
  if (fromTemplate.settled) return fromTemplate.activeVersionID
  return listActiveVersionID(options, timeoutMs, organization, templateName, fromTemplate.failure)
}

/** settled: the CoderTemplate answered (null on 404); else why its answer cannot be used. */
type TemplateActive =
  { settled: true; activeVersionID: string | null } | { settled: false; failure: string }

/** CoderTemplate status.activeVersionID. Throws only when the caller's signal aborts. */
async function readTemplateActive(
  options: ReadActiveOptions,
  timeoutMs: number
): Promise<TemplateActive> {
  try {
    const response = await kubeRequest(options.kc, {
      method: 'GET',
      path: `${templatesPath(options.namespace)}/${encodeURIComponent(options.template)}`,
      signal: options.signal,
      timeoutMs
    })
    if (response.status === 200) {
      const active = (response.body as { status?: { activeVersionID?: unknown } } | undefined)
        ?.status?.activeVersionID
      if (typeof active === 'string' && active !== '')
        return { settled: true, activeVersionID: active }
      return { settled: false, failure: 'the CoderTemplate has no status.activeVersionID' }
    }
    if (response.status === 404) return { settled: true, activeVersionID: null }
    return {
      settled: false,
      failure: `GET codertemplates/${options.template} answered HTTP ${response.status}: ${statusMessage(response)}`
    }
  } catch (err) {
    if (err instanceof KubeAbortError) throw err
    return { settled: false, failure: err instanceof Error ? err.message : String(err) }
  }
}

/** The versions list by the template labels; the item with status.active. */
async function listActiveVersionID(
  options: ReadActiveOptions,
  timeoutMs: number,
  organization: string,
  templateName: string,
  firstFailure: string
): Promise<string | null> {
  let response
  try {
    response = await kubeRequest(options.kc, {
      method: 'GET',
      path: `/apis/${AGGREGATION_API_VERSION}/namespaces/${encodeURIComponent(options.namespace)}/codertemplateversions`,
      query: {
        labelSelector: `aggregation.coder.com/organization=${organization},aggregation.coder.com/template=${templateName}`
      },
      signal: options.signal,
      timeoutMs
    })
  } catch (err) {
    if (err instanceof KubeAbortError) throw err
    throw new Error(
      `cannot read the active version of ${options.template}: ${firstFailure}; listing codertemplateversions failed: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err }
    )
  }
  if (response.status !== 200) {
    throw new Error(
      `cannot read the active version of ${options.template}: ${firstFailure}; listing codertemplateversions answered HTTP ${response.status}: ${statusMessage(response)}`
    )
  }
  const items = (response.body as { items?: unknown } | undefined)?.items
  if (!Array.isArray(items)) return null
  return activeInItems(items, organization, templateName)
}

function activeInItems(
  items: unknown[],
  organization: string,
  templateName: string
): string | null {
  for (const item of items as {
    metadata?: { labels?: Record<string, string> }
    status?: { active?: unknown; id?: unknown }
  }[]) {
    // The label selector already filters; check again in case a server ignores it. An item without
    // the labels (every version carries them) proves nothing about this template: skip it.
    const labels = item?.metadata?.labels
    if (
      labels?.['aggregation.coder.com/organization'] !== organization ||
      labels?.['aggregation.coder.com/template'] !== templateName
    ) {
      continue
    }
    if (item?.status?.active === true && typeof item.status.id === 'string') return item.status.id
  }
  return null
}
