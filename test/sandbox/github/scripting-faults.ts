// The scripting handle's fault part: what the next requests meet (GitHubSandbox in types.ts).
import { GRAPHQL_TIMEOUT_MESSAGE, type HttpState } from './http-state.js'
import type { GitHubSandbox } from './types.js'

type FaultControls = Pick<
  GitHubSandbox,
  | 'secondaryLimitStats'
  | 'beforeRequest'
  | 'injectConflicts'
  | 'injectServerErrors'
  | 'failAfterStoring'
  | 'timeOutAfterStoring'
  | 'failGraphqlUnstored'
  | 'truncateTrees'
  | 'injectRateLimit'
  | 'injectGraphqlRateLimit'
  | 'hangNextRequests'
  | 'routeCounts'
>

export function faultControls(http: HttpState): FaultControls {
  const { state, limiter } = http
  return {
    secondaryLimitStats: () => (limiter ? { ...limiter.stats } : null),
    beforeRequest(listener) {
      http.requestListeners.add(listener)
      return () => http.requestListeners.delete(listener)
    },
    injectConflicts(count, kind) {
      for (let i = 0; i < count; i++) state.conflictFaults.push(kind)
    },
    injectServerErrors(count, status = 502) {
      for (let i = 0; i < count; i++) http.serverErrorFaults.push(status)
    },
    failAfterStoring(count, matches, status = 502) {
      for (let i = 0; i < count; i++) http.afterStoreFaults.push({ matches, status })
    },
    timeOutAfterStoring(count, query, message = GRAPHQL_TIMEOUT_MESSAGE) {
      const matches = (method: string, path: string): boolean =>
        method === 'POST' && path.endsWith('/graphql')
      for (let i = 0; i < count; i++)
        http.afterStoreFaults.push({ matches, status: 200, graphqlTimeout: message, query })
    },
    failGraphqlUnstored(count, query, status = 502) {
      const matches = (method: string, path: string): boolean =>
        method === 'POST' && path.endsWith('/graphql')
      for (let i = 0; i < count; i++)
        http.afterStoreFaults.push({ matches, status, query, beforeStoring: true })
    },
    truncateTrees(maxEntries) {
      state.treeEntryLimit = maxEntries
    },
    injectRateLimit(count, fault = {}) {
      for (let i = 0; i < count; i++) http.rateLimitFaults.push(fault)
    },
    injectGraphqlRateLimit(count, seconds = 1) {
      for (let i = 0; i < count; i++) state.graphqlRateLimits.push(seconds)
    },
    hangNextRequests(count) {
      http.requestsToHang += count
    },
    routeCounts: () => Object.fromEntries(http.counts)
  }
}
