// The GitHub part of the sandbox world.
export { startGitHubSandbox } from './server.js'
export type {
  CreateRepoOptions,
  GitHubSandbox,
  GitHubSandboxOptions,
  RateLimitFault,
  RateLimitKind,
  SandboxComment,
  SandboxCommit,
  SandboxPullRequest
} from './types.js'
export type { MergeableState } from './pulls.js'
export type { ProtectionOptions, RuleDefinition, RulesetOptions } from './rules.js'
export type {
  MergeMethod,
  RepoRole,
  RepoSettings,
  SandboxTokenOptions,
  TokenKind
} from './state.js'
export { gitBlobSha } from './git-objects.js'
export { GITHUB_SECONDARY_LIMITS, isContentGenerating } from './secondary-limits.js'
export type { SecondaryLimits, SecondaryLimitStats } from './secondary-limits.js'
