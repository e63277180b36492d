// The promote job's locate step (action.yml, `mode: promote`): finds what the test job left,
// changing nothing. This commit's version of `version` in Coder (by name and commit marker), the
// manifest <gitops-path>/<test-name>.yaml on gitops-branch, and the guard's starting point.
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import type { CoderClient } from '../coder/client.js'
import type { GitHost } from '../gitops/host.js'
import type { CommittedTest } from './commit.js'
import { planPresetTests } from './presets.js'
import { expectedVersionProblem, manifestProblem, versionProblem } from '../verdict/locate-rules.js'
import { manifestPathOf } from '../gitops/naming.js'
import { parseManifest } from '../objects/manifest.js'
import type { Settings } from '../settings/settings.js'
import type { Preflight, VersionRef } from './preflight.js'
import { callOf, failed, messageOf, type StepContext, type StepResult, succeeded } from './step.js'

export interface Located {
  /** This commit's version: the one the test job pushed and tested. */
  versionId: string
  versionName: string
  createdAt?: string
  template: string
  /** The manifest read from gitops-branch: the spec the test in the cluster must equal. */
  manifest: CoderTemplateTest
  manifestPath: string
  /** Every test of the version (one per preset with test-presets), each read at `commitSha`. */
  tests: CommittedTest[]
  branch: string
  /** The head of gitops-branch at the read; the manifest was read at exactly this commit. */
  commitSha: string
  commitUrl: string
  /** The guard's starting point: expected-active-version-id, or the active version now. */
  starting: VersionRef | null
}

export interface LocateInput {
  settings: Settings
  preflight: Pick<Preflight, 'organization' | 'template' | 'branch' | 'startingActive'>
  coder: CoderClient
  host: GitHost
}

const ADVICE = [
  'Run the test job (mode: test) for this commit first, and let it pass; then run this promote job again.'
]

export async function locateTested(
  input: LocateInput,
  context: StepContext
): Promise<StepResult<Located>> {
  const { settings, preflight } = input
  const { organization, template } = preflight
  try {
    const found = await input.coder.versionByName(organization, template, settings.coder.version)
    const wrongVersion = versionProblem(found, {
      organization,
      template,
      name: settings.coder.version,
      commitSha: settings.coder.commitSha
    })
    if (wrongVersion || !found) return notTested(wrongVersion ?? '')
    const lookup = await locateTests(input, found, context)
    if (!lookup.ok) return lookup
    const { tests, first, read } = lookup.value
    const starting = await startingPoint(input, found.template_id)
    if (typeof starting === 'string')
      return failed('locate', `${starting} Nothing was promoted.`, {
        advice: ['Correct expected-active-version-id (or leave it empty), then run the job again.']
      })
    const located: Located = {
      versionId: found.id,
      versionName: found.name,
      createdAt: found.created_at,
      template,
      // The first test's manifest and path, as the commit step gives them (src/steps/commit.ts).
      manifest: first.manifest,
      manifestPath: first.manifestPath,
      tests,
      branch: preflight.branch,
      commitSha: read.commitSha,
      commitUrl: read.commitUrl,
      starting
    }
    return succeeded(
      located,
      `version ${found.name} (${found.id}) of this commit; ${tests.length > 1 ? `${tests.length} preset tests under ` : ''}${read.where} at ${read.commitSha.slice(0, 12)}`
    )
  } catch (error) {
    if (context.signal.aborted) throw error
    return failed('locate', `Finding what the test job left failed: ${messageOf(error)}`, {
      advice: ['Check the Coder URL and token and the gitops-token, then run the job again.']
    })
  }
}

/**
 * The same tests as the test job: the version's presets read again (guess: a version's presets are
 * fixed at its import, so the names come out the same), each manifest read at one head commit.
 */
async function locateTests(
  input: LocateInput,
  found: { id: string; name: string },
  context: StepContext
): Promise<StepResult<{ tests: CommittedTest[]; first: CommittedTest; read: ManifestRead }>> {
  const { settings, preflight } = input
  const pushed = { versionId: found.id, versionName: found.name }
  const plan = await planPresetTests({ test: settings.test, pushed, client: input.coder }, context)
  if (!plan.ok) return plan
  const head = await input.host.branchHead(preflight.branch, callOf(context))
  const tests: CommittedTest[] = []
  let read: ManifestRead | undefined
  for (const planned of plan.value.tests) {
    read = await readManifest(input, head, planned.name, context)
    const wrongManifest = manifestProblem(read.text, read.manifest, {
      where: read.where,
      namespace: settings.test.namespace,
      testName: planned.name,
      template: `${preflight.organization}.${preflight.template}`,
      versionName: found.name
    })
    if (wrongManifest || !read.manifest) return notTested(wrongManifest ?? '')
    const { name, preset } = planned
    tests.push({ name, preset, manifest: read.manifest, manifestPath: read.path })
  }
  const [first] = tests
  if (!first || !read) return notTested('No test to locate.')
  return succeeded({ tests, first, read }, '')
}

function notTested(problem: string): StepResult<never> {
  return failed('locate', `${problem} Nothing was promoted.`, { advice: ADVICE })
}

interface ManifestRead {
  path: string
  where: string
  text: string | null
  manifest: CoderTemplateTest | null
  commitSha: string
  commitUrl: string
}

/** The file at the branch head read first: every manifest and commit-sha agree. */
async function readManifest(
  input: LocateInput,
  head: { sha: string; url: string },
  testName: string,
  context: StepContext
): Promise<ManifestRead> {
  const { gitops } = input.settings
  const branch = input.preflight.branch
  const commitSha = head.sha
  const path = manifestPathOf(gitops.path, testName)
  const text = await input.host.readFile(commitSha, path, callOf(context))
  return {
    path,
    where: `${gitops.owner}/${gitops.repo}@${branch}:${path}`,
    text,
    manifest: text === null ? null : parseManifest(text),
    commitSha,
    commitUrl: head.url
  }
}

/**
 * expected-active-version-id, which must be a version of this template, else the active version
 * now. A string is the problem with the input.
 */
async function startingPoint(
  input: LocateInput,
  templateId: string | null
): Promise<VersionRef | null | string> {
  const id = input.settings.expectedActiveVersionId
  if (!id) return input.preflight.startingActive
  const version = await input.coder.versionById(id)
  const where = `${input.preflight.organization}.${input.preflight.template}`
  const problem = expectedVersionProblem(id, version, templateId, where)
  if (problem !== null || version === null) return problem ?? ''
  return { id, name: version.name, createdAt: version.created_at }
}
