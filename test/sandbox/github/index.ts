// The GitHub part of the sandbox world.
export { startGitHubSandbox } from './server.js'
export type {
  GitHubSandbox,
  GitHubSandboxOptions,
  RateLimitFault,
  RateLimitKind,
  SandboxCommit
} from './server.js'
export { gitBlobSha } from './git-objects.js'
