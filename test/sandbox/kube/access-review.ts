// SelfSubjectAccessReview of the Kubernetes sandbox: the same rules as every request, for the
// token's own user.
import type { Answer } from './aggregated.js'
import { AUTHORIZATION_GROUP, AUTHORIZATION_VERSION } from './discovery.js'
import type { RequestAttributes, SandboxRbac } from './rbac.js'
import { readReviewBody } from './request-body.js'
import type { RouteTable } from './routes.js'
import type { AccessReviewRecord } from './sandbox-types.js'
import { invalid } from './status.js'

type ReviewAttributes = Record<string, string | undefined>

interface ReviewSpec {
  resourceAttributes?: ReviewAttributes
  nonResourceAttributes?: ReviewAttributes
}

export function addAccessReviewRoute(
  table: RouteTable,
  rbac: SandboxRbac,
  accessReviews: AccessReviewRecord[]
): void {
  table.route(
    'POST',
    /^\/apis\/authorization\.k8s\.io\/v1\/selfsubjectaccessreviews$/,
    async (req) => selfSubjectAccessReview(await readReviewBody(req), rbac, accessReviews)
  )
}

function selfSubjectAccessReview(
  body: unknown,
  rbac: SandboxRbac,
  accessReviews: AccessReviewRecord[]
): Answer {
  const review = (body ?? {}) as { spec?: ReviewSpec }
  const spec = review.spec ?? {}
  const attributes = reviewAttributes(spec)
  const decision = rbac.authorize(attributes)
  accessReviews.push({ at: Date.now(), attributes, decision })
  return {
    status: 201,
    body: {
      kind: 'SelfSubjectAccessReview',
      apiVersion: `${AUTHORIZATION_GROUP}/${AUTHORIZATION_VERSION}`,
      metadata: { creationTimestamp: null }, // guess: as older servers print an unset time
      spec,
      // RBAC gives no opinion (not a deny) when no rule matches: allowed false, no reason.
      status: {
        allowed: decision.allowed,
        ...(decision.reason ? { reason: decision.reason } : {})
      }
    }
  }
}

/** The attributes the review asks about; exactly one of the two kinds. */
function reviewAttributes(spec: ReviewSpec): RequestAttributes {
  const resource = spec.resourceAttributes
  const nonResource = spec.nonResourceAttributes
  // guess: the validation texts (pkg/apis/authorization/validation), recalled
  if (resource && nonResource)
    throw invalid('SelfSubjectAccessReview', AUTHORIZATION_GROUP, '', [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.nonResourceAttributes',
        message: `Invalid value: ${JSON.stringify(JSON.stringify(nonResource))}: cannot be specified in combination with resourceAttributes`
      }
    ])
  if (!resource && !nonResource)
    throw invalid('SelfSubjectAccessReview', AUTHORIZATION_GROUP, '', [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.resourceAttributes',
        message:
          'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified'
      }
    ])
  return resource
    ? {
        resourceRequest: true,
        namespace: resource.namespace ?? '',
        verb: resource.verb ?? '',
        group: resource.group ?? '',
        ...(resource.version ? { version: resource.version } : {}),
        resource: resource.resource ?? '',
        ...(resource.subresource ? { subresource: resource.subresource } : {}),
        ...(resource.name ? { name: resource.name } : {})
      }
    : { resourceRequest: false, path: nonResource!.path ?? '', verb: nonResource!.verb ?? '' }
}
