// The promote job's decisions about what the test job left (action.yml, `mode: promote`): the
// version must be this commit's, and the manifest on gitops-branch must be the test of that
// version. Each problem names what was found. Pure.
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import type { CoderTemplateVersion } from '../coder/types.js'
import { hasVersionMarker } from '../coder/version-identity.js'

const SHOWN_MESSAGE_LIMIT = 200

export interface WantedVersion {
  organization: string
  template: string
  name: string
  /** The commit under test; absent when the runner gives none. */
  commitSha?: string
}

/** Why `found` is not this commit's tested version; null when it is. */
export function versionProblem(
  found: CoderTemplateVersion | null,
  want: WantedVersion
): string | null {
  const where = `${want.organization}.${want.template}`
  if (found === null)
    return `Coder holds no version "${want.name}" of ${where}: no test job has pushed it.`
  const named = `Version ${found.name} (${found.id}${createdBy(found)}) of ${where}`
  if (!want.commitSha)
    return `${named} cannot be matched to this commit: the runner gave no commit (GITHUB_SHA).`
  // The marker the gate appends to its message (version-identity.ts): the push of this commit.
  if (!hasVersionMarker(found.message ?? '', want.commitSha))
    return `${named} was not pushed for commit ${want.commitSha.slice(0, 12)}: its message is ${JSON.stringify(shown(found.message ?? ''))}.`
  if (found.job.status !== 'succeeded')
    return `${named} is this commit's, but its import is ${found.job.status}.`
  if (found.archived) return `${named} is this commit's, but it is archived.`
  return null
}

/**
 * Why expected-active-version-id cannot be the guard's starting point: Coder holds no such version,
 * or it belongs to another template than `templateId` (the located version's); null when it can.
 */
export function expectedVersionProblem(
  id: string,
  expected: CoderTemplateVersion | null,
  templateId: string | null,
  where: string
): string | null {
  const fix = `pass the previous-active-version-id output of the test job of ${where}`
  if (expected === null)
    return `Input "expected-active-version-id" names version ${id}, which Coder does not hold: ${fix}.`
  if (templateId && expected.template_id !== templateId)
    return `Input "expected-active-version-id" names version ${expected.name} (${id}), which is not a version of ${where}: ${fix}.`
  return null
}

export interface WantedManifest {
  /** `<owner>/<repo>@<branch>:<path>`, for the messages. */
  where: string
  namespace: string
  testName: string
  /** `<organization>.<template>`. */
  template: string
  versionName: string
}

/** Why the file read from gitops-branch is not the test of our version; null when it is. */
export function manifestProblem(
  text: string | null,
  parsed: CoderTemplateTest | null,
  want: WantedManifest
): string | null {
  if (text === null) return `${want.where} does not exist: no test job has committed it.`
  if (parsed === null) return `${want.where} is not a CoderTemplateTest manifest.`
  const name = `${parsed.metadata?.namespace ?? ''}/${parsed.metadata?.name ?? ''}`
  if (name !== `${want.namespace}/${want.testName}`)
    return `${want.where} declares the test ${name}, not ${want.namespace}/${want.testName}.`
  const template = parsed.spec.template ?? ''
  const version = parsed.spec.version?.name ?? ''
  if (template !== want.template || version !== want.versionName)
    return `${want.where} tests ${template || '(no template)'} version ${version || '(none)'}, not ${want.template} version ${want.versionName}.`
  return null
}

function createdBy(version: CoderTemplateVersion): string {
  const user = version.created_by?.username
  return user ? `, created by ${user}` : ''
}

function shown(message: string): string {
  return message.length > SHOWN_MESSAGE_LIMIT
    ? `${message.slice(0, SHOWN_MESSAGE_LIMIT)}…`
    : message
}
