// mode: verify, the last step (docs/how-to/live.md): decide from the version
// the live test ran (status.templateVersionID) and a final read of the active version, then, when
// the version that failed is still active and rollback-to names a target, roll back through the
// promote subresource behind the guard. A cancel never rolls back: the promotion sends nothing
// after a cancel (src/promotion/retry.ts).
import type { KubeConfig } from '@kubernetes/client-node'
import type { CoderClient, CoderTemplateVersion } from '../coder/client.js'
import type { VersionFacts } from '../promotion/guard.js'
import type { PromoteChoice } from '../settings/settings.js'
import {
  chooseRollbackTarget,
  decideLive,
  type LiveDecision,
  type LiveVersion,
  type RollbackCandidate,
  shownVersion,
  type VerificationResult
} from '../verdict/live.js'
import { verdictOf } from '../verdict/verdict.js'
import { readActiveVersion } from './observe.js'
import { promoteTested } from './promote.js'
import {
  type FactSink,
  failed,
  messageOf,
  type StepContext,
  type StepResult,
  succeeded
} from './step.js'
import type { Tested } from './wait.js'
import { isUuid } from '../coder/version-identity.js'

export interface Rollback {
  /**
   * applied: this run promoted the target; already-active: the target was active when this run
   * looked (who made it so is not known), so nothing was sent; would-apply: promote: dry-run, the
   * guard and a dry-run request; skipped: promote: false, nothing sent at all; refused: the guard;
   * impossible: no target; failed: the request failed; sent: the request went out and a cancel
   * cut the step before its answer (it may have been applied).
   */
  outcome:
    | 'applied'
    | 'already-active'
    | 'would-apply'
    | 'skipped'
    | 'refused'
    | 'impossible'
    | 'failed'
    | 'sent'
  target?: LiveVersion
  /** Why it was refused or impossible, or how the guard let it through. */
  detail: string
}

/** The detail of `already-active`: an observed fact, never a claim about who applied it. */
export const ALREADY_ACTIVE =
  'the rollback target is already active; this run sent no promote request'

export interface Verification {
  result: VerificationResult
  /** The version the live test ran (status.templateVersionID and name). */
  ran: LiveVersion
  /** The active version when the run started; absent when unknown. */
  starting?: LiveVersion
  /** The active version read at the end; absent when that read failed. */
  ending?: LiveVersion
  /** Inconclusive: why. */
  why?: string
  rollback?: Rollback
}

export interface VerifyInput {
  organization: string
  template: string
  namespace: string
  starting: VersionFacts | null
  tested: Tested
  /** rollback-to: '' = never. */
  rollbackTo: string
  promote: PromoteChoice
  coder: CoderClient
  kc: KubeConfig
  /** rollback-to: previous: the version ID the newest successful deployment names, other than `failed`. */
  recordedPrevious?: (failedId: string) => Promise<string>
}

/** A cancel that cuts the step after the rollback request went out keeps that fact (journal.ts). */
type VerifyContext = StepContext & Partial<FactSink<Verification>>

export async function verifyLive(
  input: VerifyInput,
  context: VerifyContext
): Promise<StepResult<Verification, Verification>> {
  const status = input.tested.test.status ?? {}
  const ran = { id: input.tested.versionId, name: String(status.templateVersionName ?? '') }
  const passed = verdictOf(input.tested.test).state === 'passed'
  // A failed read leaves the end unknown; null (no template) cannot be after the preflight.
  const ending = await readActiveVersion(input.coder, input.organization, input.template).catch(
    () => undefined
  )
  const starting = input.starting ? { id: input.starting.id, name: input.starting.name } : undefined
  const base = { ran, starting, ending: ending ? { id: ending.id, name: ending.name } : undefined }
  const decision = decideLive({ passed, ...base })
  const what = `${input.organization}.${input.template} ${ran.name || '(unnamed)'} (${ran.id})`
  if (decision.result === 'Passed')
    return succeeded({ result: 'Passed', ...base }, `Passed: ${what} is live and works`)
  if (decision.result === 'Inconclusive')
    return inconclusive({ ...base, why: decision.why }, context)
  const choice = decision.rollback && input.rollbackTo ? await targetOf(input, ran, context) : null
  const onSent = (target: LiveVersion): void =>
    context.publish?.({
      result: 'Failed',
      ...base,
      rollback: { outcome: 'sent', target, detail: 'the run was cancelled before its answer' }
    })
  const rollback = await rollbackAfter(decision, choice, input, ran, { ...context, onSent })
  // The guard's read found the target active: another writer made it live, not this run.
  if (rollback?.outcome === 'already-active')
    return inconclusive(
      {
        ...base,
        why: `the test of ${shownVersion(ran)} failed, and the rollback target ${shownVersion(rollback.target)} became active meanwhile, not by this run`,
        rollback
      },
      context
    )
  return failedLive(input, what, {
    result: rollback?.outcome === 'applied' ? 'RolledBack' : 'Failed',
    ...base,
    ...(rollback ? { rollback } : {})
  })
}

function inconclusive(
  verification: Omit<Verification, 'result'> & { why: string },
  context: StepContext
): StepResult<Verification, never> {
  context.log.warning(`The live verification is inconclusive: ${verification.why}.`)
  return succeeded({ result: 'Inconclusive', ...verification }, `Inconclusive: ${verification.why}`)
}

/** What became of the rollback after a Failed decision; undefined: none asked. */
async function rollbackAfter(
  decision: Extract<LiveDecision, { result: 'Failed' }>,
  choice: Choice | null,
  input: VerifyInput,
  ran: LiveVersion,
  context: StepContext & { onSent: (target: LiveVersion) => void }
): Promise<Rollback | undefined> {
  if (decision.note) return { outcome: 'impossible', detail: decision.note }
  if (choice === null) return undefined
  if (!choice.ok)
    return { outcome: 'failed' in choice ? 'failed' : 'impossible', detail: choice.reason }
  return rollBack(input, ran, choice.target, context)
}

const versionOf = (v: { id: string; name: string }): LiveVersion => ({ id: v.id, name: v.name })

function failedLive(
  input: VerifyInput,
  what: string,
  verification: Verification
): StepResult<never, Verification> {
  const status = input.tested.test.status ?? {}
  const { rollback, ran } = verification
  const reason = `${status.reason ?? 'no reason'}: ${String(status.message ?? 'no message').replace(/\.$/, '')}`
  const after =
    rollback?.outcome === 'applied'
      ? ` It was rolled back to ${rollback.target?.name} (${rollback.target?.id}).`
      : rollback
        ? ` No rollback: ${rollback.detail}.`
        : ' rollback-to is empty: nothing was rolled back.'
  return failed('test-failed', `The live version ${what} failed its test: ${reason}.${after}`, {
    facts: verification,
    advice:
      rollback?.outcome === 'applied'
        ? [`Fix the template, then release a new version; ${ran.name} stays in Coder.`]
        : [
            'Fix the template and release a new version, or promote a version that works (rollback-to).'
          ]
  })
}

type Choice = ReturnType<typeof chooseRollbackTarget> | { ok: false; reason: string; failed: true }

async function targetOf(
  input: VerifyInput,
  ran: LiveVersion,
  context: StepContext
): Promise<Choice> {
  try {
    return await findTarget(input, ran)
  } catch (error) {
    if (context.signal.aborted) throw error
    return {
      ok: false,
      failed: true,
      reason: `the rollback target could not be read: ${messageOf(error)}`
    }
  }
}

/** The rollback: the promote step with the failed version as the guard's starting point. */
async function rollBack(
  input: VerifyInput,
  failedVersion: LiveVersion,
  chosen: RollbackCandidate,
  context: StepContext & { onSent: (target: LiveVersion) => void }
): Promise<Rollback> {
  const target = versionOf(chosen)
  // promote: false sends nothing, not even a dry run.
  if (input.promote === 'skip')
    return { outcome: 'skipped', target, detail: 'promote: false, nothing sent' }
  const promoted = await promoteTested(
    {
      promote: input.promote,
      // A rollback is older on purpose; the guard still refuses unless the failed version is active.
      allowRollback: true,
      namespace: input.namespace,
      organization: input.organization,
      template: input.template,
      tested: { ...target, createdAt: chosen.createdAt },
      starting: failedVersion,
      coder: input.coder,
      kc: input.kc
    },
    {
      signal: context.signal,
      log: context.log,
      now: context.now,
      sleep: context.sleep,
      // promoteTested publishes requestSent right before the request goes out.
      publish: (facts) => {
        if (facts.requestSent) context.onSent(target)
      }
    }
  )
  if (promoted.ok) {
    const result = promoted.value.result
    if (result === 'Promoted')
      return { outcome: 'applied', target, detail: `guard: ${failedVersion.name} was still active` }
    if (result === 'WouldPromote')
      return { outcome: 'would-apply', target, detail: 'promote: dry-run, a dry-run request only' }
    // AlreadyActive: the guard's read found the target active, so nothing was sent.
    return { outcome: 'already-active', target, detail: ALREADY_ACTIVE }
  }
  const refused = promoted.facts?.refused
  if (refused)
    return {
      outcome: 'refused',
      target,
      detail: `the active version is ${refused.name || '(unnamed)'} (${refused.id}) now, no longer the version that failed (${failedVersion.name}); the gate never overwrites another writer`
    }
  return { outcome: 'failed', target, detail: promoted.failure.message }
}

async function findTarget(input: VerifyInput, failedVersion: LiveVersion): Promise<Choice> {
  const { coder, organization, template, rollbackTo } = input
  const found = await coder.template(organization, template)
  const templateId = found?.id ?? ''
  let recordedId = ''
  let version: CoderTemplateVersion | null = null
  if (rollbackTo === 'previous') {
    recordedId = input.recordedPrevious ? await input.recordedPrevious(failedVersion.id) : ''
    if (recordedId) version = await coder.versionById(recordedId)
  } else if (isUuid(rollbackTo)) {
    version = await coder.versionById(rollbackTo)
  } else {
    version = await coder.versionByName(organization, template, rollbackTo)
  }
  return chooseRollbackTarget({
    wanted: rollbackTo,
    found: version ? candidateOf(version) : null,
    recordedId,
    templateId,
    failed: failedVersion
  })
}

function candidateOf(version: CoderTemplateVersion): RollbackCandidate {
  return {
    id: version.id,
    name: version.name,
    templateId: version.template_id,
    archived: version.archived === true,
    jobStatus: version.job?.status ?? '',
    createdAt: version.created_at
  }
}
