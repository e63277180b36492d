// The action's inputs (names fixed by action.yml) and the typed Settings that
// src/settings/parse.ts parses them into. Steps take the part of Settings they need.
import type { NameValue } from '../objects/coder-k8s.js'
import type { InputError as GenericInputError } from './rules.js'
import type { RevisionContext, VersionSource } from './naming.js'
import type { PresetSelection } from './presets.js'

export const INPUT_NAMES = [
  'coder-url',
  'coder-token',
  'template',
  'organization',
  'directory',
  'version',
  'message',
  'variables',
  'variables-file',
  'create-template',
  'coder-cli',
  'namespace',
  'control-plane',
  'test-name',
  'test-parameters',
  'test-presets',
  'test-timeout-seconds',
  'gitops-repository',
  'gitops-branch',
  'gitops-path',
  'gitops-token',
  'kubeconfig',
  'kube-context',
  'promote',
  'allow-rollback',
  'mode',
  'expected-active-version-id',
  'wait-timeout-seconds',
  'sync-timeout-seconds',
  'gitops-mode',
  'pull-request-merge',
  'pull-request-merge-method',
  'pull-request-labels',
  'merge-timeout-seconds',
  'keep-tests',
  'keep-versions',
  'archive-failed',
  'gitops-refresh',
  'comment-on-pr',
  'github-token',
  'rollback-to',
  'deployment-environment'
] as const
export type InputName = (typeof INPUT_NAMES)[number]
export type InputError = GenericInputError<InputName>

/** Inputs whose values are never shown in an error. */
export const SECRET_INPUTS: readonly InputName[] = [
  'coder-token',
  'gitops-token',
  'github-token',
  'kubeconfig',
  'variables'
]

/**
 * The wait allowance on top of test-timeout-seconds. The test's clock starts only at
 * status.startTime, so the wait must also cover the controller starting or recovering before that.
 * coder-k8s's docs/how-to/gitops.md adds the workspace delete too, although the CRD's timeoutSeconds
 * bounds the delete build. 600 s covers a controller restart and the delete with room to spare.
 */
export const WAIT_ALLOWANCE_SECONDS = 600
/** The longest wait any input may ask for: 5 days, the job limit of self-hosted runners. */
export const MAX_WAIT_SECONDS = 432_000
/** Coder accepts up to 1 MiB; the message still goes on the command line. */
export const MESSAGE_MAX = 65_536
export const KEEP_TESTS_MAX = 1000
export const KEEP_VERSIONS_MAX = 1000

export const TEST_TIMEOUT_MIN = 60
export const TEST_TIMEOUT_MAX = 7200
export const TEST_PARAMETERS_MAX = 64
export const PARAMETER_NAME_MAX = 128
export const PARAMETER_VALUE_MAX = 4096

export type PromoteChoice = 'promote' | 'skip' | 'dry-run'
/**
 * gate: push, commit, wait, promote; test: all but the promote; promote: the second job; verify:
 * test the active version (src/steps/verify.ts).
 */
export type Mode = 'gate' | 'test' | 'promote' | 'verify'
export type Delivery = 'commit' | 'pull-request'
/** pull-request-merge: the one list of merge strategies (the parser, the hosts and the tests read it). */
export const MERGE_STRATEGIES = ['auto', 'immediate', 'manual'] as const
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number]
export type MergeMethod = 'merge' | 'squash' | 'rebase'

export interface RunContext extends RevisionContext {
  serverUrl: string
  repository: string
  runId: string
  runAttempt: string
  workspace: string
  /** First line of the head commit message or the PR title, for the default version message. */
  subject: string
}

export interface CoderSettings {
  url: string
  token: string
  template: string
  /** '' or 'default' means the default organization, resolved through the Coder API later. */
  organization: string
  directory: string
  version: string
  versionSource: VersionSource | 'input'
  /** The text the version was derived from, when sanitising changed it. */
  versionRaw: string
  /** Always ends with the commit marker (versionMarker), so that a re-run knows its own version. */
  message: string
  /** The commit under test (the PR head for pull requests); absent when the runner gives none. */
  commitSha?: string
  /** variables-file entries, overridden by `variables`; they go to the CLI only in a file. */
  variables: NameValue[]
  createTemplate: boolean
  cli: string
}

export interface TestSettings {
  namespace: string
  controlPlane: string
  /** The test-name input, or <template>-<version> mapped to a DNS-1123 label. */
  name: string
  parameters: NameValue[]
  /** test-presets: one test per selected preset of the pushed version (src/settings/presets.ts). */
  presets: PresetSelection
  timeoutSeconds: number
  waitTimeoutSeconds: number
  syncTimeoutSeconds: number
}

export interface GitOpsSettings {
  owner: string
  repo: string
  /** '' means the repository's default branch, resolved by the preflight. */
  branch: string
  path: string
  token: string
  delivery: Delivery
  merge: MergeStrategy
  mergeMethod: MergeMethod
  labels: string[]
  mergeTimeoutSeconds: number
  /** 0 keeps every manifest. */
  keepTests: number
  /** gitops-refresh: the engine objects asked to reconcile once the change is on the branch. */
  refresh: RefreshTarget[]
}

/** One `argocd:<namespace>/<application>` or `flux:<namespace>/<kustomization>` entry. */
export interface RefreshTarget {
  engine: 'argocd' | 'flux'
  namespace: string
  name: string
}

/** keep-versions and archive-failed: what the tidy step archives in Coder after the outcome. */
export interface TidySettings {
  /** 0 keeps every version. */
  keepVersions: number
  archiveFailed: boolean
}

export interface Settings {
  coder: CoderSettings
  test: TestSettings
  gitops: GitOpsSettings
  tidy: TidySettings
  promote: PromoteChoice
  /** The mode input, '' resolved (src/settings/mode.ts). */
  mode: Mode
  /** mode: promote only: the guard's starting point; '' = the active version when the job starts. */
  expectedActiveVersionId: string
  allowRollback: boolean
  commentOnPr: boolean
  githubToken: string
  /** mode: verify: rollback-to ('' = never) and deployment-environment ('' = no record). */
  live: LiveSettings
  runUrl: string
  /** The pull request of a pull_request event, for comment-on-pr. */
  pullRequestNumber: number | null
}

export interface LiveSettings {
  /** '' = never roll back; a version name, a version ID, or `previous`. */
  rollbackTo: string
  /** '' = no GitHub deployment record. */
  deploymentEnvironment: string
}

export interface FileAccess {
  isDirectory(absolutePath: string): boolean
  /** The file's text, or null when it cannot be read. */
  readText(absolutePath: string): string | null
}
