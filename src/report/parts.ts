// The parts of the report, one per concern, each built once from the results of the steps it is
// about: every field has one expression, which says which step's fact wins (the promote job's
// located version over the input, the merge commit over the gate's branch commit). Pure.
import type { VersionFacts } from '../promotion/guard.js'
import type { Journal } from '../steps/journal.js'
import { manifestPathOf } from '../gitops/naming.js'
import { coderVersionUrl, commitUrlOf, runLabelOf, runUrlOf, serverOfPullRequest } from './links.js'
import type { RunRef } from './links.js'
import {
  type CommitPart,
  type GitOpsPart,
  known,
  type MergePart,
  type PromotionPart,
  type RunPart,
  type TemplatePart,
  type TestPart,
  type TidyPart,
  type VersionOrigin,
  type VersionPart
} from './report.js'

/** What the run knows from its environment, for the parts that the steps cannot tell. */
export interface PartsContext {
  serverUrl?: string
  /** GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT: the run link when the inputs were invalid. */
  repository?: string
  runId?: string
  runAttempt?: string
}

/** The workflow run: from the run context the inputs step read, else from the environment. */
export function runPart(journal: Journal, context: PartsContext): RunPart {
  const run: RunRef = journal.value('inputs')?.context ?? {
    serverUrl: context.serverUrl ?? '',
    repository: context.repository ?? '',
    runId: context.runId ?? '',
    runAttempt: context.runAttempt ?? ''
  }
  const url = known(runUrlOf(run))
  return url ? { url, label: runLabelOf(run) } : {}
}

function originOf(journal: Journal): VersionOrigin {
  if (journal.value('locate')) return 'located'
  if (journal.value('push')) return 'pushed'
  const push = journal.entry('push')
  return push && !push.result.ok ? 'import-failed' : 'named'
}

/** The template and its versions: the tested one, the one active at the start and at the end. */
export function templatePart(journal: Journal, observed: VersionFacts | null): TemplatePart {
  const settings = journal.value('inputs')?.settings
  const preflight = journal.value('preflight')
  // A promote job has no push; a gate job has no locate.
  const ours = journal.value('locate') ?? journal.value('push')
  const name = known(ours?.template ?? preflight?.template ?? settings?.coder.template)
  const organization = known(preflight?.organization ?? settings?.coder.organization)
  // Before the preflight, the organization is the input as written (maybe an alias): no link then.
  const coderUrl = preflight ? (settings?.coder.url ?? '') : ''
  const link = (version: string | undefined): string | undefined =>
    known(coderVersionUrl(coderUrl, organization ?? '', name ?? '', version ?? ''))
  // mode: verify tests the active version: the one its test ran, never a name from the event.
  const ran = settings?.mode === 'verify' ? (journal.factsOf('verify')?.ran ?? null) : undefined
  const versionName = known(
    ran !== undefined ? ran?.name : (ours?.versionName ?? settings?.coder.version)
  )
  const previous = preflight?.startingActive ?? null
  return {
    name,
    organization,
    version: {
      origin: originOf(journal),
      name: versionName,
      id: known(ran !== undefined ? ran?.id : ours?.versionId),
      url: ours || ran ? link(versionName) : undefined
    },
    previousActive: previous ? versionOf(previous, link) : undefined,
    active: observed ? versionOf(observed, link) : undefined
  }
}

function versionOf(
  version: { id: string; name: string },
  link: (name: string | undefined) => string | undefined
): VersionPart {
  return { id: known(version.id), name: known(version.name), url: link(version.name) }
}

function commitPart(journal: Journal): CommitPart {
  const entry = journal.entry('commit')
  if (!entry) return { state: 'not run' }
  const { result } = entry
  if (!result.ok) {
    if (result.failure.status === 'cancelled') return { state: 'cancelled' }
    return result.facts?.outcomeUnknown
      ? { state: 'failed', outcomeUnknown: true }
      : { state: 'failed' }
  }
  const { manifestPath, branch, onBase } = result.value
  return { state: 'committed', manifestPath, branch, onBase }
}

function mergePart(journal: Journal): MergePart | undefined {
  const result = journal.entry('merge')?.result
  if (!result) return undefined
  if (result.ok) return { state: 'merged' }
  return {
    state: 'not merged',
    status: result.failure.status,
    autoMergeAsked: result.facts?.autoMergeAsked,
    autoMergeOff: result.facts?.autoMergeOff
  }
}

/** The commit that reached the watched branch (see GitOpsPart.landed). */
function landedOf(
  journal: Journal,
  context: PartsContext,
  repository: string,
  prUrl: string
): GitOpsPart['landed'] {
  const merged = journal.value('merge')
  if (merged) {
    const [owner = '', repo = ''] = repository.split('/')
    // The server that gave the pull request's html_url, else GITHUB_SERVER_URL.
    const server = serverOfPullRequest(prUrl) || context.serverUrl || ''
    const sha = merged.mergeCommitSha
    return landed(sha, commitUrlOf(server, owner, repo, sha), journal.value('preflight')?.branch)
  }
  // The promote job: the manifest commit that the test job left.
  const commit = journal.value('commit') ?? journal.value('locate')
  return commit ? landed(commit.commitSha, commit.commitUrl, commit.branch) : undefined
}

function landed(
  sha: string,
  url: string | undefined,
  branch: string | undefined
): GitOpsPart['landed'] {
  return sha ? { sha, url: known(url), branch: known(branch) } : undefined
}

export function gitopsPart(journal: Journal, context: PartsContext): GitOpsPart {
  const settings = journal.value('inputs')?.settings
  const gitops = settings?.gitops
  const repository = gitops ? `${gitops.owner}/${gitops.repo}` : ''
  const opened = journal.value('pull-request')
  const committed = journal.value('commit')
  return {
    repository: known(repository),
    delivery: gitops?.delivery,
    autoMerge: gitops?.merge === 'auto',
    base: known(journal.value('preflight')?.branch ?? gitops?.branch),
    manifestPath: settings ? manifestPathOf(settings.gitops.path, settings.test.name) : undefined,
    commit: commitPart(journal),
    landed: landedOf(journal, context, repository, opened?.url ?? ''),
    pullRequest: opened ? { number: String(opened.number), url: opened.url } : undefined,
    merge: mergePart(journal),
    prunedManifests: committed?.pruned ?? [],
    prunedKept: (committed?.prunedDropped ?? [])
      .filter((d) => d.reason === 'replaced')
      .map((d) => d.path)
  }
}

/** The test: what the inputs name, and what the wait saw of it on either path. */
export function testPart(journal: Journal): TestPart {
  const test = journal.value('inputs')?.settings.test
  const wait = journal.entry('wait')?.result
  const seen = journal.factsOf('wait')
  const workspace = seen?.workspace ?? null
  // With test-presets: the test the wait's facts are of (the one that decided), else the first.
  const done = journal.value('commit') ?? journal.value('locate')
  const name = seen?.testName ?? done?.tests?.[0]?.name ?? test?.name
  return {
    namespace: known(test?.namespace),
    name: known(name),
    // The order of the issue and of docs/troubleshooting.md: get <kind> -n <ns> <name> -o yaml.
    inspectCommand: test
      ? `kubectl get codertemplatetest -n ${test.namespace} ${name} -o yaml`
      : undefined,
    lookedFor: wait !== undefined,
    exists: seen !== undefined && seen.syncedAt !== null,
    syncTimedOut: wait !== undefined && !wait.ok && wait.failure.kind === 'sync-timeout',
    ...(typeof seen?.syncSeconds === 'number' ? { syncSeconds: seen.syncSeconds } : {}),
    phase: known(seen?.last?.phase),
    reason: known(seen?.last?.reason),
    message: known(seen?.last?.message),
    timeline: seen?.timeline ?? [],
    clock: seen?.clock,
    workspace: workspace
      ? {
          name: workspace.name,
          ownerId: known(workspace.ownerId),
          deleted: known(workspace.deleted)
        }
      : undefined
  }
}

export function promotionPart(journal: Journal): PromotionPart {
  const promote = journal.entry('promote')?.result
  if (!promote) return { requested: false }
  if (promote.ok) {
    const { result, confirmedBy } = promote.value
    return { result, confirmedBy: confirmedBy || undefined, requested: false }
  }
  return {
    result: promote.failure.kind === 'refused' ? 'Refused' : undefined,
    requested: promote.facts?.requestSent ?? false
  }
}

export function tidyPart(journal: Journal): TidyPart {
  const tidied = journal.value('tidy')
  return {
    archived: tidied?.archived ?? [],
    wouldArchive: tidied?.wouldArchive ?? [],
    notes: tidied?.notes ?? [],
    oursArchived: tidied?.oursArchived ?? false
  }
}

/** What went through but needs attention: the preflight's, the push's, then the tidy step's. */
export function warningsOf(journal: Journal): string[] {
  const pushed = journal.value('push')
  const tidied = journal.value('tidy')
  const competing = journal.value('preflight')?.competingWriters
  return [
    ...(journal.value('preflight')?.bypassed ?? []),
    ...(competing ? [competing] : []),
    ...(pushed?.createdTemplate
      ? [
          `The push created template ${pushed.template}, and Coder made version ${pushed.versionName} its active version before any test (create-template: true).`
        ]
      : []),
    ...(tidied?.warning ? [tidied.warning] : [])
  ]
}
