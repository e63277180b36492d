// Lists of codertemplateversions: always complete and current, selected
// by the template (and organization) labels.
import { AGGREGATION_API_VERSION } from '../../../src/objects/coder-k8s.js'
import type { CoderBackend } from '../contracts.js'
import type { Answer } from './aggregated.js'
import { ORG_LABEL, TEMPLATE_LABEL, versionObject } from './aggregated-objects.js'
import { matches, parseLabelSelector, pinned } from './selectors.js'
import { badRequest } from './status.js'

export function listVersions(
  coder: CoderBackend,
  namespace: string,
  query: URLSearchParams
): Answer {
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
  const org = pinned(selector, ORG_LABEL) ?? coder.defaultOrganizationName()
  const template = coder.findTemplate(org, templateName)
  const items = template
    ? coder
        .listVersions(template.organizationName, template.name)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
        .map(
          (v) =>
            versionObject(namespace, template, v) as {
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
