// GitHub's secondary rate limits as the sandbox enforces them, per sandbox (one token in a world).
// Numbers and answers from "Rate limits for the REST API"
// (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api, "About secondary
// rate limits" and "Exceeding the rate limit"):
// - "No more than 100 concurrent requests are allowed. This limit is shared across the REST API and
//   GraphQL API."
// - "In general, no more than 80 content-generating requests per minute and no more than 500
//   content-generating requests per hour are allowed."
//   "Content creation limits include actions taken on GitHub in the web interface as well as via the
//   REST API and GraphQL API." So a mutation (createCommitOnBranch among them) counts as one.
// - "If you exceed a secondary rate limit, you will receive a 403 or 429 response and an error
//   message that indicates that you exceeded a secondary rate limit. If the retry-after response
//   header is present, you should not retry your request until after that many seconds has elapsed.
//   If the x-ratelimit-remaining header is 0, you should not retry your request until after the
//   time, in UTC epoch seconds, specified by the x-ratelimit-reset header."
// Not modelled: the 900 points per minute per endpoint, the CPU-time limit, undisclosed limits.

export interface SecondaryLimits {
  /** Content-generating requests per minute; GitHub: 80. */
  contentPerMinute: number
  /** Content-generating requests per hour; GitHub: 500. */
  contentPerHour: number
  /** Requests in flight at once; GitHub: 100. */
  concurrent: number
  /** The refusal's status; GitHub sends 403 or 429. Default 403. */
  status: 403 | 429
  /**
   * How the refusal says when to retry: `retry-after` seconds, or `x-ratelimit-remaining: 0` with
   * `x-ratelimit-reset` (epoch seconds). Default retry-after.
   */
  answer: 'retry-after' | 'reset'
  /**
   * Milliseconds of one second of the limits' clock (windows and the wait asked for). Default 1000;
   * a bench or a test scales time with it (and the client's delayUnitMs to match).
   */
  secondMs: number
  /**
   * Milliseconds the client waits per second it is told (retry-after, or reset minus now). Default
   * secondMs: a client whose delay unit is scaled to match. 1000 for a client that is not, such as
   * the shipped bundle, so that a scaled window still asks it for a scaled wait.
   */
  clientSecondMs?: number
}

export const GITHUB_SECONDARY_LIMITS: SecondaryLimits = {
  contentPerMinute: 80,
  contentPerHour: 500,
  concurrent: 100,
  status: 403,
  answer: 'retry-after',
  secondMs: 1000
}

export interface SecondaryRefusal {
  status: 403 | 429
  message: string
  headers: Record<string, string>
  limit: 'concurrent' | 'content-per-minute' | 'content-per-hour'
}

export interface SecondaryLimitStats {
  contentAccepted: number
  refusedConcurrent: number
  refusedContent: number
  /** Most content-generating requests accepted in any sliding minute (of the limits' clock). */
  peakContentPerMinute: number
  peakConcurrent: number
}

/**
 * guess: which requests generate content is not listed; here every POST, PATCH, PUT and DELETE,
 * except a GraphQL POST without a mutation (a query creates nothing).
 */
export function isContentGenerating(method: string, path: string, body: string): boolean {
  if (!['POST', 'PATCH', 'PUT', 'DELETE'].includes(method)) return false
  if (/\/graphql$/.test(path)) return /\bmutation\b/.test(body)
  return true
}

export class SecondaryLimiter {
  private readonly limits: SecondaryLimits
  private inFlight = 0
  /** Acceptance times (ms) of content-generating requests within the last hour. */
  private readonly created: number[] = []
  readonly stats: SecondaryLimitStats = {
    contentAccepted: 0,
    refusedConcurrent: 0,
    refusedContent: 0,
    peakContentPerMinute: 0,
    peakConcurrent: 0
  }

  constructor(
    limits: Partial<SecondaryLimits> = {},
    private readonly now: () => number = Date.now
  ) {
    this.limits = { ...GITHUB_SECONDARY_LIMITS, ...limits }
  }

  /** A request arrives: a refusal, or undefined and `leave` is owed when its answer ends. */
  enter(method: string, path: string, body: string): SecondaryRefusal | undefined {
    const at = this.now()
    const { secondMs, concurrent } = this.limits
    if (this.inFlight >= concurrent) {
      this.stats.refusedConcurrent++
      // guess: GitHub names no wait for the concurrency limit; one second of the limits' clock.
      return this.refusal('concurrent', at + secondMs)
    }
    if (isContentGenerating(method, path, body)) {
      const freeAt = this.contentFreeAt(at)
      if (freeAt !== undefined) {
        this.stats.refusedContent++
        const limit = this.inMinute(at) >= this.limits.contentPerMinute ? 'minute' : 'hour'
        return this.refusal(`content-per-${limit}`, freeAt)
      }
      this.created.push(at)
      this.stats.contentAccepted++
      this.stats.peakContentPerMinute = Math.max(this.stats.peakContentPerMinute, this.inMinute(at))
    }
    this.inFlight++
    this.stats.peakConcurrent = Math.max(this.stats.peakConcurrent, this.inFlight)
    return undefined
  }

  leave(): void {
    this.inFlight = Math.max(0, this.inFlight - 1)
  }

  private inMinute(at: number): number {
    const from = at - 60 * this.limits.secondMs
    return this.created.filter((t) => t > from).length
  }

  /** undefined: room for one more; else when the window that is full has room again. */
  private contentFreeAt(at: number): number | undefined {
    const minute = 60 * this.limits.secondMs
    const hour = 3600 * this.limits.secondMs
    while (this.created.length > 0 && this.created[0]! <= at - hour) this.created.shift()
    const inHour = this.created
    const inMinute = inHour.filter((t) => t > at - minute)
    if (inHour.length >= this.limits.contentPerHour)
      return inHour[inHour.length - this.limits.contentPerHour]! + hour
    if (inMinute.length >= this.limits.contentPerMinute)
      return inMinute[inMinute.length - this.limits.contentPerMinute]! + minute
    return undefined
  }

  private refusal(limit: SecondaryRefusal['limit'], freeAt: number): SecondaryRefusal {
    const { secondMs, status, answer } = this.limits
    const clientSecondMs = this.limits.clientSecondMs ?? secondMs
    const seconds = Math.max(1, Math.ceil((freeAt - this.now()) / clientSecondMs))
    // The text GitHub sends; plugin-throttling matches /\bsecondary rate\b/i.
    const message =
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'
    if (answer === 'retry-after')
      return { status, message, limit, headers: { 'retry-after': String(seconds) } }
    // Now plus the wait in the client's seconds: a client that scales its delay unit to
    // clientSecondMs (plugin-throttling: (reset - now) s × retryAfterBaseValue) waits until freeAt.
    const reset = Math.floor(Date.now() / 1000) + seconds
    return {
      status,
      message,
      limit,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) }
    }
  }
}
