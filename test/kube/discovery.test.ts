import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { KubeConfig } from '@kubernetes/client-node'
import { assertCoderK8sServed } from '../../src/kube/discovery.js'
import {
  apiResourceList,
  kubeConfigFor,
  sendJson,
  sendStatus,
  startKubeServer,
  tokenKubeconfig
} from './helpers/kubeServer.js'
import type { ScriptedKubeServer } from './helpers/kubeServer.js'

const TESTS_GV = '/apis/coder.com/v1alpha1'
const AGG_GV = '/apis/aggregation.coder.com/v1alpha1'

const testsList = apiResourceList('coder.com/v1alpha1', [
  {
    name: 'codertemplatetests',
    kind: 'CoderTemplateTest',
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']
  },
  {
    name: 'codertemplatetests/status',
    kind: 'CoderTemplateTest',
    verbs: ['get', 'patch', 'update']
  }
])
// The aggregated resources coder-k8s serves.
const aggregationList = apiResourceList('aggregation.coder.com/v1alpha1', [
  {
    name: 'codertemplates',
    kind: 'CoderTemplate',
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']
  },
  { name: 'codertemplates/promote', kind: 'CoderTemplateVersionPromotion', verbs: ['create'] },
  { name: 'codertemplateversions', kind: 'CoderTemplateVersion', verbs: ['get', 'list'] }
])

type Answer = { status: number; body?: unknown; reason?: string; message?: string }
let answers: Record<string, Answer> = {}
let server: ScriptedKubeServer

beforeAll(async () => {
  server = await startKubeServer(({ res, recorded }) => {
    const answer = answers[recorded.path]
    if (!answer)
      return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource')
    if (answer.status === 200) return sendJson(res, 200, answer.body)
    sendStatus(res, answer.status, answer.reason ?? 'Failure', answer.message ?? '')
  })
})
afterAll(() => server.close())

describe('assertCoderK8sServed', () => {
  it('passes when the CRD and the promote subresource are served, sending the bearer token', async () => {
    answers = {
      [TESTS_GV]: { status: 200, body: testsList },
      [AGG_GV]: { status: 200, body: aggregationList }
    }
    const before = server.requests.length
    await assertCoderK8sServed(kubeConfigFor(server), { needAggregation: true })
    const seen = server.requests.slice(before)
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${TESTS_GV}`, `GET ${AGG_GV}`])
    expect(seen.every((r) => r.authorized)).toBe(true)
  })

  it('does not read the aggregated API when it is not needed', async () => {
    answers = { [TESTS_GV]: { status: 200, body: testsList } }
    const before = server.requests.length
    await assertCoderK8sServed(kubeConfigFor(server), { needAggregation: false })
    expect(server.requests.slice(before).map((r) => r.path)).toEqual([TESTS_GV])
  })

  it('says coder-k8s is not installed on 404', async () => {
    answers = {}
    await expect(
      assertCoderK8sServed(kubeConfigFor(server), { needAggregation: false })
    ).rejects.toThrow(
      /coder-k8s is not installed in this cluster, or coder\.com\/v1alpha1 is not served/
    )
  })

  it('says the aggregated API is not served when only the CRD exists', async () => {
    answers = { [TESTS_GV]: { status: 200, body: testsList } }
    await expect(
      assertCoderK8sServed(kubeConfigFor(server), { needAggregation: true })
    ).rejects.toThrow(/aggregation\.coder\.com\/v1alpha1 is not served .*aggregated API server/)
  })

  it('reports an unavailable APIService (503)', async () => {
    answers = {
      [TESTS_GV]: { status: 200, body: testsList },
      [AGG_GV]: {
        status: 503,
        reason: 'ServiceUnavailable',
        message: 'the server is currently unable to handle the request'
      }
    }
    await expect(
      assertCoderK8sServed(kubeConfigFor(server), { needAggregation: true })
    ).rejects.toThrow(/registered but unavailable .*503: the server is currently unable/)
  })

  it('fails when the group is served without the resource', async () => {
    answers = {
      [TESTS_GV]: { status: 200, body: testsList },
      [AGG_GV]: {
        status: 200,
        body: apiResourceList('aggregation.coder.com/v1alpha1', [
          { name: 'codertemplates', kind: 'CoderTemplate', verbs: ['get'] }
        ])
      }
    }
    await expect(
      assertCoderK8sServed(kubeConfigFor(server), { needAggregation: true })
    ).rejects.toThrow(/does not list "codertemplates\/promote"/)
  })

  it('gives an auth error on 401 without printing the token', async () => {
    answers = { [TESTS_GV]: { status: 200, body: testsList } }
    const kc = new KubeConfig()
    kc.loadFromString(tokenKubeconfig(server.url, 'wrong-token-secret'))
    const error = await assertCoderK8sServed(kc, { needAggregation: false }).catch((e: Error) => e)
    expect((error as Error).message).toMatch(/rejected the credentials .*401 Unauthorized/)
    expect((error as Error).message).not.toContain('wrong-token-secret')
  })

  it('gives an auth error on 403', async () => {
    answers = {
      [TESTS_GV]: {
        status: 403,
        reason: 'Forbidden',
        message: 'forbidden: User "ci" cannot get path'
      }
    }
    await expect(
      assertCoderK8sServed(kubeConfigFor(server), { needAggregation: false })
    ).rejects.toThrow(/may not read API discovery .*403 Forbidden: forbidden: User "ci"/)
  })

  it('names the server URL, not the credentials, on a connection error', async () => {
    const dead = await startKubeServer(() => undefined)
    const { url, token } = dead
    await dead.close()
    const error = await assertCoderK8sServed(kubeConfigFor({ url, token }), {
      needAggregation: false
    }).catch((e: Error) => e)
    expect((error as Error).message).toContain(`cannot reach the Kubernetes API server at ${url}`)
    expect((error as Error).message).toContain('ECONNREFUSED')
    expect((error as Error).message).not.toContain(token)
  })

  it('rejects at once when the signal is already aborted', async () => {
    answers = { [TESTS_GV]: { status: 200, body: testsList } }
    const controller = new AbortController()
    controller.abort()
    await expect(
      assertCoderK8sServed(kubeConfigFor(server), {
        needAggregation: false,
        signal: controller.signal
      })
    ).rejects.toMatchObject({ name: 'AbortError' })
  })
})
