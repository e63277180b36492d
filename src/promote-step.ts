// The promote step: one request per attempt, decided by the pure table in promotion.ts, with a
// re-read of the active version before any retry after an unclear answer (coder-k8s-api.md §2.4).
// The I/O is injected so that the loop runs unchanged against any API server.
import {
  decideAfterReread,
  decideAnswer,
  MAX_PROMOTE_ATTEMPTS,
  type NextStep,
  type Promoted,
  type PromoteAnswer,
  type PromoteRequestMode,
  retryDelayMs
} from './promotion.js'

export interface PromoteStepInput {
  namespace: string
  /** `<org>.<template>`, canonical. */
  template: string
  /** The verified status.templateVersionID of the test that passed. */
  versionID: string
  /** The active version before the first request ('' when unknown). */
  previousActiveVersionID: string
  mode: PromoteRequestMode
  signal: AbortSignal
  post: () => Promise<PromoteAnswer>
  readActiveVersionID: () => Promise<string | null>
  log: (line: string) => void
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
  maxAttempts?: number
}

export class PromotionCancelledError extends Error {
  override name = 'PromotionCancelledError'
}

export class PromotionFailedError extends Error {
  override name = 'PromotionFailedError'
}

export async function runPromotion(input: PromoteStepInput): Promise<Promoted> {
  const sleep = input.sleep ?? abortableSleep
  const maxAttempts = input.maxAttempts ?? MAX_PROMOTE_ATTEMPTS
  let lastWhy = ''
  let reRead = false
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) await sleep(retryDelayMs(attempt - 1), input.signal)
    // Never start a promotion after a cancel (action-ecosystem.md §5.4).
    if (input.signal.aborted)
      throw new PromotionCancelledError(
        'The run was cancelled before the promotion; nothing was promoted.'
      )

    let next: NextStep
    if (reRead) {
      next = decideAfterReread(
        await safeRead(input),
        input.versionID,
        input.previousActiveVersionID,
        input.mode,
        lastWhy
      )
    } else {
      const answer = await input.post()
      input.log(
        `Attempt ${attempt}: HTTP ${answer.httpStatus || 'no answer'}${answer.message ? `: ${answer.message}` : ''}`
      )
      next = decideAnswer(answer, input.versionID, input.mode, input.template, input.namespace)
      if (next.kind === 're-read') {
        input.log(`Reading the active version before anything else (${next.why}).`)
        next = decideAfterReread(
          await safeRead(input),
          input.versionID,
          input.previousActiveVersionID,
          input.mode,
          next.why
        )
      }
    }
    switch (next.kind) {
      case 'promoted':
        return next
      case 'fail':
        throw new PromotionFailedError(next.message)
      case 'retry':
        reRead = false
        lastWhy = next.why
        input.log(`Will try again: ${next.why}`)
        break
      case 're-read':
        reRead = true
        lastWhy = next.why
        input.log(`Will read the active version again: ${next.why}`)
        break
    }
  }
  throw new PromotionFailedError(
    `The promotion did not complete after ${maxAttempts} attempts (last: ${lastWhy}). Nothing else was changed by this run; check the coder-k8s aggregated API server and try again.`
  )
}

async function safeRead(input: PromoteStepInput): Promise<string | null> {
  try {
    return await input.readActiveVersionID()
  } catch (error) {
    if (input.signal.aborted) throw error
    input.log(
      `Could not read the active version: ${error instanceof Error ? error.message : String(error)}`
    )
    return null
  }
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted)
      return reject(new PromotionCancelledError('The run was cancelled; nothing was promoted.'))
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(new PromotionCancelledError('The run was cancelled; nothing was promoted.'))
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
