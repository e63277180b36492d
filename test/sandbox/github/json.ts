// JSON shapes shared by several endpoints, with api.github.com's field names.
import type { CommitObject } from './git-objects.js'
import type { RouteContext } from './router.js'
import type { SandboxState, StoredRepo, TokenGrant } from './state.js'

export function userJson(ctx: RouteContext, login: string) {
  const user = ctx.state.user(login)
  return {
    login: user.login,
    id: user.id,
    node_id: `${user.type === 'Bot' ? 'BOT' : 'U'}_kgDO${Buffer.from(String(user.id)).toString('base64url')}`,
    avatar_url: `${ctx.serverUrl}/avatars/u/${user.id}`,
    url: `${ctx.apiBase}/users/${encodeURIComponent(user.login)}`,
    html_url: `${ctx.serverUrl}/${user.type === 'Bot' ? 'apps/' + user.login.replace(/\[bot\]$/, '') : user.login}`,
    type: user.type,
    site_admin: false
  }
}

function permissionsOf(grant: TokenGrant) {
  if (grant.repositoryPermissions === 'all-false') {
    return { admin: false, maintain: false, push: false, triage: false, pull: false }
  }
  const rank = { read: 0, triage: 1, write: 2, maintain: 3, admin: 4 }[grant.role]
  return {
    admin: rank >= 4,
    maintain: rank >= 3,
    push: rank >= 2 && grant.contents === 'write',
    triage: rank >= 1,
    pull: true
  }
}

export function repoJson(ctx: RouteContext, repo: StoredRepo) {
  const owner = ctx.state.user(repo.owner)
  return {
    id: repo.id,
    node_id: repo.nodeId,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    private: true,
    owner: {
      login: repo.owner,
      id: owner.id,
      type: 'Organization',
      url: `${ctx.apiBase}/users/${repo.owner}`,
      html_url: `${ctx.serverUrl}/${repo.owner}`
    },
    html_url: ctx.htmlRepoUrl(repo),
    url: ctx.apiRepoUrl(repo),
    default_branch: repo.defaultBranch,
    visibility: 'private',
    archived: false,
    disabled: false,
    allow_auto_merge: repo.settings.allowAutoMerge,
    allow_squash_merge: repo.settings.allowSquashMerge,
    allow_merge_commit: repo.settings.allowMergeCommit,
    allow_rebase_merge: repo.settings.allowRebaseMerge,
    delete_branch_on_merge: repo.settings.deleteBranchOnMerge,
    allow_update_branch: false,
    ...(ctx.grant.repositoryPermissions === 'omitted'
      ? {}
      : { permissions: permissionsOf(ctx.grant) })
  }
}

/** The Git Data commit object (GET/POST /git/commits). */
export function gitCommitJson(ctx: RouteContext, repo: StoredRepo, commit: CommitObject) {
  const api = ctx.apiRepoUrl(repo)
  return {
    sha: commit.sha,
    node_id: `C_kwDO${Buffer.from(commit.sha.slice(0, 12)).toString('base64url')}`,
    url: `${api}/git/commits/${commit.sha}`,
    html_url: `${ctx.htmlRepoUrl(repo)}/commit/${commit.sha}`,
    author: { ...commit.author },
    committer: { ...commit.committer },
    tree: { sha: commit.tree, url: `${api}/git/trees/${commit.tree}` },
    message: commit.message,
    parents: commit.parents.map((sha) => ({
      sha,
      url: `${api}/git/commits/${sha}`,
      html_url: `${ctx.htmlRepoUrl(repo)}/commit/${sha}`
    })),
    // verified_at: required (nullable) in api.github.com.json's verification schema
    verification: {
      verified: false,
      reason: 'unsigned',
      signature: null,
      payload: null,
      verified_at: null
    }
  }
}

/** The commits API form (compare, branch.commit): the git commit nested under `commit`. */
export function listCommitJson(ctx: RouteContext, repo: StoredRepo, commit: CommitObject) {
  const api = ctx.apiRepoUrl(repo)
  const git = gitCommitJson(ctx, repo, commit)
  const account = (name: string) => (accountLike(ctx.state, name) ? userJson(ctx, name) : null)
  return {
    sha: commit.sha,
    node_id: git.node_id,
    commit: {
      author: git.author,
      committer: git.committer,
      message: commit.message,
      tree: git.tree,
      url: git.url,
      comment_count: 0,
      verification: git.verification
    },
    url: `${api}/commits/${commit.sha}`,
    html_url: git.html_url,
    comments_url: `${api}/commits/${commit.sha}/comments`,
    // GitHub links a commit to an account by email; here only sandbox logins map to accounts.
    author: account(commit.author.name),
    committer: account(commit.committer.name),
    parents: git.parents
  }
}

function accountLike(state: SandboxState, name: string): boolean {
  return name.endsWith('[bot]') || state.knownLogins.has(name)
}

export function refJson(ctx: RouteContext, repo: StoredRepo, branch: string, sha: string) {
  const api = ctx.apiRepoUrl(repo)
  return {
    ref: `refs/heads/${branch}`,
    node_id: `REF_kwDO${Buffer.from(`${repo.id}:${branch}`).toString('base64url')}`,
    url: `${api}/git/refs/heads/${branch}`,
    object: { sha, type: 'commit', url: `${api}/git/commits/${sha}` }
  }
}
