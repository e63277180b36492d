// The checks and answers of a promote request that need no Coder state (processing
// order, results, error messages, time budgets: coder-k8s docs/reference/aggregated-api-behavior.md).
import {
  AGGREGATION_API_VERSION,
  AGGREGATION_GROUP,
  PROMOTION_KIND
} from '../../../src/objects/coder-k8s.js'
import type { SandboxTemplate, SandboxVersion } from '../contracts.js'
import type { Answer } from './aggregated.js'
import type { PromoteTiming } from './promote-faults.js'
import { apiError, badRequest, invalid } from './status.js'
import type { ApiError } from './status.js'

const coderName = /^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$/
const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const nilUuid = '00000000-0000-0000-0000-000000000000'

/** `<organization>.<template>`, each a Coder name of at most 32 characters. */
export function isTemplateName(name: string): boolean {
  const segments = name.split('.')
  return segments.length === 2 && segments.every((s) => s.length <= 32 && coderName.test(s))
}

/** Parses a Kubernetes `?timeout=` duration (e.g. `30s`, `1m30s`, `500ms`) into ms. */
export function parseDuration(text: string): number | null {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return null
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0)
}

/** Request deadline: 34 s, lowered by a shorter client `?timeout=` (the documented time budgets). */
export function promoteDeadline(
  timing: PromoteTiming,
  query: URLSearchParams,
  receivedAt: number
): number {
  const clientTimeout = query.get('timeout') ? parseDuration(query.get('timeout')!) : null
  return receivedAt + Math.min(timing.requestTimeoutUpperBoundMs, clientTimeout ?? Infinity)
}

/** Whether the request is a dry run; any dryRun value other than All is 422. */
export function promoteDryRun(query: URLSearchParams, name: string): boolean {
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
  return dryRunValues.length > 0
}

/** Name and body checks (400), versionID UUID check (422); the versionID in lower case. */
export function promoteVersionID(name: string, rawBody: string): string {
  if (!isTemplateName(name))
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
  return rawVersionID.toLowerCase()
}

/** Version lookup: a succeeded, unarchived version of this template (else 400). */
export function checkPromotable(
  version: SandboxVersion | null | undefined,
  template: SandboxTemplate,
  versionID: string,
  name: string
): void {
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
}

export type PromoteAnswer = (result: string, prev: string, active: string) => Answer

export function promoteAnswer(namespace: string, name: string, versionID: string): PromoteAnswer {
  return (result, prev, active) => ({
    status: 201,
    body: {
      apiVersion: AGGREGATION_API_VERSION,
      kind: PROMOTION_KIND,
      metadata: { name, namespace },
      spec: { versionID },
      status: { result, previousActiveVersionID: prev, activeVersionID: active }
    }
  })
}

export function notAttempted(versionID: string, name: string): ApiError {
  return apiError(
    504,
    'Timeout',
    `the promotion of version ${versionID} on template "${name}" was not attempted: too little of the request time was left after the lookups; nothing was sent to Coder, so it is safe to try again`
  )
}

export function couldNotConfirm(versionID: string, name: string): ApiError {
  return apiError(
    503,
    'ServiceUnavailable',
    `could not confirm the promotion of version ${versionID} on template "${name}"; it may or may not have been applied: re-read the template before retrying`
  )
}

export function superseded(versionID: string, active: string): ApiError {
  return apiError(
    409,
    'Conflict',
    `the promotion of version ${versionID} was superseded by a concurrent change: version ${active} is active; re-read before retrying`
  )
}
