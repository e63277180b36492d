// The promote step: one request per attempt, decided by the pure table in promotion.ts, with a
// re-read of the active version before any retry after an unclear answer (answer.ts cites why),
// and the promotion guard again before every re-send (README, "Promotion guard"): another
// writer may activate a version during the pause, and the gate never overwrites it.
// The I/O is injected so that the loop runs unchanged against any API server.
import {
  type GuardDecision,
  type PromotionGuardInput,
  guardPromotion,
  type VersionFacts
} from './guard.js'
import {
  decideAfterReread,
  decideAnswer,
  MAX_PROMOTE_ATTEMPTS,
  type NextStep,
  type Promoted,
  type PromoteAnswer,
  type PromoteRequestMode,
  retryDelayMs
} from './answer.js'
import { type Sleep, sleep as systemSleep } from '../timing/sleep.js'

export interface PromoteStepInput {
  namespace: string
  /** `<org>.<template>`, canonical. */
  template: string
  /** The verified status.templateVersionID of the test that passed. */
  versionID: string
  /** The active version before the first request (the promote step reads it first). */
  previousActiveVersionID: string
  request: PromoteRequestMode
  signal: AbortSignal
  post: () => Promise<PromoteAnswer>
  readActiveVersionID: () => Promise<string | null>
  /** The guard's facts but the active version, which is read again before every re-send. */
  guard: Omit<PromotionGuardInput, 'active'>
  /** The active version with its name, from Coder (null: the template is gone). */
  readActiveVersion: () => Promise<VersionFacts | null>
  log: (line: string) => void
  /** Called right before each promote request is sent. */
  onRequest?: () => void
  /** The pause between attempts (src/timing/sleep.ts); tests give a fake clock's. */
  sleep?: Sleep
  maxAttempts?: number
}

export class PromotionCancelledError extends Error {
  override name = 'PromotionCancelledError'
}

export class PromotionFailedError extends Error {
  override name = 'PromotionFailedError'
}

/** The guard, read again before a re-send, refused: nothing more is sent. */
export class PromotionRefusedError extends Error {
  override name = 'PromotionRefusedError'
  constructor(readonly decision: Extract<GuardDecision, { kind: 'refused' }>) {
    super(decision.message)
  }
}

/** Never start a promotion after a cancel. */
function throwIfCancelled(signal: AbortSignal, outcomeUnknown: boolean): void {
  if (!signal.aborted) return
  throw new PromotionCancelledError(
    outcomeUnknown
      ? 'The run was cancelled after a promote request without a clear answer: the tested version may or may not be active.'
      : 'The run was cancelled before the promotion; nothing was promoted.'
  )
}

export async function runPromotion(input: PromoteStepInput): Promise<Promoted> {
  const sleep = input.sleep ?? systemSleep
  const maxAttempts = input.maxAttempts ?? MAX_PROMOTE_ATTEMPTS
  const reRead = (
    after: { why: string; retryIfUnchanged: boolean },
    read: string | null
  ): NextStep =>
    decideAfterReread(read, input.versionID, input.previousActiveVersionID, input.request, after)
  let pending: { why: string; retryIfUnchanged: boolean } | null = null
  let lastWhy = ''
  // Whether a request may have reached Coder without a clear answer: then the version may be active.
  let outcomeUnknown = false
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) await pauseBefore(attempt, sleep, input.signal, outcomeUnknown)
    throwIfCancelled(input.signal, outcomeUnknown)

    let next: NextStep
    if (pending) {
      next = await readAgain(input, pending)
    } else {
      if (attempt > 1) {
        const before = await guardBeforeResend(input, outcomeUnknown, lastWhy)
        if (before === 'unread') continue // never a re-send the guard did not allow
        if (before.kind === 'promoted') return before
        throwIfCancelled(input.signal, outcomeUnknown)
      }
      next = await sendOnce(input, attempt)
      if (next.kind === 're-read') {
        outcomeUnknown = true
        input.log(`Reading the active version before anything else (${next.why}).`)
        const read = await safeRead(input)
        refuseThirdVersion(input, read)
        next = reRead(next, read)
      }
    }
    switch (next.kind) {
      case 'promoted':
        return next
      case 'fail':
        throw new PromotionFailedError(next.message)
      case 'retry':
        pending = null
        lastWhy = next.why
        input.log(`Will try again: ${next.why}`)
        break
      case 're-read':
        pending = { why: next.why, retryIfUnchanged: next.retryIfUnchanged }
        lastWhy = next.why
        input.log(`Will read the active version again: ${next.why}`)
        break
    }
  }
  throw new PromotionFailedError(
    `The promotion did not complete after ${maxAttempts} attempts (last: ${lastWhy}). ` +
      (outcomeUnknown
        ? 'A request had no clear answer, so the tested version may or may not be active: check the active version of the template before running again.'
        : 'Nothing was changed in Coder; check the coder-k8s aggregated API server and run again.')
  )
}

/** The backoff before `attempt`; a cancel during it rejects as what it means for the promotion. */
async function pauseBefore(
  attempt: number,
  sleep: Sleep,
  signal: AbortSignal,
  outcomeUnknown: boolean
): Promise<void> {
  try {
    await sleep(retryDelayMs(attempt - 1), signal)
  } catch (error) {
    throwIfCancelled(signal, outcomeUnknown)
    throw error
  }
}

/** One promote request and the table's decision on its answer. */
async function sendOnce(input: PromoteStepInput, attempt: number): Promise<NextStep> {
  input.onRequest?.()
  const answer = await input.post()
  input.log(
    `Attempt ${attempt}: HTTP ${answer.httpStatus || 'no answer'}${answer.message ? `: ${answer.message}` : ''}`
  )
  return decideAnswer(answer, input.versionID, input.request, input.template, input.namespace)
}

/**
 * Before a re-send: the active version read from Coder, judged by the guard as right before the
 * first request. Ours: done (Promoted only when an earlier request may have applied it). 'unread':
 * the guard cannot decide, so nothing is sent this attempt. Throws PromotionRefusedError.
 */
async function guardBeforeResend(
  input: PromoteStepInput,
  outcomeUnknown: boolean,
  after: string
): Promise<Promoted | { kind: 'send' } | 'unread'> {
  let active: VersionFacts | null
  try {
    active = await input.readActiveVersion()
  } catch (error) {
    if (input.signal.aborted) throw error
    input.log(`Could not read the active version before sending again: ${messageOf(error)}`)
    return 'unread'
  }
  if (active === null) {
    input.log('Could not read the active version before sending again: the template was not found.')
    return 'unread'
  }
  refuseThirdVersion(input, active.id, active)
  const decision = guardPromotion({ ...input.guard, active })
  if (decision.kind === 'refused') {
    const message = `${decision.message} (read before sending the promote again, after ${after})`
    throw new PromotionRefusedError({ ...decision, message })
  }
  if (decision.kind === 'promote') return { kind: 'send' }
  const applied = outcomeUnknown && input.request === 'promote'
  input.log(`Version ${active.id} is active already; nothing more is sent.`)
  return {
    kind: 'promoted',
    result: applied ? 'Promoted' : 'AlreadyActive',
    previousActiveVersionID: input.previousActiveVersionID,
    activeVersionID: active.id,
    confirmedBy: 're-read'
  }
}

/** A re-read after one that failed: a third version active there is refused like on any read. */
async function readAgain(
  input: PromoteStepInput,
  pending: { why: string; retryIfUnchanged: boolean }
): Promise<NextStep> {
  const read = await safeRead(input)
  refuseThirdVersion(input, read)
  const { versionID, previousActiveVersionID, request: mode } = input
  return decideAfterReread(read, versionID, previousActiveVersionID, mode, pending)
}

/**
 * Any read in the loop (the re-read after an unclear answer, a later re-read, the read before a
 * re-send) that finds a version active which is neither ours nor the one active before the first
 * request: another writer acted, and the run is Refused with the same text whichever read saw it.
 * The text names the version by ID only, because the aggregated API's read gives no name.
 */
function refuseThirdVersion(
  input: PromoteStepInput,
  read: string | null,
  facts?: VersionFacts
): void {
  const previous = input.previousActiveVersionID
  if (read === null || previous === '' || read === input.versionID || read === previous) return
  const { ours } = input.guard
  throw new PromotionRefusedError({
    kind: 'refused',
    why: 'changed',
    active: facts ?? { id: read, name: '' },
    message: `Another writer activated version ${read} while this run promoted ${ours.name} (${input.versionID}); the version active before the promote request was ${previous}. The gate never overwrites another writer: decide which version should be active, and promote it again.`
  })
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

async function safeRead(input: PromoteStepInput): Promise<string | null> {
  try {
    return await input.readActiveVersionID()
  } catch (error) {
    if (input.signal.aborted) throw error
    input.log(`Could not read the active version: ${messageOf(error)}`)
    return null
  }
}
