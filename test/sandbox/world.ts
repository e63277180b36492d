// The whole local world, started in-process on ephemeral ports of 127.0.0.1: Coder, a Kubernetes
// API server with the coder-k8s controller and aggregated API, a GitHub repository, and a GitOps
// sync loop between the repository and the cluster. The end-to-end tests, `npm run demo` and
// `npm run bench` run the real bundle against it.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type ActionRun, runAction, type RunnerContext, type RunOptions } from './action-runner.js'
import {
  type CoderSandbox,
  type CoderSandboxOptions,
  FAKE_CODER_PATH,
  startCoderSandbox
} from './coder/index.js'
import {
  type GitHubSandbox,
  type GitHubSandboxOptions,
  type RepoSettings,
  startGitHubSandbox
} from './github/index.js'
import { type GitOpsSync, startGitOpsSync } from './gitops-sync.js'
import type { SyncEngine } from './gitops-nudge.js'
import { type KubeSandbox, type KubeSandboxOptions, startKubeSandbox } from './kube/index.js'

export const OWNER = 'acme'
export const GITOPS_REPO = 'gitops'
export const TEMPLATES_REPO = 'templates'
export const NAMESPACE = 'coder-tests'
export const GITOPS_PATH = 'coder-template-tests'
export const HEAD_SHA = '3f2a9c1d5e7b8a6c4d2e0f1a3b5c7d9e1f2a3b4c'

export interface WorldOptions {
  coder?: CoderSandboxOptions
  kube?: Partial<Omit<KubeSandboxOptions, 'coder'>>
  /** Delay of the GitOps sync loop after a commit (Argo CD / Flux). Default 50 ms. */
  syncDelayMs?: number
  /** Start no GitOps sync loop: the test never appears in the cluster. */
  noSync?: boolean
  /** The sync deletes objects whose manifests were removed (Argo CD / Flux prune). Default false. */
  syncPrune?: boolean
  /** The sync loop polls Git every this many ms instead of following each commit. */
  syncPollMs?: number
  /** The engine objects of the sync loop, for gitops-refresh (test/sandbox/gitops-nudge.ts). */
  syncEngine?: SyncEngine
  /** Settings of the GitOps repository (e.g. allowAutoMerge for pull-request mode). */
  gitopsRepoSettings?: Partial<RepoSettings>
  /** Options of the GitHub sandbox (e.g. secondaryLimits). */
  github?: GitHubSandboxOptions
}

export interface World {
  coder: CoderSandbox
  kube: KubeSandbox
  github: GitHubSandbox
  sync: GitOpsSync | null
  /** A checkout of the templates repository with one template in `docker/`. */
  workspace: string
  /** Inputs for a run against this world, with the CLI of the sandbox; override as needed. */
  inputs(overrides?: Record<string, string>): Record<string, string>
  /** The runner context of a tag push (override for other events). */
  context(overrides?: Partial<RunnerContext>): RunnerContext
  run(
    overrides?: Record<string, string>,
    context?: Partial<RunnerContext>,
    options?: RunOptions
  ): Promise<ActionRun>
  /**
   * A pull request in the workflow's own repository (the templates repository, created on first
   * use), and the runner context of its `pull_request` event.
   */
  openTemplatesPullRequest(title?: string): TemplatesPullRequest
  /** Every secret of this world: none may show in any output of the action. */
  secrets(): string[]
  close(): Promise<void>
}

export interface TemplatesPullRequest {
  number: number
  headSha: string
  context: Partial<RunnerContext>
}

function startSync(options: WorldOptions, github: GitHubSandbox, kube: KubeSandbox) {
  if (options.noSync) return null
  return startGitOpsSync({
    subscribe: (listener) => github.onCommit(listener),
    kube,
    path: GITOPS_PATH,
    delayMs: options.syncDelayMs ?? 50,
    // Only the synced branch: commits on pull request branches never reach the cluster.
    branch: 'main',
    repository: `${OWNER}/${GITOPS_REPO}`,
    prune: options.syncPrune ?? false,
    pollIntervalMs: options.syncPollMs,
    engine: options.syncEngine
  })
}

/** The workflow's checkout: the docker template's directory. */
function makeWorkspace(): string {
  const workspace = mkdtempSync(path.join(tmpdir(), 'gate-workspace-'))
  mkdirSync(path.join(workspace, 'docker'))
  writeFileSync(
    path.join(workspace, 'docker/main.tf'),
    'terraform {\n  required_providers {\n    coder = { source = "coder/coder" }\n  }\n}\n\nresource "coder_agent" "main" {\n  os   = "linux"\n  arch = "amd64"\n}\n'
  )
  return workspace
}

/** The action's inputs that reach this world's servers (as action.yml names them). */
function worldInputs(
  coder: CoderSandbox,
  kube: KubeSandbox,
  github: GitHubSandbox
): Record<string, string> {
  return {
    'coder-url': coder.url,
    'coder-token': coder.token,
    template: 'docker',
    organization: '',
    directory: 'docker',
    version: '',
    message: '',
    variables: '',
    'coder-cli': FAKE_CODER_PATH,
    namespace: NAMESPACE,
    'control-plane': 'coder',
    'test-name': '',
    'test-parameters': '',
    'test-timeout-seconds': '900',
    'gitops-repository': `${OWNER}/${GITOPS_REPO}`,
    'gitops-branch': '',
    'gitops-path': GITOPS_PATH,
    'gitops-token': github.token,
    kubeconfig: kube.kubeconfig(),
    'kube-context': '',
    promote: 'true',
    'wait-timeout-seconds': '',
    'sync-timeout-seconds': '600',
    'github-token': github.token
  }
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const coder = await startCoderSandbox({ defaultOrganization: OWNER, ...options.coder })
  const kube = await startKubeSandbox({
    coder: coder.backend,
    controller: { stepDelayMs: 20 },
    bookmarkIntervalMs: 10_000,
    ...options.kube
  })
  const github = await startGitHubSandbox(options.github)
  github.createRepo(OWNER, GITOPS_REPO, {
    defaultBranch: 'main',
    settings: options.gitopsRepoSettings
  })
  const sync = startSync(options, github, kube)
  const workspace = makeWorkspace()

  const world: World = {
    coder,
    kube,
    github,
    sync,
    workspace,
    inputs: (overrides = {}) => ({ ...worldInputs(coder, kube, github), ...overrides }),
    context: (overrides = {}) => ({
      eventName: 'push',
      ref: 'refs/tags/v1.0.0',
      sha: HEAD_SHA,
      repository: `${OWNER}/${TEMPLATES_REPO}`,
      apiUrl: github.url,
      workspace,
      payload: { head_commit: { message: 'Add Go to the docker template\n\nLonger body.' } },
      ...overrides
    }),
    run: (overrides = {}, context = {}, runOptions = {}) =>
      runAction(world.inputs(overrides), world.context(context), runOptions),
    openTemplatesPullRequest: (title = 'Add Go to the docker template') =>
      openTemplatesPullRequest(github, title),
    secrets: () => [coder.token, github.token, kube.token],
    close: async () => {
      sync?.stop()
      await Promise.all([coder.close(), kube.close(), github.close()])
    }
  }
  return world
}

let templatesBranches = 0
const withTemplatesRepo = new WeakSet<GitHubSandbox>()

function openTemplatesPullRequest(github: GitHubSandbox, title: string): TemplatesPullRequest {
  if (!withTemplatesRepo.has(github)) {
    github.createRepo(OWNER, TEMPLATES_REPO, { defaultBranch: 'main' })
    withTemplatesRepo.add(github)
  }
  const branch = `feature-${++templatesBranches}`
  github.createBranch(OWNER, TEMPLATES_REPO, branch)
  const headSha = github.writeFile(OWNER, TEMPLATES_REPO, branch, 'docker/main.tf', '# go\n', title)
  const number = github.openPullRequest(OWNER, TEMPLATES_REPO, { head: branch, title })
  // The webhook payload of a pull_request event, as much of it as the action reads.
  const payload = {
    action: 'synchronize',
    number,
    pull_request: { number, title, head: { sha: headSha, ref: branch }, base: { ref: 'main' } }
  }
  return {
    number,
    headSha,
    context: { eventName: 'pull_request', ref: `refs/pull/${number}/merge`, sha: HEAD_SHA, payload }
  }
}
