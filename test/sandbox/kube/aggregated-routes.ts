// Routes of the aggregated API aggregation.coder.com/v1alpha1: templates,
// template versions and promote. The answers come from AggregatedApi (aggregated.ts).
import type { IncomingMessage } from 'node:http'
import type { AggregatedApi } from './aggregated.js'
import { addAggregationGroupDiscovery } from './discovery.js'
import { readBody } from './request-body.js'
import type { RouteTable } from './routes.js'
import { isWatch, nameOf, nsOf } from './routes.js'
import { apiError } from './status.js'

export const promotePath =
  /^\/apis\/aggregation\.coder\.com\/v1alpha1\/namespaces\/[^/]+\/codertemplates\/[^/]+\/promote$/

export function addAggregatedRoutes(
  routes: RouteTable,
  aggregated: AggregatedApi,
  /** When each promote request arrived (before authorization: the deadline starts there). */
  receivedAt: WeakMap<IncomingMessage, number>
): void {
  addAggregationGroupDiscovery(routes)
  routes.route(
    'GET',
    /^\/apis\/aggregation\.coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplates\/([^/]+)$/,
    async (_req, _res, m) => aggregated.getTemplate(nsOf(m), nameOf(m))
  )
  routes.route(
    'GET',
    /^\/apis\/aggregation\.coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplateversions$/,
    async (_req, _res, m, query) => {
      if (isWatch(query))
        throw apiError(
          405,
          'MethodNotAllowed',
          'watch is not supported on resources of kind "codertemplateversions"'
        )
      return aggregated.listVersions(nsOf(m), query)
    }
  )
  routes.route(
    'GET',
    /^\/apis\/aggregation\.coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplateversions\/([^/]+)$/,
    async (_req, _res, m) => aggregated.getVersion(nsOf(m), nameOf(m))
  )
  routes.route(
    'POST',
    /^\/apis\/aggregation\.coder\.com\/v1alpha1\/namespaces\/([^/]+)\/codertemplates\/([^/]+)\/promote$/,
    async (req, _res, m, query) => {
      const body = await readBody(req)
      const at = receivedAt.get(req) ?? Date.now()
      return aggregated.promote(nsOf(m), nameOf(m), body, query, at)
    }
  )
}
