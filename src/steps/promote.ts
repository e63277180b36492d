// Step 6, promote: exactly the version that was tested, through the codertemplates/promote
// subresource, behind the promotion guard (README): the active version is read again right
// before the request. Safe to run twice: our version active already is AlreadyActive, no request.
import type { KubeConfig } from '@kubernetes/client-node'
import type { PromotionResult } from '../objects/coder-k8s.js'
import type { CoderClient } from '../coder/client.js'
import { postPromotion, readActiveVersionID } from '../kube/promote-request.js'
import { PromotionRefusedError, type PromoteStepInput, runPromotion } from '../promotion/retry.js'
import { type GuardDecision, guardPromotion, type VersionFacts } from '../promotion/guard.js'
import type { PromoteChoice } from '../settings/settings.js'
import { readActiveVersion } from './observe.js'
import {
  failed,
  type FactSink,
  messageOf,
  skipped,
  type StepContext,
  type StepResult,
  succeeded
} from './step.js'

export interface Promotion {
  result: PromotionResult | 'Skipped'
  confirmedBy: 'answer' | 're-read' | ''
}

export interface PromoteFacts {
  /** A promote request was sent: a cancel or a failure after it leaves the outcome unknown. */
  requestSent: boolean
  /** The guard refused: the version active at that moment. */
  refused?: VersionFacts
}

export interface PromoteInput {
  promote: PromoteChoice
  allowRollback: boolean
  namespace: string
  organization: string
  template: string
  /** The version that passed, with status.templateVersionID of the test as its ID. */
  tested: VersionFacts
  starting: VersionFacts | null
  /** `starting` is expected-active-version-id (mode: promote): the guard's refusal says so. */
  startingIsExpected?: boolean
  coder: CoderClient
  kc: KubeConfig
}

export async function promoteTested(
  input: PromoteInput,
  context: StepContext & Partial<FactSink<PromoteFacts>>
): Promise<StepResult<Promotion, PromoteFacts>> {
  if (input.promote === 'skip')
    return skipped({ result: 'Skipped', confirmedBy: '' }, 'promote: false')
  const facts: PromoteFacts = { requestSent: false }
  const active = await readActiveVersion(input.coder, input.organization, input.template).catch(
    (error: unknown) => messageOf(error)
  )
  if (active === null || typeof active === 'string') return activeUnreadable(input, active, facts)
  const decision = guardPromotion({
    ours: input.tested,
    starting: input.starting,
    active,
    allowRollback: input.allowRollback,
    startingIsExpected: input.startingIsExpected ?? false
  })
  if (decision.kind === 'already-active') {
    return succeeded(
      { result: 'AlreadyActive', confirmedBy: 're-read' },
      `${input.tested.name} is already active; no request`
    )
  }
  if (decision.kind === 'refused') return guardRefused(decision, facts)
  // A cancel before the first request ends in runPromotion, which checks before every send.
  return sendPromotion(input, active, facts, context)
}

/** The guard cannot decide without the active version: nothing is sent. */
function activeUnreadable(
  input: PromoteInput,
  readError: string | null,
  facts: PromoteFacts
): StepResult<never, PromoteFacts> {
  return failed(
    'promote-failed',
    `The active version of ${input.organization}.${input.template} could not be read right before the promotion${typeof readError === 'string' ? `: ${readError}` : ''}. Nothing was promoted.`,
    {
      facts,
      advice: ['Run the job again: the test stays, and a re-run promotes without a new test.']
    }
  )
}

function guardRefused(
  decision: Extract<GuardDecision, { kind: 'refused' }>,
  facts: PromoteFacts
): StepResult<never, PromoteFacts> {
  return failed('refused', decision.message, {
    status: 'refused',
    facts: { ...facts, refused: decision.active },
    advice: [
      decision.why === 'rollback'
        ? 'Set allow-rollback: true to activate an older version on purpose.'
        : 'Decide which version should be active; run the gate again to promote this one after that.'
    ]
  })
}

/** The I/O of runPromotion: the promote request and both reads, through the run's signal. */
function promotionIO(
  input: PromoteInput,
  target: string,
  dryRun: boolean,
  signal: AbortSignal
): Pick<PromoteStepInput, 'post' | 'readActiveVersionID' | 'readActiveVersion'> {
  const { kc, namespace } = input
  return {
    post: () =>
      postPromotion({
        kc,
        namespace,
        template: target,
        versionID: input.tested.id,
        dryRun,
        signal
      }),
    readActiveVersionID: () => readActiveVersionID({ kc, namespace, template: target, signal }),
    readActiveVersion: () => readActiveVersion(input.coder, input.organization, input.template)
  }
}

/**
 * The promote request through runPromotion; facts.requestSent records whether it went out, and is
 * published before the request, so that a cancel that cuts the step keeps it (journal.ts).
 */
async function sendPromotion(
  input: PromoteInput,
  active: VersionFacts,
  facts: PromoteFacts,
  context: StepContext & Partial<FactSink<PromoteFacts>>
): Promise<StepResult<Promotion, PromoteFacts>> {
  const mode = input.promote === 'dry-run' ? 'dry-run' : 'promote'
  const target = `${input.organization}.${input.template}`
  try {
    const promoted = await runPromotion({
      namespace: input.namespace,
      template: target,
      versionID: input.tested.id,
      previousActiveVersionID: active.id,
      request: mode,
      signal: context.signal,
      ...promotionIO(input, target, mode === 'dry-run', context.signal),
      guard: {
        ours: input.tested,
        starting: input.starting,
        allowRollback: input.allowRollback,
        startingIsExpected: input.startingIsExpected ?? false
      },
      log: context.log.info,
      onRequest: () => {
        facts.requestSent = true
        context.publish?.({ ...facts })
      },
      ...(context.sleep ? { sleep: context.sleep } : {})
    })
    const how =
      promoted.confirmedBy === 're-read' ? ' (confirmed by a re-read of the active version)' : ''
    return succeeded(
      { result: promoted.result, confirmedBy: promoted.confirmedBy },
      `${promoted.result}${how}`
    )
  } catch (error) {
    if (context.signal.aborted) throw error
    if (error instanceof PromotionRefusedError) return guardRefused(error.decision, facts)
    return failed('promote-failed', messageOf(error), {
      facts,
      advice: facts.requestSent
        ? ['Check the active version of the template in Coder before running again.']
        : [
            'Check the coder-k8s aggregated API server, then run the job again: the test stays and is reused.'
          ]
    })
  }
}
