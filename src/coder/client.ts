// Coder REST client: the few reads the gate needs (https://coder.com/docs/reference/api/templates).
// Errors say what failed and what to check; they never contain the session token.
import { backoff } from '../timing/backoff.js'
import { type Sleep, sleep } from '../timing/sleep.js'
import { serverVersionProblem } from './server-version.js'
import type {
  CoderBuildInfo,
  CoderOrganization,
  CoderTemplate,
  CoderTemplateVersion,
  CoderUser
} from './types.js'

export type * from './types.js'

interface CoderErrorBody {
  message?: string
  detail?: string
  validations?: { field: string; detail: string }[]
}

/** A Coder API answer other than 2xx, or no answer at all (`status` 0). */
export class CoderApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly coderMessage: string,
    readonly detail: string,
    readonly validations: { field: string; detail: string }[] = []
  ) {
    super(message)
    this.name = 'CoderApiError'
  }
}

export interface CoderClientOptions {
  url: string
  token: string
  /** Aborts every request of this client (the action's cancel). */
  signal?: AbortSignal
  /** Per attempt. Default 30 s. */
  timeoutMs?: number
  /** Retries of a GET after 429, 5xx or a network error. Default 3. */
  retries?: number
  /** First backoff; doubles per retry, capped at 10 s. Default 1 s. */
  retryDelayMs?: number
  /** The pause between retries (src/timing/sleep.ts); tests give a fake clock's. */
  sleep?: Sleep
}

const JOB_ACTIVE = new Set(['pending', 'running', 'canceling'])

export function isJobActive(status: string): boolean {
  return JOB_ACTIVE.has(status)
}

export class CoderClient {
  readonly url: string
  private readonly token: string
  private readonly signal?: AbortSignal
  private readonly timeoutMs: number
  private readonly retries: number
  private readonly retryDelayMs: number
  private readonly sleep: Sleep

  constructor(options: CoderClientOptions) {
    this.url = options.url.replace(/\/+$/, '')
    this.token = options.token
    this.signal = options.signal
    this.timeoutMs = options.timeoutMs ?? 30_000
    this.retries = options.retries ?? 3
    this.retryDelayMs = options.retryDelayMs ?? 1_000
    this.sleep = options.sleep ?? sleep
  }

  /** No auth needed (https://coder.com/docs/reference/api/general). */
  async buildInfo(): Promise<CoderBuildInfo> {
    const info = await this.request<CoderBuildInfo>('GET', '/api/v2/buildinfo')
    if (typeof info?.version !== 'string' || info.version === '') {
      throw new Error(`Coder at ${this.url} answered /api/v2/buildinfo without a version`)
    }
    // The version names a tool-cache directory and reaches the log: refused unless release-shaped.
    const problem = serverVersionProblem(info.version)
    if (problem) throw new Error(`Coder at ${this.url} answered /api/v2/buildinfo, but ${problem}`)
    return info
  }

  /** The token's user: a cheap check that coder-token works (GET /api/v2/users/me). */
  async me(): Promise<CoderUser> {
    return this.request<CoderUser>('GET', '/api/v2/users/me')
  }

  /** `''` means the deployment's default organization; the answer carries its canonical `name`. */
  async organization(nameOrAlias: string): Promise<CoderOrganization> {
    const ref = nameOrAlias.trim() === '' ? 'default' : nameOrAlias.trim()
    try {
      return await this.request<CoderOrganization>('GET', `/api/v2/organizations/${seg(ref)}`)
    } catch (error) {
      if (error instanceof CoderApiError && error.status === 404) {
        throw new CoderApiError(
          `Coder organization "${ref}" not found at ${this.url} (${error.coderMessage || 'HTTP 404'}). ` +
            'Check the organization input: it takes an organization name or ID, or empty for the default organization.',
          404,
          error.method,
          error.path,
          error.coderMessage,
          error.detail
        )
      }
      throw error
    }
  }

  /** Case-insensitive lookup by name; null when absent or not readable. */
  async template(organization: string, name: string): Promise<CoderTemplate | null> {
    return this.orNull(
      this.request<CoderTemplate>(
        'GET',
        `/api/v2/organizations/${seg(organization)}/templates/${seg(name)}`
      )
    )
  }

  /** Case-sensitive lookup by version name; null on 404. */
  async versionByName(
    organization: string,
    template: string,
    version: string
  ): Promise<CoderTemplateVersion | null> {
    return this.orNull(
      this.request<CoderTemplateVersion>(
        'GET',
        `/api/v2/organizations/${seg(organization)}/templates/${seg(template)}/versions/${seg(version)}`
      )
    )
  }

  async versionById(id: string): Promise<CoderTemplateVersion | null> {
    return this.orNull(
      this.request<CoderTemplateVersion>('GET', `/api/v2/templateversions/${seg(id)}`)
    )
  }

  private async orNull<T>(answer: Promise<T>): Promise<T | null> {
    try {
      return await answer
    } catch (error) {
      if (error instanceof CoderApiError && error.status === 404) return null
      throw error
    }
  }

  /** One request with this client's retries and errors; for the modules beside it (versions.ts). */
  async request<T>(method: string, path: string): Promise<T> {
    const retryable = method === 'GET'
    for (let attempt = 0; ; attempt++) {
      this.signal?.throwIfAborted()
      const timeout = AbortSignal.timeout(this.timeoutMs)
      const signal = this.signal ? AbortSignal.any([this.signal, timeout]) : timeout
      let response: Response
      try {
        response = await fetch(`${this.url}${path}`, {
          method,
          headers: { 'Coder-Session-Token': this.token, Accept: 'application/json' },
          signal
        })
      } catch (error) {
        if (this.signal?.aborted) throw this.signal.reason
        const reason = timeout.aborted
          ? `no answer within ${this.timeoutMs} ms`
          : describeNetworkError(error)
        if (retryable && attempt < this.retries) {
          await this.backoff(attempt)
          continue
        }
        throw new CoderApiError(
          `Coder API ${method} ${path} failed: ${reason}. Check that coder-url (${this.url}) is reachable from the runner.`,
          0,
          method,
          path,
          '',
          reason
        )
      }
      const text = await response.text()
      if (response.ok) {
        try {
          return JSON.parse(text) as T
        } catch {
          throw new CoderApiError(
            `Coder API ${method} ${path} answered ${response.status} with a body that is not JSON. Check that coder-url (${this.url}) points to a Coder deployment.`,
            response.status,
            method,
            path,
            '',
            ''
          )
        }
      }
      const status = response.status
      if (retryable && (status === 429 || status >= 500) && attempt < this.retries) {
        await this.backoff(attempt, response.headers.get('retry-after'))
        continue
      }
      throw this.apiError(method, path, status, text)
    }
  }

  private apiError(method: string, path: string, status: number, text: string): CoderApiError {
    let body: CoderErrorBody = {}
    try {
      const parsed: unknown = JSON.parse(text)
      if (parsed && typeof parsed === 'object') body = parsed as CoderErrorBody
    } catch {
      // not JSON (a proxy page, for example): the status alone must do
    }
    const coderMessage = typeof body.message === 'string' ? body.message : ''
    const detail = typeof body.detail === 'string' ? body.detail : ''
    const validations = Array.isArray(body.validations) ? body.validations : []
    let summary = `Coder API ${method} ${path} failed: HTTP ${status}`
    if (coderMessage) summary += `: ${coderMessage}`
    if (detail) summary += ` (${detail})`
    for (const v of validations) summary += `; ${v.field}: ${v.detail}`
    if (status === 401)
      summary += '. Check the coder-token input: the token is missing, wrong or expired.'
    if (status === 403) summary += '. The token needs the Template Admin or Owner role.'
    return new CoderApiError(
      this.redact(summary),
      status,
      method,
      path,
      this.redact(coderMessage),
      this.redact(detail),
      validations
    )
  }

  /** Belt and braces: an echo of the token by a proxy must not reach a log. */
  private redact(text: string): string {
    return this.token ? text.split(this.token).join('***') : text
  }

  private async backoff(attempt: number, retryAfter?: string | null): Promise<void> {
    const fromHeader = retryAfter ? Number(retryAfter) * 1000 : NaN
    const delay = Number.isFinite(fromHeader)
      ? Math.min(fromHeader, 30_000)
      : backoff({ attempt: attempt + 1, initialMs: this.retryDelayMs, maxMs: 10_000 })
    await this.sleep(delay, this.signal)
  }
}

function seg(value: string): string {
  return encodeURIComponent(value)
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause
    return cause?.code ?? cause?.message ?? error.message
  }
  return String(error)
}
