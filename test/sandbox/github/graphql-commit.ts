// GraphQL `createCommitOnBranch` (graphql-schema: CreateCommitOnBranchInput): one commit of file
// additions and deletions onto an existing branch, only while the branch is at expectedHeadOid.
// The branch moves through moveRef, as every other write, under the same rules as a REST ref update.
import { HttpFailure } from './errors.js'
import type { FileEntry } from './git-objects.js'
import type { Field } from './graphql-document.js'
import { GraphqlFieldError, type Node } from './graphql-operations.js'
import type { RouteContext } from './router.js'
import { checkRefWrite } from './rules.js'
import type { StoredRepo } from './state.js'

const unprocessable = (message: string) => new GraphqlFieldError({ type: 'UNPROCESSABLE', message })

function inputOf(field: Field): Record<string, unknown> {
  const input = field.args.input
  if (input && typeof input === 'object') return input as Record<string, unknown>
  throw new GraphqlFieldError({
    message: `Field '${field.name}' is missing required arguments: input`,
    extensions: { code: 'missingRequiredArguments', arguments: 'input' }
  })
}

function targetOf(ctx: RouteContext, input: Record<string, unknown>) {
  const branch = (input.branch ?? {}) as { repositoryNameWithOwner?: unknown; branchName?: unknown }
  const [owner, name] = String(branch.repositoryNameWithOwner ?? '').split('/')
  const repo = owner && name ? ctx.state.findRepo(owner, name) : undefined
  if (!repo) {
    // The text GitHub gives for an unknown repository (widely reported).
    throw new GraphqlFieldError({
      type: 'NOT_FOUND',
      message: `Could not resolve to a Repository with the name '${String(branch.repositoryNameWithOwner)}'.`
    })
  }
  if (!ctx.can('contents', 'write')) {
    // guess: as the other mutations, FORBIDDEN with the REST sentence.
    throw new GraphqlFieldError({
      type: 'FORBIDDEN',
      message:
        ctx.grant.kind === 'installation'
          ? 'Resource not accessible by integration'
          : 'Resource not accessible by personal access token'
    })
  }
  const branchName = String(branch.branchName ?? '').replace(/^refs\/heads\//, '')
  // guess: the type and text for a branch that does not exist (the mutation never creates one).
  if (!repo.branches.has(branchName))
    throw new GraphqlFieldError({ type: 'NOT_FOUND', message: `Branch '${branchName}' not found` })
  return { repo, branchName }
}

/**
 * Rules and protection as for a REST ref update (rules-refusals.ts). Classic protection: type
 * BRANCH_PROTECTION_RULE_VIOLATION, as clients observed it (Thinkmill/keystatic's updating.tsx
 * handles it; keystatic#1598 reports that rulesets answer with another type). guess: a ruleset's
 * refusal is type UNPROCESSABLE with the REST text "Repository rule violations found ...".
 */
function checkRules(ctx: RouteContext, repo: StoredRepo, branch: string): void {
  try {
    checkRefWrite(repo, branch, ctx.grant, 'update', ctx.route.docs)
  } catch (error) {
    if (!(error instanceof HttpFailure)) throw error
    const byRuleset = error.message.startsWith('Repository rule violations found')
    const type = byRuleset ? 'UNPROCESSABLE' : 'BRANCH_PROTECTION_RULE_VIOLATION'
    throw new GraphqlFieldError({ type, message: error.message })
  }
}

function applyChanges(
  repo: StoredRepo,
  head: string,
  files: Map<string, FileEntry>,
  input: Record<string, unknown>
): void {
  const changes = (input.fileChanges ?? {}) as { additions?: unknown; deletions?: unknown }
  const deletions = Array.isArray(changes.deletions) ? changes.deletions : []
  const additions = Array.isArray(changes.additions) ? changes.additions : []
  for (const raw of deletions as Array<{ path?: unknown }>) {
    const path = String(raw.path ?? '')
    // guess: deleting a path that is not there is refused, as create-a-tree does.
    if (!files.delete(path))
      throw unprocessable(
        `A path was requested for deletion which does not exist as of commit oid \`${head}\``
      )
  }
  for (const raw of additions as Array<{ path?: unknown; contents?: unknown }>) {
    const bytes = Buffer.from(String(raw.contents ?? ''), 'base64')
    files.set(String(raw.path ?? ''), { mode: '100644', sha: repo.git.writeBlob(bytes) })
  }
}

function createCommitOnBranch(ctx: RouteContext, field: Field): Node {
  const input = inputOf(field)
  const { repo, branchName } = targetOf(ctx, input)
  checkRules(ctx, repo, branchName)
  // injectConflicts: another writer moves the branch first, so expectedHeadOid is stale.
  if (ctx.state.conflictFaults.shift() !== undefined) ctx.state.otherWriterCommit(repo, branchName)
  const head = repo.branches.get(branchName)!
  if (input.expectedHeadOid !== head) {
    // Observed answers (e.g. ministryofjustice/modernisation-platform#11985), two spaces included.
    throw new GraphqlFieldError({
      type: 'STALE_DATA',
      message: `Expected branch to point to "${String(input.expectedHeadOid)}" but it did not.  Pull and try again.`
    })
  }
  const files = repo.git.flatten(repo.git.commits.get(head)!.tree)
  applyChanges(repo, head, files, input)
  const message = (input.message ?? {}) as { headline?: unknown; body?: unknown }
  const headline = String(message.headline ?? '')
  const body = typeof message.body === 'string' && message.body !== '' ? `\n\n${message.body}` : ''
  const person = ctx.state.person(ctx.grant.login)
  const commit = repo.git.writeCommit({
    tree: repo.git.treeFromFiles(files),
    parents: [head],
    author: person,
    committer: person,
    message: `${headline}${body}`
  })
  ctx.state.moveRef(repo, branchName, commit.sha)
  const url = `${ctx.htmlRepoUrl(repo)}/commit/${commit.sha}`
  return {
    __typename: 'CreateCommitOnBranchPayload',
    clientMutationId: typeof input.clientMutationId === 'string' ? input.clientMutationId : null,
    commit: { __typename: 'Commit', oid: commit.sha, url, messageHeadline: headline },
    ref: { __typename: 'Ref', name: branchName, prefix: 'refs/heads/' }
  }
}

export const COMMIT_MUTATIONS = { createCommitOnBranch }
