// Step 2, preflight: read-only checks of Coder, the GitOps repository and Kubernetes before any side
// effect (README, "Preflight"). The three systems are checked at once, and every
// failed check is listed with what to grant or change.
import type { KubeConfig } from '@kubernetes/client-node'
import type { CoderClient, CoderTemplate } from '../coder/client.js'
import {
  COMPETING_VERSION_NAME,
  competingVersions,
  competingWritersWarning
} from '../coder/competing-writers.js'
import { listTemplateVersions, VERSION_PAGE_SIZE } from '../coder/versions.js'
import type { GitHost } from '../gitops/host.js'
import { checkAccess } from '../kube/access.js'
import { assertCoderK8sServed } from '../kube/discovery.js'
import { type EngineObject, planRefresh } from '../kube/refresh.js'
import type { Settings } from '../settings/settings.js'
import { checkGitOps } from './preflight-gitops.js'
import { failed, messageOf, type StepContext, type StepResult, succeeded } from './step.js'

export interface VersionRef {
  id: string
  name: string
  /** Coder's created_at (RFC 3339); absent when Coder did not say. */
  createdAt?: string
}

export interface Preflight {
  /** The organization as Coder names it (never the alias `default`). */
  organization: string
  /** The template as Coder spells it, or the input when it does not exist yet. */
  template: string
  templateExists: boolean
  /** The active version when the run started: previous-active-version-id. null: no template yet. */
  startingActive: VersionRef | null
  /** gitops-branch, or the repository's default branch. */
  branch: string
  /** Commit mode: the rules against direct commits that gitops-token bypasses, as sentences. */
  bypassed?: string[]
  /** The competing-writer warning (src/coder/competing-writers.ts); absent when there is none. */
  competingWriters?: string
  /** deployment-environment: why no deployment can be recorded, as GitHub told it; absent if none. */
  deploymentsOff?: string
  /** gitops-refresh: the engine objects to patch, in order (a Flux source before its Kustomization). */
  refresh: EngineObject[]
}

export interface PreflightInput {
  settings: Settings
  coder: CoderClient
  host: GitHost
  kc: KubeConfig
  /** deployment-environment: github-token's access, where GitHub tells it (src/deployments.ts). */
  deploymentAccess?: () => Promise<string | null>
}

type Check<T> = { value: T; problems: string[] }

export async function runPreflight(
  input: PreflightInput,
  context: StepContext
): Promise<StepResult<Preflight>> {
  const gitopsChecked = checkGitOps(input, context)
  const deployments = input.deploymentAccess?.().catch(() => null) ?? Promise.resolve(null)
  const coder = await checkCoder(input, context)
  // RBAC names the template as <organization>.<template>, with Coder's canonical organization.
  const kube = await checkKubernetes(input, context, {
    organization: coder.value.organization || 'default',
    template: coder.value.template || input.settings.coder.template
  })
  const gitops = await gitopsChecked
  const refresh = await checkRefresh(input, context)
  const problems = [...coder.problems, ...gitops.problems, ...kube.problems, ...refresh.problems]
  if (problems.length > 0) {
    const count = `${problems.length} check${problems.length === 1 ? '' : 's'} failed`
    return failed(
      'preflight',
      `The preflight found what this run cannot do: ${count}. Nothing was pushed, committed or promoted.`,
      {
        problems,
        advice: ['Grant or change what each line names, then run the job again.']
      }
    )
  }
  const deploymentsOff = await deployments
  // A record that cannot be written is a warning, never a failure (deployment-environment).
  if (deploymentsOff)
    context.log.warning(
      `deployment-environment: ${deploymentsOff}. No deployment is recorded; the run goes on.`
    )
  const value: Preflight = {
    ...coder.value,
    ...gitops.value,
    refresh: refresh.value,
    ...(deploymentsOff ? { deploymentsOff } : {})
  }
  const active = value.startingActive
  return succeeded(
    value,
    active
      ? `${value.organization}.${value.template}: active version ${active.name} (${active.id}); ${input.settings.gitops.owner}/${input.settings.gitops.repo}@${value.branch}; cluster access`
      : `${value.organization}.${value.template} will be created; ${input.settings.gitops.owner}/${input.settings.gitops.repo}@${value.branch}; cluster access`
  )
}

type CoderFacts = Omit<Preflight, 'branch' | 'refresh'>

/** gitops-refresh: each object exists and may be patched. The promote job lands no change. */
async function checkRefresh(
  input: PreflightInput,
  context: StepContext
): Promise<Check<EngineObject[]>> {
  const targets = input.settings.gitops.refresh
  if (targets.length === 0 || input.settings.mode === 'promote') return { value: [], problems: [] }
  try {
    const plan = await planRefresh({ kc: input.kc, signal: context.signal }, targets)
    for (const note of plan.notes) context.log.warning(note)
    return { value: plan.objects, problems: plan.problems.map((line) => `Kubernetes: ${line}`) }
  } catch (error) {
    return { value: [], problems: [`Kubernetes: gitops-refresh: ${messageOf(error)}.`] }
  }
}

async function checkCoder(input: PreflightInput, context: StepContext): Promise<Check<CoderFacts>> {
  const { coder: settings } = input.settings
  const none: CoderFacts = {
    organization: settings.organization,
    template: settings.template,
    templateExists: false,
    startingActive: null
  }
  const at = `Coder at ${settings.url}`
  try {
    await input.coder.me()
  } catch (error) {
    return {
      value: none,
      problems: [
        `${at}: coder-token does not work (${messageOf(error)}). Create a new token with \`coder tokens create\` for a user who may push to the template.`
      ]
    }
  }
  try {
    const organization = (await input.coder.organization(settings.organization)).name
    const template = await input.coder.template(organization, settings.template)
    if (!template) return missingTemplate(input, context, { ...none, organization }, at)
    const active = await input.coder.versionById(template.active_version_id)
    const competing = await competingWritersOf(input, template, context)
    return {
      value: {
        ...(competing ? { competingWriters: competing } : {}),
        organization,
        template: template.name,
        templateExists: true,
        startingActive: {
          id: template.active_version_id,
          name: active?.name ?? '',
          createdAt: active?.created_at
        }
      },
      problems: []
    }
  } catch (error) {
    return { value: none, problems: [`${at}: ${messageOf(error)}`] }
  }
}

/** The warning of another writer's versions, in the log now; a failed list is only a note. */
async function competingWritersOf(
  input: PreflightInput,
  template: CoderTemplate,
  context: StepContext
): Promise<string | null> {
  try {
    const versions = await listTemplateVersions(input.coder, template.id, VERSION_PAGE_SIZE, true)
    const named = versions.map((v) => ({ name: v.name, createdAt: v.created_at }))
    const total = named.filter((v) => COMPETING_VERSION_NAME.test(v.name)).length
    const warning = competingWritersWarning(template.name, competingVersions(named), total)
    if (warning) context.log.warning(warning)
    return warning
  } catch (error) {
    if (context.signal.aborted) throw error
    context.log.info(`Cannot tell whether another writer manages the template: ${messageOf(error)}`)
    return null
  }
}

/** No template yet: the gate may create it (create-template); the promote job never does. */
function missingTemplate(
  input: PreflightInput,
  context: StepContext,
  value: CoderFacts,
  at: string
): Check<CoderFacts> {
  const { template, createTemplate } = input.settings.coder
  const missing = `${at}: template "${template}" does not exist in organization "${value.organization}"`
  // The promote job pushes nothing, so it never creates a template: there is nothing to promote.
  if (input.settings.mode === 'promote')
    return {
      value,
      problems: [
        `${missing}, so no test job pushed to it. The promote job pushes nothing and creates no template: run the test job (mode: test) for this commit first.`
      ]
    }
  if (input.settings.mode === 'verify')
    return { value, problems: [`${missing}, so it has no active version to verify.`] }
  if (createTemplate) {
    context.log.warning(
      `Template "${template}" does not exist in ${value.organization}: create-template is true, so the push creates it, and Coder makes its first version active before any test. That version goes live untested.`
    )
    return { value, problems: [] }
  }
  return {
    value,
    problems: [
      `${missing}. A first push would create it with its first version active before any test: create the template first, or set create-template: true to accept that.`
    ]
  }
}

async function checkKubernetes(
  input: PreflightInput,
  context: StepContext,
  canonical: { organization: string; template: string }
): Promise<Check<null>> {
  const { settings, kc } = input
  // mode: verify promotes only to roll back (rollback-to).
  const promote =
    settings.mode === 'verify' ? settings.live.rollbackTo !== '' : settings.promote !== 'skip'
  try {
    await assertCoderK8sServed(kc, { signal: context.signal, needAggregation: promote })
  } catch (error) {
    return { value: null, problems: [`Kubernetes: ${messageOf(error)}.`] }
  }
  try {
    const access = await checkAccess({
      kc,
      namespace: settings.test.namespace,
      template: `${canonical.organization}.${canonical.template}`,
      promote,
      signal: context.signal
    })
    for (const line of access.unknown)
      context.log.warning(`Kubernetes: cannot tell whether ${line}; going on.`)
    return { value: null, problems: access.denied.map((line) => `Kubernetes: ${line}`) }
  } catch (error) {
    context.log.warning(`Kubernetes: the access review failed (${messageOf(error)}); going on.`)
    return { value: null, problems: [] }
  }
}
