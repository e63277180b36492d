// One CoderTemplateTest on a scripted API server: GET of the object, LIST and WATCH of the collection
// (with fieldSelector), as the Kubernetes API server answers them. Each test scripts the watches.
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import {
  listBody,
  notFound,
  sendJson,
  sendStatus,
  startKubeServer,
  startWatch,
  testObject
} from './kubeServer.js'
import type { RecordedKubeRequest, ScriptedKubeServer, WatchStream } from './kubeServer.js'

export const WORLD_NAMESPACE = 'coder'
export const WORLD_TEST_NAME = 'docker-v1'
export const COLLECTION_PATH = `/apis/coder.com/v1alpha1/namespaces/${WORLD_NAMESPACE}/codertemplatetests`
export const OBJECT_PATH = `${COLLECTION_PATH}/${WORLD_TEST_NAME}`

export interface TestWorld {
  server: ScriptedKubeServer
  /** The stored object; null = not found. */
  current: CoderTemplateTest | null
  /** The store's resourceVersion (bumped by every write). */
  rv: number
  /** Stores a new status (creating the object if needed) and returns the stored object. */
  write(status?: CoderTemplateTest['status']): CoderTemplateTest
  /** Deletes the object and returns its last state. */
  remove(): CoderTemplateTest
  watches: { request: RecordedKubeRequest; stream: WatchStream }[]
  gets(): RecordedKubeRequest[]
  lists(): RecordedKubeRequest[]
  /** Overrides the answer of GET of the object (e.g. a 500; status 0 = never answer); undefined = normal. */
  failGet?: (
    request: RecordedKubeRequest
  ) => { status: number; reason: string; message: string } | undefined
  /** Answers a watch request with an HTTP error instead of a stream. */
  failWatch?: (
    request: RecordedKubeRequest
  ) => { status: number; reason: string; message: string } | undefined
  close(): Promise<void>
}

export async function startTestWorld(
  onWatch: (stream: WatchStream, request: RecordedKubeRequest, world: TestWorld) => void
): Promise<TestWorld> {
  const world: TestWorld = {
    server: undefined as unknown as ScriptedKubeServer,
    current: null,
    rv: 10,
    write(status) {
      world.rv++
      world.current = testObject(WORLD_TEST_NAME, String(world.rv), status, WORLD_NAMESPACE)
      return world.current
    },
    remove() {
      const last = world.current
      if (!last) throw new Error('nothing to delete')
      world.rv++
      world.current = null
      return { ...last, metadata: { ...last.metadata, resourceVersion: String(world.rv) } }
    },
    watches: [],
    gets: () => world.server.requestsTo('GET', OBJECT_PATH),
    lists: () =>
      world.server
        .requestsTo('GET', COLLECTION_PATH)
        .filter((r) => r.query.get('watch') !== 'true'),
    close: () => world.server.close()
  }
  world.server = await startKubeServer(({ res, recorded }) => {
    if (recorded.method !== 'GET') return sendStatus(res, 405, 'MethodNotAllowed', 'not allowed')
    if (recorded.path === OBJECT_PATH) {
      const failure = world.failGet?.(recorded)
      if (failure?.status === 0) return // never answers
      if (failure) return sendStatus(res, failure.status, failure.reason, failure.message)
      if (!world.current) return notFound(res, 'codertemplatetests.coder.com', WORLD_TEST_NAME)
      return sendJson(res, 200, world.current)
    }
    if (recorded.path === COLLECTION_PATH) {
      const selector = recorded.query.get('fieldSelector')
      const matches = (o: CoderTemplateTest | null): o is CoderTemplateTest =>
        o !== null && (selector === null || selector === `metadata.name=${o.metadata.name}`)
      if (recorded.query.get('watch') === 'true') {
        const failure = world.failWatch?.(recorded)
        if (failure) return sendStatus(res, failure.status, failure.reason, failure.message)
        const stream = startWatch(res)
        world.watches.push({ request: recorded, stream })
        onWatch(stream, recorded, world)
        return
      }
      return sendJson(res, 200, listBody(String(world.rv), [world.current].filter(matches)))
    }
    sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource')
  })
  return world
}
