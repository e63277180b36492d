// The scripting handle's repository part: tokens, repositories and their settings, rules,
// branches, files and history, as tests set up the world (GitHubSandbox in types.ts).
import type { CommitObject } from './git-objects.js'
import { gitDate } from './git-objects.js'
import { makeProtection, makeRuleset } from './rules.js'
import { OTHER_WRITER, type SandboxState, type StoredRepo, tokenGrant } from './state.js'
import type { GitHubSandbox, SandboxCommit } from './types.js'

function publicCommit(
  state: SandboxState,
  repo: StoredRepo,
  commit: CommitObject,
  branch: string
): SandboxCommit {
  return {
    owner: repo.owner,
    repo: repo.name,
    branch: repo.commitBranch.get(commit.sha) ?? branch,
    sha: commit.sha,
    changes: state.diff(repo, commit.parents[0] ?? null, commit.sha),
    message: commit.message,
    parent: commit.parents[0] ?? null,
    parents: [...commit.parents],
    tree: commit.tree,
    author: { ...commit.author },
    committer: { ...commit.committer }
  }
}

type RepoControls = Pick<
  GitHubSandbox,
  | 'addToken'
  | 'addReadOnlyToken'
  | 'createRepo'
  | 'setRepoSettings'
  | 'repoSettings'
  | 'addRuleset'
  | 'removeRuleset'
  | 'protectBranch'
  | 'unprotectBranch'
>

export function repoControls(state: SandboxState): RepoControls {
  const repoOf = (owner: string, name: string) => state.mustRepo(owner, name)
  return {
    addToken(value, tokenOptions) {
      state.tokens.set(value, tokenGrant(tokenOptions))
    },
    addReadOnlyToken(value) {
      state.tokens.set(value, tokenGrant({ role: 'read' }))
    },
    createRepo(owner, name, opts = {}) {
      state.createRepo(
        owner,
        name,
        opts.defaultBranch ?? 'main',
        opts.files ?? { 'README.md': `# ${name}\n` },
        opts.settings ?? {}
      )
    },
    setRepoSettings(owner, name, settings) {
      Object.assign(repoOf(owner, name).settings, settings)
    },
    repoSettings: (owner, name) => ({ ...repoOf(owner, name).settings }),
    addRuleset(owner, name, rulesetOptions) {
      const ruleset = makeRuleset(state.nextId('ruleset'), rulesetOptions)
      repoOf(owner, name).rulesets.push(ruleset)
      return ruleset.id
    },
    removeRuleset(owner, name, id) {
      const repo = repoOf(owner, name)
      repo.rulesets = repo.rulesets.filter((ruleset) => ruleset.id !== id)
    },
    protectBranch(owner, name, branch, protection = {}) {
      repoOf(owner, name).protections.set(branch, makeProtection(protection))
    },
    unprotectBranch(owner, name, branch) {
      repoOf(owner, name).protections.delete(branch)
    }
  }
}

type BranchControls = Pick<
  GitHubSandbox,
  'createBranch' | 'deleteBranch' | 'branchHead' | 'readFile' | 'writeFile' | 'commits' | 'onCommit'
>

export function branchControls(state: SandboxState): BranchControls {
  const repoOf = (owner: string, name: string) => state.mustRepo(owner, name)
  return {
    createBranch(owner, name, branch, from) {
      const repo = repoOf(owner, name)
      const head = repo.branches.get(from ?? repo.defaultBranch)
      if (head === undefined) throw new Error(`sandbox: no branch ${from ?? repo.defaultBranch}`)
      state.moveRef(repo, branch, head)
    },
    deleteBranch(owner, name, branch) {
      const repo = repoOf(owner, name)
      if (branch === repo.defaultBranch) {
        throw new Error('sandbox: cannot delete the default branch')
      }
      state.deleteBranch(repo, branch)
    },
    branchHead: (owner, name, branch) => repoOf(owner, name).branches.get(branch) ?? null,
    readFile: (owner, name, branch, path) => state.readText(repoOf(owner, name), branch, path),
    writeFile(owner, name, branch, path, content, message, author) {
      const repo = repoOf(owner, name)
      if (!repo.branches.has(branch)) throw new Error(`sandbox: no branch ${branch}`)
      return state.commitChanges(
        repo,
        branch,
        new Map([[path, content]]),
        message ?? `${content === null ? 'Delete' : 'Update'} ${path}`,
        author === undefined ? { ...OTHER_WRITER, date: gitDate() } : state.person(author)
      ).sha
    },
    commits(owner, name, branch) {
      const repo = repoOf(owner, name)
      const chain: SandboxCommit[] = []
      let commit = state.head(repo, branch)
      while (commit) {
        chain.unshift(publicCommit(state, repo, commit, branch))
        commit = commit.parents.length === 0 ? undefined : repo.git.commits.get(commit.parents[0])
      }
      return chain
    },
    onCommit(listener) {
      state.commitListeners.add(listener)
      return () => state.commitListeners.delete(listener)
    }
  }
}
