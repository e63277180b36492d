// A local GitHub API on 127.0.0.1: REST (also under the GHES prefix /api/v3) and GraphQL (/graphql,
// and /api/graphql where @octokit/graphql sends it for a /api/v3 base URL). This module starts the
// server and assembles the GitHubSandbox handle tests script the world through. The HTTP side
// (authentication, faults, records, ETag / 304) is in http.ts over http-state.ts; the handle's
// parts are in scripting-*.ts; the endpoints live in repos.ts, git-data.ts, rules.ts, pulls.ts,
// issues.ts and graphql.ts. Answers follow api.github.com; texts measured on github.com by others
// are cited, the rest is marked `guess`.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { deploymentRoutes, deploymentsOf } from './deployments.js'
import { gitDataRoutes } from './git-data.js'
import { graphqlRoute } from './graphql.js'
import { handleRequest } from './http.js'
import { HttpState } from './http-state.js'
import { issueRoutes } from './issues.js'
import { autoMergeTick } from './merge.js'
import { pullRoutes } from './pulls.js'
import { repoRoutes } from './repos.js'
import { Router } from './router.js'
import { ruleRoutes } from './rules.js'
import { faultControls } from './scripting-faults.js'
import { pullActions, pullReads } from './scripting-pulls.js'
import { branchControls, repoControls } from './scripting-repos.js'
import { SandboxState, tokenGrant } from './state.js'
import type { GitHubSandbox, GitHubSandboxOptions } from './types.js'
import { userRoutes } from './users.js'

function sandboxRouter(): Router {
  const router = new Router()
  // First match wins: /branches/{branch}/protection before /branches/{branch+}.
  router.add([...ruleRoutes, ...repoRoutes, ...gitDataRoutes, ...pullRoutes, ...issueRoutes])
  router.add(deploymentRoutes)
  router.add(userRoutes)
  router.add([graphqlRoute])
  return router
}

export async function startGitHubSandbox(
  options: GitHubSandboxOptions = {}
): Promise<GitHubSandbox> {
  const state = new SandboxState()
  const token = options.token ?? `ghs_${Math.random().toString(36).slice(2)}sandbox`
  state.tokens.set(token, tokenGrant(options.tokenOptions))
  const http = new HttpState(state, sandboxRouter(), options.secondaryLimits)
  const server = createServer((req, res) => {
    handleRequest(http, req, res).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  http.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // Auto-merge works in the background, like GitHub's.
  const ticker = setInterval(() => autoMergeTick(state), 10)
  ticker.unref()
  return {
    url: http.base,
    serverUrl: http.base,
    token,
    requests: http.requests,
    ...repoControls(state),
    ...branchControls(state),
    ...faultControls(http),
    ...pullActions(state),
    ...pullReads(state),
    deployments(owner, repo) {
      const found = state.findRepo(owner, repo)
      if (!found) throw new Error(`sandbox: no repository ${owner}/${repo}`)
      return deploymentsOf(found)
    },
    close() {
      clearInterval(ticker)
      return new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      })
    }
  }
}
