// Discovery of the Kubernetes sandbox: /api, /apis, /version, the namespaces it pretends exist,
// and the group documents of authorization.k8s.io, coder.com and aggregation.coder.com.
import {
  AGGREGATION_API_VERSION,
  AGGREGATION_GROUP,
  AGGREGATION_VERSION,
  PROMOTION_KIND,
  TEST_API_VERSION,
  TEST_GROUP,
  TEST_KIND,
  TEST_PLURAL,
  TEST_VERSION
} from '../../../src/objects/coder-k8s.js'
import type { RouteTable } from './routes.js'
import { nsOf } from './routes.js'

export interface ServedGroups {
  tests: boolean
  aggregation: boolean
}

export const AUTHORIZATION_GROUP = 'authorization.k8s.io'
export const AUTHORIZATION_VERSION = 'v1'

// The part of authorization.k8s.io/v1 the sandbox serves (a real server also lists
// selfsubjectrulesreviews, subjectaccessreviews and localsubjectaccessreviews).
const authorizationResources = [
  {
    name: 'selfsubjectaccessreviews',
    singularName: 'selfsubjectaccessreview',
    namespaced: false,
    kind: 'SelfSubjectAccessReview',
    verbs: ['create']
  }
]

function groupEntry(group: string, version: string) {
  const gv = { groupVersion: `${group}/${version}`, version }
  return { name: group, versions: [gv], preferredVersion: gv }
}

function resourceList(groupVersion: string, resources: unknown[]) {
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources }
}

// Namespaced, status subresource only, no short names.
const testResources = [
  {
    name: TEST_PLURAL,
    singularName: 'codertemplatetest',
    namespaced: true,
    kind: TEST_KIND,
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']
  },
  {
    name: `${TEST_PLURAL}/status`,
    singularName: '',
    namespaced: true,
    kind: TEST_KIND,
    verbs: ['get', 'patch', 'update']
  }
]

// The aggregated resources coder-k8s serves.
const aggregatedResources = [
  {
    name: 'codertemplates',
    singularName: 'codertemplate',
    namespaced: true,
    kind: 'CoderTemplate',
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']
  },
  {
    name: 'codertemplates/promote',
    singularName: '',
    namespaced: true,
    group: AGGREGATION_GROUP,
    version: AGGREGATION_VERSION,
    kind: PROMOTION_KIND,
    verbs: ['create']
  },
  {
    name: 'codertemplateversions',
    singularName: 'codertemplateversion',
    namespaced: true,
    kind: 'CoderTemplateVersion',
    verbs: ['get', 'list']
  }
]

/** /api, /api/v1, namespaces, /version, /apis and authorization.k8s.io (SSAR: access-review.ts). */
export function addCoreDiscovery(table: RouteTable, served: ServedGroups): void {
  addLegacyDiscovery(table)
  addGroupListDiscovery(table, served)
}

function addLegacyDiscovery(table: RouteTable): void {
  const route = table.route.bind(table)
  route('GET', /^\/api$/, async (req) => ({
    status: 200,
    body: {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [
        { clientCIDR: '0.0.0.0/0', serverAddress: req.headers.host ?? '' }
      ]
    }
  }))
  route('GET', /^\/api\/v1$/, async () => ({
    status: 200,
    body: resourceList('v1', [
      {
        name: 'namespaces',
        singularName: 'namespace',
        namespaced: false,
        kind: 'Namespace',
        verbs: ['get', 'list']
      }
    ])
  }))
  // guess: every namespace exists (kubectl reads the namespace after a NotFound).
  route('GET', /^\/api\/v1\/namespaces\/([^/]+)$/, async (_req, _res, m) => ({
    status: 200,
    body: {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: nsOf(m) },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' }
    }
  }))
  route('GET', /^\/version$/, async () => ({
    status: 200,
    body: { major: '1', minor: '32', gitVersion: 'v1.32.0-sandbox', platform: 'linux/amd64' }
  }))
}

function addGroupListDiscovery(table: RouteTable, served: ServedGroups): void {
  const route = table.route.bind(table)
  route('GET', /^\/apis$/, async () => ({
    status: 200,
    body: {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [
        groupEntry(AUTHORIZATION_GROUP, AUTHORIZATION_VERSION),
        ...(served.tests ? [groupEntry(TEST_GROUP, TEST_VERSION)] : []),
        ...(served.aggregation ? [groupEntry(AGGREGATION_GROUP, AGGREGATION_VERSION)] : [])
      ]
    }
  }))
  route('GET', /^\/apis\/authorization\.k8s\.io$/, async () => ({
    status: 200,
    body: {
      kind: 'APIGroup',
      apiVersion: 'v1',
      ...groupEntry(AUTHORIZATION_GROUP, AUTHORIZATION_VERSION)
    }
  }))
  route('GET', /^\/apis\/authorization\.k8s\.io\/v1$/, async () => ({
    status: 200,
    body: resourceList(`${AUTHORIZATION_GROUP}/${AUTHORIZATION_VERSION}`, authorizationResources)
  }))
}

export function addTestGroupDiscovery(table: RouteTable): void {
  table.route('GET', /^\/apis\/coder\.com$/, async () => ({
    status: 200,
    body: { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(TEST_GROUP, TEST_VERSION) }
  }))
  table.route('GET', /^\/apis\/coder\.com\/v1alpha1$/, async () => ({
    status: 200,
    body: resourceList(TEST_API_VERSION, testResources)
  }))
}

export function addAggregationGroupDiscovery(table: RouteTable): void {
  table.route('GET', /^\/apis\/aggregation\.coder\.com$/, async () => ({
    status: 200,
    body: {
      kind: 'APIGroup',
      apiVersion: 'v1',
      ...groupEntry(AGGREGATION_GROUP, AGGREGATION_VERSION)
    }
  }))
  table.route('GET', /^\/apis\/aggregation\.coder\.com\/v1alpha1$/, async () => ({
    status: 200,
    body: resourceList(AGGREGATION_API_VERSION, aggregatedResources)
  }))
}
