// The promote job's locate step (action.yml, `mode: promote`): finds what the test job left,
// changing nothing. This commit's version of `version` in Coder (by name and commit marker), the
// manifest <gitops-path>/<test-name>.yaml on gitops-branch, and the guard's starting point.
import type { CoderTemplateTest } from '../kube/objects.js'
import type { CoderClient } from '../coder/client.js'
import type { GitHost } from '../gitops/host.js'
import { expectedVersionProblem, manifestProblem, versionProblem } from '../verdict/locate-rules.js'
import { manifestPathOf, parseManifest } from '../verdict/manifest.js'
import type { Settings } from '../settings/settings.js'
import type { Preflight, VersionRef } from './preflight.js'
import { clockOf, failed, messageOf, type StepContext, type StepResult, succeeded } from './step.js'

export interface Located {
  /** This commit's version: the one the test job pushed and tested. */
  versionId: string
  versionName: string
  createdAt: string
  template: string
  /** The manifest read from gitops-branch: the spec the test in the cluster must equal. */
  manifest: CoderTemplateTest
  manifestPath: string
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
    const read = await readManifest(input, context)
    const wrongManifest = manifestProblem(read.text, read.manifest, {
      where: read.where,
      namespace: settings.test.namespace,
      testName: settings.test.name,
      template: `${organization}.${template}`,
      versionName: found.name
    })
    if (wrongManifest || !read.manifest) return notTested(wrongManifest ?? '')
    const starting = await startingPoint(input, found.template_id)
    if (typeof starting === 'string')
      return failed('locate', `${starting} Nothing was promoted.`, {
        advice: ['Correct expected-active-version-id (or leave it empty), then run the job again.']
      })
    const located: Located = {
      versionId: found.id,
      versionName: found.name,
      createdAt: found.created_at ?? '',
      template,
      manifest: read.manifest,
      manifestPath: read.path,
      branch: preflight.branch,
      commitSha: read.commitSha,
      commitUrl: read.commitUrl,
      starting
    }
    return succeeded(
      located,
      `version ${found.name} (${found.id}) of this commit; ${read.where} at ${read.commitSha.slice(0, 12)}`
    )
  } catch (error) {
    if (context.signal.aborted) throw error
    return failed('locate', `Finding what the test job left failed: ${messageOf(error)}`, {
      advice: ['Check the Coder URL and token and the gitops-token, then run the job again.']
    })
  }
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

/** The branch head first, then the file at that commit: the manifest and commit-sha agree. */
async function readManifest(input: LocateInput, context: StepContext): Promise<ManifestRead> {
  const { gitops, test } = input.settings
  const call = { signal: context.signal, clock: clockOf(context) }
  const branch = input.preflight.branch
  const head = await input.host.branchHead(branch, call)
  const commitSha = head.sha
  const path = manifestPathOf(gitops.path, test.name)
  const text = await input.host.readFile(commitSha, path, call)
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
  return { id, name: version.name, createdAt: version.created_at ?? '' }
}
