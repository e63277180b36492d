// The GitHub sandbox's HTTP-side state: the request log and counters, the faults tests inject,
// the primary rate limit's counter and the secondary limiter. The repositories are in state.ts.
import type { RecordedRequest } from '../contracts.js'
import { DOCS, HttpFailure } from './errors.js'
import type { Router } from './router.js'
import { SecondaryLimiter, type SecondaryLimits } from './secondary-limits.js'
import type { SandboxState } from './state.js'
import type { RateLimitFault } from './types.js'

export interface AfterStoreFault {
  matches: (method: string, path: string) => boolean
  status: number
  /** Answer a 200 with `data: null` and one error with no `type` and this message instead. */
  graphqlTimeout?: string
  /** Only a GraphQL request whose query holds this text (e.g. a mutation's name). */
  query?: string
  /** Answer before handling: nothing is stored. */
  beforeStoring?: boolean
}

/**
 * GitHub's GraphQL timeout: an HTTP 200, `data: null`, and one error with no `type`. guess: the
 * text as reported in community discussions (e.g. https://github.com/orgs/community/discussions/24631).
 */
export const GRAPHQL_TIMEOUT_MESSAGE =
  'Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug. Please include `A1B2:3C4D:5E6F` when reporting this issue.'

export class HttpState {
  readonly requests: RecordedRequest[] = []
  readonly counts = new Map<string, number>()
  readonly requestListeners = new Set<(method: string, path: string, body: string) => void>()
  readonly serverErrorFaults: number[] = []
  readonly afterStoreFaults: AfterStoreFault[] = []
  readonly rateLimitFaults: RateLimitFault[] = []
  readonly limiter: SecondaryLimiter | undefined
  requestsToHang = 0
  apiCalls = 0
  /** The origin, set once the server listens. */
  base = ''

  constructor(
    readonly state: SandboxState,
    readonly router: Router,
    secondaryLimits: Partial<SecondaryLimits> | undefined
  ) {
    this.limiter = secondaryLimits && new SecondaryLimiter(secondaryLimits)
  }

  rateHeaders(): Record<string, string> {
    const used = Math.min(this.apiCalls, 5000)
    return {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(5000 - used),
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-used': String(used),
      'x-ratelimit-resource': 'core'
    }
  }

  rateLimitFailure(fault: RateLimitFault): HttpFailure {
    const status = fault.status ?? 403
    const seconds = fault.seconds ?? 1
    if ((fault.kind ?? 'primary') === 'secondary') {
      // The text GitHub sends for secondary limits; plugin-throttling matches /\bsecondary rate\b/i.
      return new HttpFailure(
        status,
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        DOCS.secondary,
        { ...this.rateHeaders(), 'retry-after': String(seconds) }
      )
    }
    // Primary limit: remaining 0 and the reset time in epoch seconds (what the plugin reads).
    const reset = Math.floor(Date.now() / 1000) + seconds
    return new HttpFailure(
      status,
      'API rate limit exceeded for installation ID 4242.',
      DOCS.rateLimit,
      {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset),
        'x-ratelimit-used': '5000',
        'x-ratelimit-resource': 'core'
      }
    )
  }
}
