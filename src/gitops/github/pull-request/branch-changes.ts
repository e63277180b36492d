// The gate's pull request as GitHub shows it at the head about to be merged: its base and who
// opened it (REST "Get a pull request"), the tree diff of the merge base with that head (REST
// "Compare two commits", `GET /repos/{o}/{r}/compare/{base}...{head}`), the manifest's bytes there,
// and the token's own account (GraphQL `viewer`). branch-guard.ts decides from them. Also turns
// auto-merge off when no run watches any more.
import {
  type Account,
  type BranchChanges,
  describeForeign,
  ForeignChangeError,
  foreignChange,
  type GateWrites
} from '../../branch-guard.js'
import { type GitHubCall, githubCall, repoOf } from '../client/call.js'
import { branchFileOf } from '../commit/diff-files.js'
import { readFileAt } from '../commit/read-file.js'
import { GITOPS_TOKEN } from './wait-for-merge.js'

export interface GuardBranchInput extends GitHubCall {
  /** The pull request whose base and opener are read. */
  number: number
  /** The branch name, for the message. */
  branch: string
  /** The head commit that is about to be merged. */
  headSha: string
  gate: Omit<GateWrites, 'viewer'>
}

/** The token's own account (GraphQL viewer). */
export type Viewer = Account

const VIEWER = `query Viewer { viewer { login databaseId } }`

/**
 * The token's own account. GraphQL `viewer` answers for user and App installation tokens alike
 * (guess, for installation tokens: the App's bot account, `<app-slug>[bot]`), where GET /user
 * answers 403 to an installation token (actions/create-github-app-token#258).
 */
export async function readViewer(input: GitHubCall): Promise<Viewer> {
  const data = await githubCall(
    input,
    GITOPS_TOKEN,
    'reading the account of the token',
    (request) =>
      input.octokit.graphql<{ viewer: { login: string; databaseId?: number | null } }>(VIEWER, {
        request
      })
  )
  return { login: data.viewer.login, id: data.viewer.databaseId ?? undefined }
}

/** The files of the tree diff base...head (at most 300 in one answer: more than the gate writes). */
async function diffFiles(input: GitHubCall & { base: string; head: string }) {
  const { data } = await githubCall(
    input,
    GITOPS_TOKEN,
    `comparing ${input.head} with ${input.base}`,
    (request) =>
      input.octokit.rest.repos.compareCommitsWithBasehead({
        ...repoOf(input),
        basehead: `${input.base}...${input.head}`,
        per_page: 100,
        request
      })
  )
  return (data.files ?? []).map(branchFileOf)
}

export async function readBranchChanges(
  input: GitHubCall & { number: number; head: string; manifestPaths: string[] }
): Promise<BranchChanges> {
  const { data: pr } = await githubCall(
    input,
    GITOPS_TOKEN,
    `reading pull request #${input.number}`,
    (request) =>
      input.octokit.rest.pulls.get({ ...repoOf(input), pull_number: input.number, request })
  )
  const base = pr.base.ref
  return {
    base,
    openedBy: pr.user ? { login: pr.user.login, id: pr.user.id } : undefined,
    files: await diffFiles({ ...input, base, head: input.head }),
    manifestTexts: Object.fromEntries(
      await Promise.all(
        input.manifestPaths.map(
          async (path) => [path, await readFileAt({ ...input, ref: input.head, path })] as const
        )
      )
    )
  }
}

/** Throws ForeignChangeError when the pull request at headSha is not exactly the gate's change. */
export async function guardGateBranch(
  input: GuardBranchInput & { viewer?: Viewer }
): Promise<void> {
  const viewer = input.viewer ?? (await readViewer(input))
  const changes = await readBranchChanges({
    ...input,
    head: input.headSha,
    manifestPaths: input.gate.manifests.map((m) => m.path)
  })
  const found = foreignChange(changes, { ...input.gate, viewer })
  if (found) throw new ForeignChangeError(input.branch, describeForeign(found))
}

const DISABLE_AUTO_MERGE = `mutation DisableAutoMerge($input: DisablePullRequestAutoMergeInput!) {
  disablePullRequestAutoMerge(input: $input) { pullRequest { number } }
}`

/**
 * Auto-merge off (GraphQL disablePullRequestAutoMerge), so nothing merges while no run watches.
 * Runs after a cancel too, so it has its own time limit instead of the run's signal.
 */
export async function disableAutoMerge(
  input: GitHubCall & { nodeId: string },
  timeoutMs = 5000
): Promise<boolean> {
  try {
    await input.octokit.graphql(DISABLE_AUTO_MERGE, {
      input: { pullRequestId: input.nodeId },
      request: { signal: AbortSignal.timeout(timeoutMs), retries: 0 }
    })
    return true
  } catch {
    return false
  }
}
