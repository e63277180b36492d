// The type of the GitOps repository's Octokit, apart from the module that builds it (octokit.ts): the
// calls in call.ts take it, and octokit.ts uses their rate-limit rule, so neither imports the other
// both ways.
import type { getOctokit } from '@actions/github'

export type GitOpsOctokit = ReturnType<typeof getOctokit>
