// The Git host in memory (src/gitops/host.ts), so that the step tests run in-process. It keeps the
// contract of the GitHub adapter (github-host.ts): test/gitops/host-contract.ts runs the same
// cases against both, so this fake cannot drift. The pure rules are the real ones (prune.ts,
// branch-guard.ts, pull-request-state.ts, race-backoff.ts); only the I/O is replaced.
import { gitOpsProblems } from '../../../src/gitops/github/access.js'
import {
  describeForeign,
  ForeignChangeError,
  foreignChange
} from '../../../src/gitops/branch-guard.js'
import type {
  ChangeInput,
  ChangeOutcome,
  GitHost,
  GitOpsFacts,
  HostCall,
  HostFailureKind,
  HostLinks,
  HostPullRequest,
  MergedPullRequest
} from '../../../src/gitops/host.js'
import { removalsAtHead } from '../../../src/gitops/prune.js'
import { mergedIsDone } from '../../../src/gitops/github/pull-request/state.js'
import { nextRaceAttempt } from '../../../src/gitops/github/client/race-backoff.js'
import type { MergeMethod } from '../../../src/settings/settings.js'
import { MemoryRepository } from './repository.js'

/** The errors of this host: one class, the kind the steps tell apart (or none). */
export class MemoryHostError extends Error {
  constructor(
    readonly kind: HostFailureKind | null,
    message: string,
    readonly said = ''
  ) {
    super(message)
    this.name = 'MemoryHostError'
  }
}

interface MemoryPull {
  number: number
  head: string
  base: string
  /** Frozen when merged or closed; an open one follows its branch. */
  frozenHead: string | null
  state: 'open' | 'closed'
  merged: boolean
  mergeCommitSha: string
  mergedBy: string | null
  author: string
  labels: string[]
  autoMerge: MergeMethod | null
}

export interface MemoryHostOptions {
  owner?: string
  repo?: string
  defaultBranch?: string
  files?: Record<string, string>
  /** The account the gate writes as. */
  login?: string
}

export class MemoryGitHost implements GitHost {
  readonly name = 'the in-memory host'
  readonly repository: string
  readonly links: HostLinks
  readonly tokenNeeds = { write: 'write access', pullRequests: 'pull request access' }
  readonly git: MemoryRepository
  readonly login: string
  readonly pulls: MemoryPull[] = []
  /** Branches whose rules refuse a direct write (a ruleset requiring pull requests). */
  readonly protectedBranches = new Set<string>()
  /** false: the branch's requirements (checks, reviews) are not met, so nothing merges yet. */
  requirementsMet = true
  allowAutoMerge = true
  /** Each call by name, in order: what a test asserts about the host's use. */
  readonly calls: string[] = []
  /** Runs at each read of the merge wait: a test changes the world "while the gate waits". */
  onWaitRead: (() => void) | null = null
  /** false: turning auto-merge off fails (e.g. the token expired meanwhile). */
  canDisableAutoMerge = true
  private readonly beforeRefWrites: ((branch: string) => void)[] = []

  constructor(options: MemoryHostOptions = {}) {
    const owner = options.owner ?? 'acme'
    const repo = options.repo ?? 'gitops'
    this.repository = `${owner}/${repo}`
    this.login = options.login ?? 'gate[bot]'
    this.git = new MemoryRepository(options.defaultBranch ?? 'main', options.files ?? {})
    const at = (...parts: string[]) =>
      ['https://git.example', owner, repo, ...parts.map(encodeURIComponent)].join('/')
    this.links = {
      commit: (sha) => (/^[0-9a-f]{7,64}$/i.test(sha) ? at('commit', sha) : ''),
      pullRequest: (number) => (number > 0 ? at('pull', String(number)) : ''),
      file: (ref, path) => (ref && path ? `${at('blob', ref)}/${path}` : '')
    }
  }

  // ---- what tests script ----

  /** Another writer commits (ignoring the rules); content null deletes. Returns the SHA. */
  push(branch: string, path: string, content: string | null, login = 'mallory'): string {
    const head = this.git.resolve(branch)!
    const files = new Map(head.files)
    if (content === null) files.delete(path)
    else files.set(path, content)
    const sha = this.git.write([head.sha], files, `edit ${path}`, login, login)
    this.git.branches.set(branch, sha)
    return sha
  }

  /** The next ref write to `branch` meets another writer who moves it first. */
  raceNextWrite(branch: string): void {
    const race = (written: string): void => {
      if (written !== branch) return void this.beforeRefWrites.push(race)
      this.push(branch, `other/${this.git.commits.size}.txt`, 'x\n')
    }
    this.beforeRefWrites.push(race)
  }

  /** The requirements are met now: auto-merge merges what it was asked to. */
  meetRequirements(): void {
    this.requirementsMet = true
    for (const pr of this.pulls.filter((p) => p.state === 'open' && p.autoMerge))
      this.merge(pr, pr.autoMerge!, 'auto-merge')
  }

  /** A person merges by hand. */
  mergeByHand(number: number, login = 'alice'): string {
    return this.merge(this.pull(number), 'merge', login)
  }

  pull(number: number): MemoryPull {
    const pr = this.pulls.find((p) => p.number === number)
    if (!pr) throw new MemoryHostError(null, `Pull request #${number} does not exist.`)
    return pr
  }

  headOf(pr: MemoryPull): string {
    return pr.frozenHead ?? this.git.branches.get(pr.head) ?? ''
  }

  // ---- the interface ----

  inspect = async (branch: string, call: HostCall): Promise<GitOpsFacts> => {
    this.enter('inspect', call)
    const name = branch || this.git.defaultBranch
    return {
      repository: 'found',
      branch: name,
      branchExists: this.git.branches.has(name),
      canWrite: true,
      pullRequestRequiredBy: this.protectedBranches.has(name) ? 'a repository ruleset' : null,
      rulesKnown: true,
      allowAutoMerge: this.allowAutoMerge
    }
  }

  problems = gitOpsProblems

  readFile = async (ref: string, path: string, call: HostCall): Promise<string | null> => {
    this.enter('readFile', call)
    return this.git.fileAt(ref, path)?.content ?? null
  }

  branchHead = async (branch: string, call: HostCall) => {
    this.enter('branchHead', call)
    const sha = this.git.branches.get(branch)
    if (!sha)
      throw new MemoryHostError(null, `Branch ${branch} does not exist in ${this.repository}.`)
    return { sha, url: this.links.commit(sha) ?? '' }
  }

  listManifests = async (ref: string, folder: string, call: HostCall) => {
    this.enter('listManifests', call)
    const prefix = folder.replace(/^\/+|\/+$/g, '')
    const files = [...(this.git.resolve(ref)?.files.keys() ?? [])]
      .filter((path) => {
        const rest = prefix
          ? path.startsWith(`${prefix}/`)
            ? path.slice(prefix.length + 1)
            : null
          : path
        return rest !== null && /^[^/]+\.ya?ml$/.test(rest)
      })
      .sort()
      .map((path) => ({ path, ...this.git.fileAt(ref, path)! }))
    return { files, cut: '' }
  }

  forwardSpentBranch = async (branch: string, base: string, call: HostCall) => {
    this.enter('forwardSpentBranch', call)
    const tip = this.git.branches.get(branch)
    const baseHead = this.git.branches.get(base)
    if (!tip || !baseHead || tip === baseHead) return false
    // Behind: every commit of the branch is on the base already.
    if (!this.git.ancestors(baseHead).has(tip)) return false
    this.git.branches.set(branch, baseHead)
    return true
  }

  commit = async (change: ChangeInput, call: HostCall): Promise<ChangeOutcome> => {
    this.enter('commit', call)
    const branch = change.branch || this.git.defaultBranch
    const deadline = call.deadline ?? call.clock.now() + 600_000
    for (let lostRaces = 0; ;) {
      call.signal.throwIfAborted()
      const outcome = this.commitOnce(change, branch)
      if (outcome) return { ...outcome, lostRaces }
      lostRaces += 1
      const wait = nextRaceAttempt(lostRaces, 0.5, call.clock.now(), deadline)
      if (wait === null)
        throw new MemoryHostError(
          null,
          `Branch ${branch} kept moving (${lostRaces} writes of others came first).`
        )
      await call.clock.sleep(wait, call.signal)
    }
  }

  /** null: another writer moved the branch first. */
  private commitOnce(change: ChangeInput, branch: string): Omit<ChangeOutcome, 'lostRaces'> | null {
    let head = this.git.branches.get(branch)
    const creating = head === undefined
    if (head === undefined) {
      if (!change.baseBranch)
        throw new MemoryHostError(null, `Branch ${branch} does not exist in ${this.repository}.`)
      head = this.git.branches.get(change.baseBranch)
      if (head === undefined)
        throw new MemoryHostError(
          null,
          `Branch ${change.baseBranch} does not exist in ${this.repository}.`
        )
    }
    const additions = []
    for (const manifest of change.manifests) {
      const existing = this.git.fileAt(head, manifest.path)?.content
      if (existing !== undefined && !manifest.isSame(existing))
        throw new MemoryHostError(
          'manifest-conflict',
          `${manifest.path} already exists on branch ${branch} of ${this.repository} with a different spec.`
        )
      if (existing === undefined) additions.push(manifest)
    }
    const atHead = new Map(
      change.deletions.map(({ path }) => [path, this.git.fileAt(head, path)?.sha ?? null])
    )
    const { remove, dropped } = removalsAtHead(change.deletions, atHead)
    const unchanged = additions.length === 0 && remove.length === 0
    if (unchanged && !creating)
      return { status: 'unchanged', commitSha: '', branch, deleted: [], dropped }
    let sha = head
    if (!unchanged) {
      const files = new Map(this.git.commits.get(head)!.files)
      for (const manifest of additions) files.set(manifest.path, manifest.content)
      for (const path of remove) files.delete(path)
      sha = this.git.write([head], files, change.message, this.login, this.login)
    }
    if (this.protectedBranches.has(branch))
      throw new MemoryHostError(
        'branch-protected',
        `The branch ${branch} of ${this.repository} is protected: changes need a pull request.`
      )
    for (const before of this.beforeRefWrites.splice(0)) before(branch)
    if (this.git.branches.get(branch) !== (creating ? undefined : head)) return null
    this.git.branches.set(branch, sha)
    if (unchanged) return { status: 'unchanged', commitSha: '', branch, deleted: [], dropped }
    const commitUrl = this.links.commit(sha)
    return { status: 'created', commitSha: sha, commitUrl, branch, deleted: remove, dropped }
  }

  openPullRequest: GitHost['openPullRequest'] = async (open, call) => {
    this.enter('openPullRequest', call)
    const tip = this.git.branches.get(open.head)
    if (!tip)
      throw new MemoryHostError(
        null,
        `Branch ${open.head} does not exist in ${this.repository}: the manifest is committed to it before the pull request is opened.`
      )
    const ofBranch = this.pulls.filter((p) => p.head === open.head && p.base === open.base)
    const reused =
      ofBranch.find((p) => p.state === 'open') ??
      ofBranch.find((p) =>
        mergedIsDone(
          { merged: p.merged, headSha: this.headOf(p) },
          tip,
          open.manifestOnBase ?? true
        )
      )
    if (reused) {
      if (reused.state === 'open')
        for (const label of open.labels)
          if (!reused.labels.some((l) => l.toLowerCase() === label.toLowerCase()))
            reused.labels.push(label)
      return this.shown(reused, true)
    }
    if (this.git.ancestors(this.git.branches.get(open.base)!).has(tip))
      throw new MemoryHostError(null, `No commits between ${open.base} and ${open.head}.`)
    const pr: MemoryPull = {
      number: this.pulls.length + 1,
      head: open.head,
      base: open.base,
      frozenHead: null,
      state: 'open',
      merged: false,
      mergeCommitSha: '',
      mergedBy: null,
      author: this.login,
      labels: [...open.labels],
      autoMerge: null
    }
    this.pulls.push(pr)
    return this.shown(pr, false)
  }

  guardBranch: GitHost['guardBranch'] = async (guard, call) => {
    this.enter('guardBranch', call)
    const pr = this.pull(guard.number)
    const head = this.git.resolve(guard.headSha)?.sha ?? guard.headSha
    const changes = {
      base: pr.base,
      openedBy: { login: pr.author },
      files: this.git.compare(pr.base, head).files,
      manifestTexts: Object.fromEntries(
        guard.gate.manifests.map((m) => [m.path, this.git.fileAt(head, m.path)?.content ?? null])
      )
    }
    const found = foreignChange(changes, { ...guard.gate, viewer: { login: this.login } })
    if (found) throw new ForeignChangeError(guard.branch, describeForeign(found))
  }

  requestMerge: GitHost['requestMerge'] = async (merge, call) => {
    this.enter(`requestMerge ${merge.strategy}`, call)
    if (merge.strategy === 'manual') return { kind: 'manual' }
    const pr = this.pull(merge.pullRequest.number)
    for (let attempt = 1; ; attempt++) {
      if (pr.merged) return { kind: 'merged', mergeCommitSha: pr.mergeCommitSha }
      if (pr.state === 'closed')
        throw new MemoryHostError(null, `Pull request #${pr.number} was closed without merging.`)
      if (this.headOf(pr) !== merge.pullRequest.headSha)
        throw new MemoryHostError(
          'head-moved',
          `The host refused to merge #${pr.number}: its head moved.`,
          `head is now ${this.headOf(pr)}`
        )
      if (merge.strategy === 'auto') {
        if (!this.allowAutoMerge)
          throw new MemoryHostError(null, `Auto-merge is not allowed for ${this.repository}.`)
        // GitHub refuses auto-merge on a pull request that may merge now; the adapter merges it then.
        if (!this.requirementsMet) {
          pr.autoMerge = merge.method
          return { kind: 'auto-merge-enabled' }
        }
      }
      if (this.requirementsMet)
        return { kind: 'merged', mergeCommitSha: this.merge(pr, merge.method, this.login) }
      const left = merge.deadline - call.clock.now()
      if (left <= 0)
        throw new MemoryHostError(
          'merge-timeout',
          `Pull request #${pr.number} was not merged within merge-timeout-seconds.`,
          'open, requirements not met'
        )
      await call.clock.sleep(Math.min(2000 * attempt, left), call.signal)
    }
  }

  waitForMerge: GitHost['waitForMerge'] = async (wait, call): Promise<MergedPullRequest> => {
    this.enter('waitForMerge', call)
    const pr = this.pull(wait.number)
    for (;;) {
      this.onWaitRead?.()
      const url = this.links.pullRequest(pr.number) ?? ''
      if (pr.merged)
        return {
          number: pr.number,
          url,
          mergeCommitSha: pr.mergeCommitSha,
          mergedBy: pr.mergedBy,
          headSha: this.headOf(pr)
        }
      if (pr.state === 'closed')
        throw new MemoryHostError(
          null,
          `Pull request #${pr.number} (${url}) was closed without merging.`
        )
      if (wait.expectedHeadSha !== undefined && this.headOf(pr) !== wait.expectedHeadSha)
        throw new MemoryHostError(
          'head-moved',
          `The head of #${pr.number} moved.`,
          `head is now ${this.headOf(pr)}`
        )
      const left = wait.deadline - call.clock.now()
      if (left <= 0)
        throw new MemoryHostError(
          'merge-timeout',
          `Pull request #${pr.number} (${url}) was not merged within merge-timeout-seconds.`,
          `open${pr.autoMerge ? ', auto-merge on' : ''}`
        )
      await call.clock.sleep(Math.min(5000, left), call.signal)
    }
  }

  disableAutoMerge: GitHost['disableAutoMerge'] = async (pullRequest) => {
    this.calls.push('disableAutoMerge')
    if (!this.canDisableAutoMerge) return false
    const pr = this.pulls.find((p) => this.nodeIdOf(p) === pullRequest.nodeId)
    if (!pr) return false
    pr.autoMerge = null
    return true
  }

  failureOf: GitHost['failureOf'] = (error) =>
    error instanceof MemoryHostError && error.kind ? { kind: error.kind, said: error.said } : null

  // ---- inside ----

  private enter(name: string, call: HostCall): void {
    call.signal.throwIfAborted()
    this.calls.push(name)
  }

  private nodeIdOf(pr: MemoryPull): string {
    return `PR_${pr.number}`
  }

  private shown(pr: MemoryPull, reused: boolean): HostPullRequest {
    return {
      number: pr.number,
      url: this.links.pullRequest(pr.number) ?? '',
      nodeId: this.nodeIdOf(pr),
      headSha: this.headOf(pr),
      author: pr.author,
      state: pr.state,
      merged: pr.merged,
      reused
    }
  }

  /** The pull request's changes onto its base in one new commit; returns its SHA. */
  private merge(pr: MemoryPull, method: MergeMethod, by: string): string {
    const head = this.headOf(pr)
    const baseHead = this.git.branches.get(pr.base)!
    const files = new Map(this.git.resolve(baseHead)!.files)
    for (const { path } of this.git.compare(baseHead, head).files) {
      const content = this.git.resolve(head)!.files.get(path)
      if (content === undefined) files.delete(path)
      else files.set(path, content)
    }
    const parents = method === 'merge' ? [baseHead, head] : [baseHead]
    const sha = this.git.write(parents, files, `Merge #${pr.number}`, by, by)
    this.git.branches.set(pr.base, sha)
    Object.assign(pr, {
      state: 'closed',
      merged: true,
      mergeCommitSha: sha,
      mergedBy: by,
      frozenHead: head,
      autoMerge: null
    })
    return sha
  }
}
