// Tokens of the GitHub sandbox: what each may do, by repository role and fine-grained access.

export type Access = 'none' | 'read' | 'write'
export type RepoRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read'
/** installation: a GitHub App token such as GITHUB_TOKEN; user: a personal access token. */
export type TokenKind = 'installation' | 'user'

export interface SandboxTokenOptions {
  /** Default github-actions[bot] (the GITHUB_TOKEN's identity). */
  login?: string
  kind?: TokenKind
  /** The role on every repository; sets the defaults below. Default 'write'. */
  role?: RepoRole
  contents?: Access
  pullRequests?: Access
  issues?: Access
  /** Reading classic branch protection needs administration read. */
  administration?: Access
  /** Deployments and their statuses (deployment-environment). */
  deployments?: Access
  /**
   * What GET /repos/{o}/{r} shows in `permissions`. 'all-false' is what was reported for GitHub App
   * installation tokens (lindell/multi-gitter#224); 'omitted' leaves the field out.
   */
  repositoryPermissions?: 'accurate' | 'all-false' | 'omitted'
}

export interface TokenGrant {
  login: string
  kind: TokenKind
  role: RepoRole
  contents: Access
  pullRequests: Access
  issues: Access
  administration: Access
  deployments: Access
  repositoryPermissions: 'accurate' | 'all-false' | 'omitted'
}

const ROLE_DEFAULTS: Record<
  RepoRole,
  Pick<TokenGrant, 'contents' | 'pullRequests' | 'issues' | 'administration' | 'deployments'>
> = {
  admin: {
    contents: 'write',
    pullRequests: 'write',
    issues: 'write',
    administration: 'write',
    deployments: 'write'
  },
  maintain: {
    contents: 'write',
    pullRequests: 'write',
    issues: 'write',
    administration: 'none',
    deployments: 'write'
  },
  write: {
    contents: 'write',
    pullRequests: 'write',
    issues: 'write',
    administration: 'none',
    deployments: 'write'
  },
  triage: {
    contents: 'read',
    pullRequests: 'write',
    issues: 'write',
    administration: 'none',
    deployments: 'read'
  },
  read: {
    contents: 'read',
    pullRequests: 'read',
    issues: 'read',
    administration: 'none',
    deployments: 'read'
  }
}

export function tokenGrant(options: SandboxTokenOptions = {}): TokenGrant {
  const role = options.role ?? 'write'
  const defaults = ROLE_DEFAULTS[role]
  return {
    login: options.login ?? GITHUB_ACTIONS_LOGIN,
    kind: options.kind ?? 'installation',
    role,
    contents: options.contents ?? defaults.contents,
    pullRequests: options.pullRequests ?? defaults.pullRequests,
    issues: options.issues ?? defaults.issues,
    administration: options.administration ?? defaults.administration,
    deployments: options.deployments ?? defaults.deployments,
    repositoryPermissions: options.repositoryPermissions ?? 'accurate'
  }
}

export const GITHUB_ACTIONS_LOGIN = 'github-actions[bot]'
