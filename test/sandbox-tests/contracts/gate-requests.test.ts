// The gate's own requests, and the sandbox's answers to them, against the official descriptions:
// every REST exchange of real gate runs (in this process, against a sandbox world) must be an
// operation of @octokit/openapi's api.github.com.json or of Coder's API subset, with declared
// path and query parameters, a body that matches the requestBody and an answer that matches the
// response schema of its status. GraphQL exchanges: see github-graphql.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { RecordedRequest } from '../../sandbox/contracts.js'
import { GITOPS_REPO, OWNER, startWorld, type World } from '../../sandbox/world.js'
import { type Description, loadCoderDescription, loadGitHubDescription } from './descriptions.js'
import { checkExchange, undescribedStatus } from './exchange-check.js'
import { runGateInProcess } from './gate-in-process.js'
import { exchangeProblems, gateDocuments } from './graphql-contract.js'

const github: RecordedRequest[] = []
const graphqlExchanges: RecordedRequest[] = []
const coder: RecordedRequest[] = []
const worlds: World[] = []
const exitCodes: Record<string, number> = {}

async function world(protectedMain: boolean): Promise<World> {
  const w = await startWorld(
    protectedMain
      ? {
          gitopsRepoSettings: {
            allowAutoMerge: true,
            mergeabilityDelayMs: 20,
            autoMergeDelayMs: 20
          }
        }
      : {}
  )
  worlds.push(w)
  if (protectedMain) w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
  w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
  return w
}

/** The runs whose requests are checked: a commit, and pull-request mode with each merge kind. */
const RUNS: { name: string; protectedMain: boolean; inputs: Record<string, string>; pr?: true }[] =
  [
    { name: 'commit, promote', protectedMain: false, inputs: {} },
    {
      name: 'pull request, auto-merge, comment on the templates pull request',
      protectedMain: true,
      inputs: {
        'gitops-mode': 'pull-request',
        'pull-request-labels': 'coder',
        'comment-on-pr': 'true'
      },
      pr: true
    },
    {
      name: 'pull request, immediate merge',
      protectedMain: true,
      inputs: { 'gitops-mode': 'pull-request', 'pull-request-merge': 'immediate' }
    },
    // The templates pull request makes the workflow's repository, where deployments go.
    {
      name: 'commit, promote, recorded as a deployment',
      protectedMain: false,
      inputs: { 'deployment-environment': 'coder-docker' },
      pr: true
    },
    {
      name: 'verify the live version, recorded as a deployment',
      protectedMain: false,
      inputs: { mode: 'verify', 'deployment-environment': 'coder-docker', 'keep-tests': '2' },
      pr: true
    }
  ]

beforeAll(async () => {
  for (const spec of RUNS) {
    const w = await world(spec.protectedMain)
    const context = spec.pr ? w.openTemplatesPullRequest().context : {}
    const run = await runGateInProcess(w, spec.inputs, context)
    exitCodes[spec.name] = run.exitCode
    for (const r of w.github.requests) {
      ;(/^\/(api\/)?graphql/.test(r.path) ? graphqlExchanges : github).push(r)
    }
    coder.push(...w.coder.requests)
  }
}, 120_000)

afterAll(async () => {
  await Promise.all(worlds.map((w) => w.close()))
})

let githubDescription: Description
let coderDescription: Description

describe('the gate against the official API descriptions', () => {
  it('runs to the end in each scenario (the requests below are those of whole runs)', () => {
    expect(exitCodes).toEqual(Object.fromEntries(RUNS.map((r) => [r.name, 0])))
    expect(github.length).toBeGreaterThan(10)
    expect(coder.length).toBeGreaterThan(5)
    expect(github.filter((r) => /\/deployments\/\d+\/statuses$/.test(r.path)).length).toBe(4)
  })

  it('sends GitHub only described REST requests, and the sandbox answers as described', () => {
    githubDescription = loadGitHubDescription(github)
    const problems = github.flatMap((r) => checkExchange(githubDescription, r))
    expect(problems).toEqual([])
  })

  it('meets only the GitHub statuses the description lists, and these known gaps', () => {
    const gaps = new Set(github.map((r) => undescribedStatus(githubDescription, r)))
    gaps.delete(null)
    // GitHub answers 403 "Resource not accessible by integration" to a GITHUB_TOKEN reading
    // branch protection (renovatebot/renovate#23885); the description lists only 200 and 404.
    expect([...gaps]).toEqual(['GET /repos/{owner}/{repo}/branches/{branch}/protection 403'])
  })

  it('sends Coder only described requests (the CLI aside), and the sandbox answers as described', () => {
    coderDescription = loadCoderDescription()
    const problems = coder
      .filter((r) => r.path.startsWith('/api/v2/'))
      .flatMap((r) => checkExchange(coderDescription, r))
      .filter((p) => !CLI_OPERATIONS.some((op) => op.test(p)))
    expect(problems).toEqual([])
  })

  it('meets only the Coder statuses the description lists, and these known gaps', () => {
    const gaps = new Set(coder.map((r) => undescribedStatus(coderDescription, r)))
    gaps.delete(null)
    // The subset describes only 200; coderd answers a missing version by name with 404 and a
    // codersdk.Response, which is how the gate learns the name is free.
    expect([...gaps]).toEqual([
      'GET /organizations/{organization}/templates/{templatename}/versions/{templateversionname} 404'
    ])
  })
})

describe("the gate's GraphQL exchanges in these runs", () => {
  it('send only documents of src/, valid against GitHub’s schema, answered as selected', () => {
    const documents = gateDocuments()
    expect(graphqlExchanges.length).toBeGreaterThan(0)
    for (const exchange of graphqlExchanges) {
      const { query, variables } = JSON.parse(exchange.body ?? '{}') as {
        query: string
        variables?: Record<string, unknown>
      }
      expect(documents).toContain(query)
      const answer = JSON.parse(exchange.answer ?? '{}') as { data?: unknown }
      expect(exchangeProblems(query, variables, answer)).toEqual([])
    }
  })
})

/**
 * Requests of `coder templates push` (the sandbox's fake CLI stands in for the real one), outside
 * the subset: the gate does not send them itself. Checked in the sandbox's own Coder tests.
 */
const CLI_OPERATIONS = [
  /^GET \/api\/v2\/users\/me\/organizations /,
  /^POST \/api\/v2\/files /,
  /^POST \/api\/v2\/organizations\/[^/ ]+\/templateversions /
]
