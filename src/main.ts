// run(): the steps of the gate in order. Thin on purpose: every decision lives in a pure module,
// every conversation with another system in an adapter. The summary and the outputs are written on
// every path: success, failure, timeout and cancel.
import { statSync } from 'node:fs'
import * as core from '@actions/core'
import type { KubeConfig } from '@kubernetes/client-node'
import type { CoderTemplateTest } from './api.js'
import { raceAbort } from './abort.js'
import { CoderClient } from './coder/client.js'
import { resolveCoderCli } from './coder/cli.js'
import { pushTemplateVersion } from './coder/push.js'
import { readRunContext } from './context.js'
import { commitManifest, ManifestConflictError } from './gitops/commit.js'
import { createGitOpsOctokit } from './gitops/octokit.js'
import { type InputName, parseInputs, SECRET_INPUTS, type Settings } from './inputs.js'
import { integrityProblems } from './integrity.js'
import { loadKubeConfig } from './kube/config.js'
import { assertCoderK8sServed } from './kube/discovery.js'
import { postPromotion, readActiveVersionID } from './kube/promote.js'
import { isAbortError } from './kube/request.js'
import { waitForTest, WaitTimeoutError } from './kube/wait.js'
import {
  buildTestManifest,
  parseManifest,
  renderManifest,
  sameTest,
  specDifferences
} from './manifest.js'
import { PromotionCancelledError, runPromotion } from './promote-step.js'
import { adviceForFailure, adviceForWait } from './report/advice.js'
import { writeOutputs } from './report/outputs.js'
import {
  isSuccess,
  newReport,
  recordObservation,
  type RunReport,
  type StepName
} from './report/report.js'
import { headline, writeSummary } from './report/summary.js'
import { describeWaiting, observe, verdictOf } from './verdict.js'

/** `coder templates push` has no timeout of its own (coder-cli.md §5): ours. */
const PUSH_TIMEOUT_MS = 20 * 60 * 1000
/** On a cancel, the CLI gets this long to cancel its import job (it traps SIGINT, coder-cli.md §1.3). */
const PUSH_CANCEL_GRACE_MS = 3000

type Env = Record<string, string | undefined>

export class CancelledError extends Error {
  override name = 'CancelledError'
}

/** A failure whose message is complete for the user; `outcome` says how the run ends. */
class GateError extends Error {
  constructor(
    message: string,
    readonly outcome: 'failed' | 'timed-out' = 'failed'
  ) {
    super(message)
  }
}

export async function run(
  signal: AbortSignal = new AbortController().signal,
  env: Env = process.env
): Promise<RunReport> {
  const now = (): number => Date.now()
  const report = newReport(now())

  /** Runs one step and records its result and duration, whatever happens. */
  const step = async <T>(name: StepName, body: () => Promise<T>, graceMs = 0): Promise<T> => {
    const record = report.steps[name]
    record.startedAt = now()
    try {
      // A cancel must not wait for an adapter that cannot be interrupted (e.g. a rate-limit sleep).
      const result = await untilAborted(body(), signal, graceMs)
      if (record.result === 'not run') record.result = 'succeeded'
      return result
    } catch (error) {
      if (record.result === 'not run') {
        record.result = signal.aborted
          ? 'cancelled'
          : error instanceof WaitTimeoutError
            ? 'timed out'
            : 'failed'
      }
      throw error
    } finally {
      record.endedAt = now()
    }
  }

  try {
    // Secrets first: nothing may be logged before they are masked (action-ecosystem.md §5.2).
    for (const name of ['coder-token', 'gitops-token'] satisfies InputName[]) {
      const value = core.getInput(name)
      if (value) core.setSecret(value)
    }
    // The kubeconfig's credentials too, before any other input is even looked at.
    let kubeConfig: KubeConfig | null = null
    let kubeError = ''
    try {
      kubeConfig = loadKubeConfig({
        kubeconfig: core.getInput('kubeconfig'),
        context: core.getInput('kube-context'),
        mask: (secret) => core.setSecret(secret)
      }).kc
    } catch (error) {
      const message = messageOf(error)
      const input =
        /^kube context/.test(message) || !core.getInput('kubeconfig').trim()
          ? 'kube-context'
          : 'kubeconfig'
      kubeError = `Input "${input}" is invalid: ${message}.`
    }

    const context = readRunContext(env)
    const parsed = parseInputs((name) => core.getInput(name), context, isDirectory)
    const inputErrors = [
      ...(parsed.ok ? [] : parsed.errors.map((e) => e.message)),
      ...(kubeError ? [kubeError] : [])
    ]
    if (!parsed.ok || kubeConfig === null) {
      report.outcome = 'invalid-input'
      report.inputErrors = inputErrors
      report.error = `${inputErrors.length} input${inputErrors.length === 1 ? ' is' : 's are'} invalid; nothing was pushed, committed or promoted.`
      inputErrors.forEach((line) => core.error(line))
      return report
    }
    const settings = parsed.settings
    const kc = kubeConfig
    // Child processes (kube exec credential plugins) need none of the action's secrets.
    for (const name of SECRET_INPUTS) delete process.env[`INPUT_${name.toUpperCase()}`]
    fillFromSettings(report, settings)

    const coder = new CoderClient({ url: settings.coderUrl, token: settings.coderToken, signal })
    const organization = await untilAborted(
      core.group('Resolve the organization and check the cluster', async () => {
        const org = await coder.organization(settings.organization)
        core.info(
          `Organization: ${org.name}${settings.organization ? '' : ' (the default organization)'}`
        )
        await assertCoderK8sServed(kc, { signal, needAggregation: settings.promote !== 'skip' })
        core.info(
          'coder-k8s serves CoderTemplateTests' +
            (settings.promote !== 'skip' ? ' and the promote subresource.' : '.')
        )
        return org.name
      }),
      signal
    )
    report.organization = organization

    // 1. Push the template as a new inactive version.
    const pushed = await step(
      'push',
      async () => {
        const cli = await resolveCoderCli({
          configuredPath: settings.coderCli,
          coderUrl: settings.coderUrl,
          client: coder,
          signal
        })
        const outcome = await pushTemplateVersion({
          client: coder,
          cli: cli.path,
          coderUrl: settings.coderUrl,
          token: settings.coderToken,
          organization,
          passOrganization: settings.organization !== '',
          template: settings.template,
          directory: settings.directory,
          version: settings.version,
          message: settings.message,
          variables: settings.variables,
          // A version of our name is ours when it carries our message or names our commit (the
          // default message does): a moved tag or a manual push must not be tested in our place.
          isOwnVersion: (existing) =>
            existing.message === settings.message ||
            (settings.commitSha !== '' &&
              existing.message.includes(`commit ${settings.commitSha.slice(0, 12)}`)),
          timeoutMs: PUSH_TIMEOUT_MS,
          signal
        })
        report.steps.push.detail = outcome.reusedExistingVersion
          ? `version ${settings.version} already existed; continued with it`
          : `pushed version ${settings.version} (inactive)`
        return outcome
      },
      PUSH_CANCEL_GRACE_MS
    )
    report.versionId = pushed.versionId
    // The template as Coder spells it (its lookup by name ignores case).
    const template = pushed.templateName
    // The name Coder holds: old CLIs ignored --name when they created a template (coder-cli.md §1.5).
    const versionName = pushed.versionName
    report.versionName = versionName
    report.previousActiveVersionId = pushed.activeVersionIdBeforePush ?? ''
    // Until a promotion changes it: Coder activates the only version of a new template itself.
    report.activeVersionId = pushed.templateExisted
      ? report.previousActiveVersionId
      : pushed.versionId

    // 2. Commit the test manifest to the GitOps repository.
    const manifest = buildTestManifest({
      testName: settings.testName,
      namespace: settings.namespace,
      controlPlane: settings.controlPlane,
      organization,
      template,
      version: versionName,
      parameters: settings.testParameters,
      timeoutSeconds: settings.testTimeoutSeconds
    })
    const manifestPath = joinPath(settings.gitops.path, `${settings.testName}.yaml`)
    report.manifestPath = manifestPath
    const commit = await step('commit', () =>
      commitManifest({
        octokit: createGitOpsOctokit({
          token: settings.gitops.token,
          baseUrl: env.GITHUB_API_URL || 'https://api.github.com',
          log: { warning: (line) => core.warning(line), debug: (line) => core.debug(line) }
        }),
        owner: settings.gitops.owner,
        repo: settings.gitops.repo,
        branch: settings.gitops.branch,
        path: manifestPath,
        content: renderManifest(manifest),
        message: `Test ${organization}.${template} version ${versionName}\n\nCoderTemplateTest ${settings.namespace}/${settings.testName}, written by coder-template-gate.\nRun: ${settings.runUrl}`,
        isSame: (existing) => sameTest(parseManifest(existing), manifest),
        signal
      })
    )
    report.commitSha = commit.commitSha
    report.commitUrl = commit.commitUrl
    report.steps.commit.detail =
      commit.status === 'created'
        ? `committed ${manifestPath} to ${settings.gitops.owner}/${settings.gitops.repo}@${commit.branch}`
        : `${manifestPath} was already in Git; no commit`
    const committedAt = now()

    // 3. Wait until the GitOps tool created the test and the controller finished it.
    const test = await waitForFinalTest(settings, kc, manifest, report, step, committedAt, signal)

    // 4. Judge the one object read: the verdict and the integrity come from the same object.
    const problems = integrityProblems(test, manifest.spec, {
      id: pushed.versionId,
      name: versionName
    })
    const verdict = verdictOf(test)
    if (problems.length > 0) {
      report.integrityProblems = problems
      report.steps.test.result = 'failed'
      throw new GateError(
        `The test ${settings.namespace}/${settings.testName} in the cluster does not prove version ${versionName} (${pushed.versionId}): ${problems.join('; ')}. ` +
          'Another object may hold this name (created first with another spec, or a version that maps to the same test name): set test-name, or delete the foreign test. Nothing was promoted.'
      )
    }
    if (verdict.state === 'failed') {
      report.steps.test.result = 'failed'
      report.advice = adviceForFailure(verdict.reason)
      throw new GateError(
        `The test failed: ${verdict.reason || 'no reason'}: ${(verdict.message || 'no message').replace(/\.$/, '')}. Nothing was promoted.`
      )
    }
    if (verdict.state !== 'passed') {
      throw new GateError(
        `The test ended without passing (${verdict.phase || 'no phase'}). Nothing was promoted.`
      )
    }
    report.steps.test.detail = `${verdict.reason}: ${verdict.message}`

    // 5. Promote exactly the version that was tested.
    const templateName = `${organization}.${template}`
    const versionID = test.status?.templateVersionID ?? ''
    if (settings.promote === 'skip') {
      await step('promote', async () => {
        report.steps.promote.result = 'skipped'
        report.steps.promote.detail = 'promote: false'
        report.promotionResult = 'Skipped'
        // Informational only: a Coder hiccup here must not fail a test that passed.
        const active = await activeVersionOf(coder, organization, template)
        if (active) report.previousActiveVersionId = report.activeVersionId = active
      })
      report.outcome = 'passed'
    } else {
      if (signal.aborted) throw new CancelledError('cancelled')
      const mode = settings.promote === 'dry-run' ? 'dry-run' : 'promote'
      const promoted = await step('promote', () =>
        core.group(
          `Promote ${templateName} to ${versionID}${mode === 'dry-run' ? ' (dry-run)' : ''}`,
          async () => {
            // The active version right before the first request decides, after an unclear answer,
            // whether another request is safe (§2.4). Unknown (''): any other version fails.
            const previous = (await activeVersionOf(coder, organization, template)) ?? ''
            return runPromotion({
              namespace: settings.namespace,
              template: templateName,
              versionID,
              previousActiveVersionID: previous,
              mode,
              signal,
              post: () =>
                postPromotion({
                  kc,
                  namespace: settings.namespace,
                  template: templateName,
                  versionID,
                  dryRun: mode === 'dry-run',
                  signal
                }),
              readActiveVersionID: () =>
                readActiveVersionID({
                  kc,
                  namespace: settings.namespace,
                  template: templateName,
                  signal
                }),
              log: (line) => core.info(line),
              onRequest: () => (report.promotionRequested = true)
            })
          }
        )
      )
      report.promotionResult = promoted.result
      report.promotionConfirmedBy = promoted.confirmedBy
      report.previousActiveVersionId = promoted.previousActiveVersionID
      report.activeVersionId = promoted.activeVersionID
      report.steps.promote.detail = `${promoted.result}${promoted.confirmedBy === 're-read' ? ' (confirmed by a re-read of the active version)' : ''}`
      report.outcome = mode === 'dry-run' ? 'would-promote' : 'promoted'
    }
    return report
  } catch (error) {
    recordFailure(report, error, signal)
    return report
  } finally {
    finish(report, now())
    writeOutputs(report)
    await writeSummary(report, now()).catch((error) =>
      core.warning(`Could not write the job summary: ${messageOf(error)}`)
    )
  }
}

async function waitForFinalTest(
  settings: Settings,
  kc: KubeConfig,
  manifest: CoderTemplateTest,
  report: RunReport,
  step: <T>(name: StepName, body: () => Promise<T>) => Promise<T>,
  committedAt: number,
  signal: AbortSignal
): Promise<CoderTemplateTest> {
  const name = `${settings.namespace}/${settings.testName}`
  const sync = report.steps.sync
  sync.startedAt = committedAt
  core.startGroup(`Wait for CoderTemplateTest ${name}`)
  try {
    core.info(
      `Waiting up to ${settings.syncTimeoutSeconds} s for Argo CD or Flux to create the test, then up to ${settings.waitTimeoutSeconds} s for its result.`
    )
    let notFoundLogged = false
    return await step('test', () =>
      waitForTest({
        kc,
        namespace: settings.namespace,
        name: settings.testName,
        signal,
        syncDeadline: committedAt + settings.syncTimeoutSeconds * 1000,
        waitTimeoutMs: settings.waitTimeoutSeconds * 1000,
        // A spec that differs will never prove our version: stop waiting at once.
        isFinal: (test) =>
          verdictOf(test).state !== 'waiting' ||
          specDifferences(manifest.spec, test.spec).length > 0,
        onObserved: (test) => {
          const at = Date.now()
          if (test === null) {
            if (!notFoundLogged)
              core.info(
                `${elapsed(report, at)} The test does not exist yet: waiting for Argo CD or Flux to apply the commit.`
              )
            notFoundLogged = true
            return
          }
          if (sync.endedAt === undefined) {
            sync.endedAt = at
            sync.result = 'succeeded'
            sync.detail = 'the test exists in the cluster'
            report.steps.test.startedAt = at
          }
          const verdict = verdictOf(test)
          if (recordObservation(report, at, observe(test))) {
            const where = verdict.phase
              ? `${verdict.phase}${verdict.reason ? ` / ${verdict.reason}` : ''}`
              : describeWaiting(verdict.state === 'waiting' ? verdict.why : 'no-status')
            core.info(
              `${elapsed(report, at)} ${where}${verdict.message ? `: ${verdict.message}` : ''}`
            )
          }
        }
      })
    )
  } catch (error) {
    if (error instanceof WaitTimeoutError) {
      const last = error.last ? observe(error.last) : null
      if (error.kind === 'sync') {
        sync.result = 'timed out'
        report.steps.test.result = 'not run'
        report.advice =
          'Check that Argo CD or Flux watches the GitOps path and that its sync succeeds (an immutable spec change is a sync error).'
        throw new GateError(
          `The test ${name} did not appear in the cluster within ${settings.syncTimeoutSeconds} s (sync-timeout-seconds) after the commit.`,
          'timed-out'
        )
      }
      report.advice = adviceForWait(last?.reason ?? '')
      throw new GateError(
        `The test ${name} was not final within ${settings.waitTimeoutSeconds} s (wait-timeout-seconds). Last: ${last?.phase || 'no status'}${last?.reason ? ` / ${last.reason}` : ''}${last?.message ? `: ${last.message}` : ''}.`,
        'timed-out'
      )
    }
    throw error
  } finally {
    core.endGroup()
    if (sync.endedAt === undefined) sync.endedAt = Date.now()
  }
}

function recordFailure(report: RunReport, error: unknown, signal: AbortSignal): void {
  const cancelled =
    signal.aborted ||
    error instanceof CancelledError ||
    error instanceof PromotionCancelledError ||
    isAbortError(error)
  if (cancelled) {
    report.outcome = 'cancelled'
    report.error = report.promotionRequested
      ? 'The run was cancelled after a promote request was sent: the tested version may or may not be active. Check the active version of the template.'
      : 'The run was cancelled. Nothing was promoted.'
    return
  }
  if (error instanceof GateError) {
    report.outcome = error.outcome
  } else {
    report.outcome = 'failed'
  }
  if (error instanceof ManifestConflictError)
    report.advice = 'Use a new version name, or remove the old manifest if it is really unused.'
  report.error = messageOf(error)
}

/** The outcome, the annotation and the exit code. */
function finish(report: RunReport, at: number): void {
  for (const record of Object.values(report.steps)) {
    if (record.startedAt !== undefined && record.endedAt === undefined) record.endedAt = at
  }
  if (isSuccess(report.outcome)) {
    core.notice(headline(report), { title: 'Coder template gate' })
    return
  }
  if (report.outcome === null) report.outcome = 'failed'
  if (report.outcome !== 'invalid-input')
    core.error(report.error || headline(report), { title: headline(report) })
  core.setFailed(report.outcome === 'invalid-input' ? report.error : headline(report))
}

function fillFromSettings(report: RunReport, settings: Settings): void {
  report.template = settings.template
  report.namespace = settings.namespace
  report.versionName = settings.version
  report.testName = settings.testName
  report.runUrl = settings.runUrl
  if (settings.versionSource !== 'input') {
    core.info(
      `Version ${settings.version}, derived from the ${settings.versionSource} ${settings.versionRaw !== settings.version ? `"${settings.versionRaw}"` : ''}`.trim()
    )
  }
}

/** Settles with the promise, or rejects when the run is cancelled (after graceMs). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, graceMs = 0): Promise<T> {
  return raceAbort(promise, signal, { graceMs, error: () => new CancelledError('cancelled') })
}

async function activeVersionOf(
  coder: CoderClient,
  organization: string,
  template: string
): Promise<string | null> {
  try {
    return (await coder.template(organization, template))?.active_version_id ?? null
  } catch (error) {
    core.warning(`Could not read the active version of ${template} from Coder: ${messageOf(error)}`)
    return null
  }
}

function elapsed(report: RunReport, at: number): string {
  return `[+${((at - report.startedAt) / 1000).toFixed(1)} s]`
}

function joinPath(folder: string, file: string): string {
  return folder ? `${folder}/${file}` : file
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
