// Routes of the caller and its organizations.
import { organizationJson, userJson } from './json.js'
import type { Route } from './route.js'

export const accountRoutes: Route[] = [
  {
    method: 'GET',
    pattern: /^\/api\/v2\/users\/me$/,
    answer: ({ state, caller }) => ({ status: 200, body: userJson(state, caller) })
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/users\/me\/organizations$/,
    answer: ({ state }) => ({ status: 200, body: state.organizations.map(organizationJson) })
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/organizations\/([^/]+)$/,
    answer: ({ state }, m) => ({ status: 200, body: organizationJson(state.requireOrg(m[1])) })
  }
]
