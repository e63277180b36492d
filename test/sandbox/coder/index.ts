// Sandbox Coder: a local subset of Coder's REST API, the /bin/ CLI download
// serving the fake `coder` executable, and template-version import jobs.
// The Kubernetes sandbox reaches the same state in-process through `backend` (contracts.ts).
// State is in state.ts, routes in routes-*.ts, the HTTP front in http.ts.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { coderBackend } from './backend.js'
import { bakeCli, handleCliReport, SERVED_CLI_PLATFORMS, type BakedCli } from './cli-download.js'
import { activateAs, completeJob, publicUser, seedTemplate, seedVersion } from './controls.js'
import { handleRequest, type CoderHttp } from './http.js'
import { accountRoutes } from './routes-account.js'
import { templateRoutes } from './routes-templates.js'
import { versionRoutes } from './routes-versions.js'
import { CoderState } from './state.js'
import type { CoderSandbox, CoderSandboxOptions } from './types.js'

export { FAKE_CODER_PATH, SERVED_CLI_PLATFORMS } from './cli-download.js'
export { SIGNED_OUT_MESSAGE } from './http.js'
export type {
  ActivationRecord,
  CliInvocation,
  CoderSandbox,
  CoderSandboxOptions,
  SandboxUser,
  SeedVersionInput,
  StoredFile,
  UserInput
} from './types.js'

const API_ROUTES = [...accountRoutes, ...templateRoutes, ...versionRoutes]

async function listen(state: CoderState, options: CoderSandboxOptions) {
  let cli: BakedCli = { bytes: Buffer.alloc(0), etag: '' }
  const app: CoderHttp = {
    state,
    routes: API_ROUTES,
    cli: () => cli,
    cliPlatforms: options.cliPlatforms ?? SERVED_CLI_PLATFORMS
  }
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/__sandbox/cli-invocations') {
      void handleCliReport(req, res, state.cliInvocations)
      return
    }
    void handleRequest(app, req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  cli = bakeCli(state.serverVersion, url)
  return { server, url }
}

export async function startCoderSandbox(options: CoderSandboxOptions = {}): Promise<CoderSandbox> {
  const state = new CoderState(options)
  const { server, url } = await listen(state, options)
  const { settings } = state
  return {
    url,
    token: state.user.token,
    user: publicUser(state.user),
    serverVersion: state.serverVersion,
    backend: coderBackend(state),
    requests: state.requests,
    cliInvocations: state.cliInvocations,
    activations: state.activations,
    events: state.events,
    files: state.files,
    get importDelayMs() {
      return settings.importDelayMs
    },
    set importDelayMs(ms) {
      settings.importDelayMs = ms
    },
    get cancelDelayMs() {
      return settings.cancelDelayMs
    },
    set cancelDelayMs(ms) {
      settings.cancelDelayMs = ms
    },
    get randomNameOnCreate() {
      return settings.randomNameOnCreate
    },
    set randomNameOnCreate(on) {
      settings.randomNameOnCreate = on
    },
    failNextImport: (message) => void state.pendingImportFailures.push(message),
    completeJob: (versionId, status, error) => completeJob(state, versionId, status, error),
    failNextRequests(pathPrefix, status, times, message = 'Injected failure.') {
      state.requestFaults.push({ pathPrefix, status, times, message })
    },
    seedTemplate: (input) => seedTemplate(state, input),
    seedVersion: (input) => seedVersion(state, input),
    addUser: (input) => publicUser(state.addUser(input)),
    useVersion: (versionId) => void state.inUse.add(versionId),
    activateVersion: (input) => activateAs(state, input),
    async close() {
      state.clearTimers()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
