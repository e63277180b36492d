// The aggregated API aggregation.coder.com/v1alpha1, served live from CoderBackend:
// codertemplates (get), codertemplateversions (get, list) and codertemplates/{name}/promote.
// Facts: https://github.com/coder/coder-k8s/blob/main/docs/reference/aggregated-api-behavior.md
// (templates, versions, promote: processing order, results, errors, confirmation table, budgets).
// Objects: aggregated-objects.ts; promote checks and answers: promote-checks.ts; faults and
// time budgets: promote-faults.ts.
import { CoderBackendError } from '../contracts.js'
import type { CoderBackend, SandboxTemplate, SandboxVersion } from '../contracts.js'
import { TEMPLATES, VERSIONS } from './aggregated-objects.js'
import { templateObject, versionObject } from './aggregated-objects.js'
import {
  checkPromotable,
  couldNotConfirm,
  isTemplateName,
  notAttempted,
  promoteAnswer,
  promoteDeadline,
  promoteDryRun,
  promoteVersionID,
  superseded
} from './promote-checks.js'
import type { PromoteAnswer } from './promote-checks.js'
import type { PromoteFault, PromoteTiming } from './promote-faults.js'
import { apiError, badRequest, forbidden, notFound, serviceUnavailable } from './status.js'
import { listVersions } from './aggregated-versions.js'

export { ORG_LABEL, TEMPLATES, TEMPLATE_LABEL, VERSIONS } from './aggregated-objects.js'
export { parseDuration } from './promote-checks.js'
export { REAL_PROMOTE_TIMING } from './promote-faults.js'
export type { PromoteFault, PromoteTiming } from './promote-faults.js'

export interface AggregatedOptions {
  coder: CoderBackend
  faults: PromoteFault[]
  /** User name in the Forbidden message of the `forbidden` fault. */
  user: string
  timing: PromoteTiming
}

export interface Answer {
  status: number
  body: unknown
}

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export class AggregatedApi {
  constructor(private readonly options: AggregatedOptions) {}

  private get coder(): CoderBackend {
    return this.options.coder
  }

  /** Canonical names only; aliases and wrong casing → 400 with a hint; missing → 404. */
  lookupTemplate(name: string, resource = TEMPLATES, notFoundName = name): SandboxTemplate {
    if (!isTemplateName(name))
      // guess: the text after the colon
      throw badRequest(`invalid template name "${name}": expected "<organization>.<template>"`)
    const [org, template] = name.split('.')
    const defaultOrg = this.coder.defaultOrganizationName()
    if (org === 'default' && defaultOrg !== 'default')
      // guess: wording around the documented hint
      throw badRequest(
        `invalid template name "${name}": "default" is an alias; use the canonical organization name "${defaultOrg}"`
      )
    const found =
      this.coder.findTemplate(org, template) ??
      this.coder.findTemplate(org.toLowerCase(), template.toLowerCase())
    if (!found) throw notFound(resource, notFoundName)
    const canonical = `${found.organizationName}.${found.name}`
    if (canonical !== name)
      throw badRequest(`invalid template name "${name}": use the canonical name "${canonical}"`)
    return found
  }

  templateObject(namespace: string, template: SandboxTemplate): unknown {
    return templateObject(namespace, template)
  }

  getTemplate(namespace: string, name: string): Answer {
    return { status: 200, body: this.templateObject(namespace, this.lookupTemplate(name)) }
  }

  versionObject(namespace: string, template: SandboxTemplate, version: SandboxVersion): unknown {
    return versionObject(namespace, template, version)
  }

  /** `<org>.<template>.<version>`; the first two dots split, the version keeps more dots. */
  getVersion(namespace: string, name: string): Answer {
    const first = name.indexOf('.')
    const second = first < 0 ? -1 : name.indexOf('.', first + 1)
    const versionName = second < 0 ? '' : name.slice(second + 1)
    if (
      second < 0 ||
      !versionName ||
      /[/\\?#%\s\p{Cc}]/u.test(name) ||
      ['.', '..'].includes(versionName)
    )
      throw badRequest(
        `invalid template version name "${name}": expected "<organization>.<template>.<version>"`
      )
    const template = this.lookupTemplate(name.slice(0, second), VERSIONS, name)
    const version = this.coder.findVersionByName(
      template.organizationName,
      template.name,
      versionName
    )
    // Version names are case-sensitive: wrong case is 404.
    if (!version || version.name !== versionName) throw notFound(VERSIONS, name)
    return { status: 200, body: this.versionObject(namespace, template, version) }
  }

  listVersions(namespace: string, query: URLSearchParams): Answer {
    return listVersions(this.coder, namespace, query)
  }

  /** One promote request, with the next fault (if any). */
  async promote(
    namespace: string,
    name: string,
    rawBody: string,
    query: URLSearchParams,
    receivedAt: number
  ): Promise<Answer> {
    const fault = this.options.faults.shift()
    try {
      return await this.promoteWith(fault, namespace, name, rawBody, query, receivedAt)
    } finally {
      fault?.afterAnswer?.()
      // unref: a world closed while the answer waits must not keep the process alive.
      if (fault?.kind === 'slow-answer')
        await new Promise<void>((resolve) => setTimeout(resolve, fault.ms).unref())
    }
  }

  /** The processing order, results, errors and confirmation table. */
  private async promoteWith(
    fault: PromoteFault | undefined,
    namespace: string,
    name: string,
    rawBody: string,
    query: URLSearchParams,
    receivedAt: number
  ): Promise<Answer> {
    if (fault?.kind === 'apiserver-unavailable') throw serviceUnavailable()
    const timing = this.options.timing
    const deadline = promoteDeadline(timing, query, receivedAt)

    // 1. SubjectAccessReview. The sandbox's RBAC (rbac.ts) already authorized the request as
    // kube-apiserver does before proxying; the aggregated server's own review gives the same
    // answer, so only the fault can deny here.
    if (fault?.kind === 'forbidden')
      throw forbidden(
        TEMPLATES,
        name,
        this.options.user,
        'create',
        'codertemplates/promote',
        namespace
      )
    const dryRun = promoteDryRun(query, name)

    // 2. Name and body checks (400), versionID UUID check (422).
    const versionID = promoteVersionID(name, rawBody)

    // 3. Org and template lookups.
    if (fault?.kind === 'delay') await wait(fault.ms)
    const template = this.lookupTemplate(name)

    // 4. Version lookup.
    checkPromotable(this.coder.findVersionById(versionID), template, versionID, name)

    // 5. Already active, or dry-run.
    const previous = template.activeVersionId
    const answer = promoteAnswer(namespace, name, versionID)
    if (previous === versionID) return answer('AlreadyActive', versionID, versionID)
    if (dryRun) return answer('WouldPromote', previous, previous)

    // 6. Enough time left for the patch and the re-read?
    const left = deadline - Date.now()
    if (fault?.kind === '504-not-attempted' || left < timing.patchBudgetMs + timing.rereadReserveMs)
      throw notAttempted(versionID, name)

    // 7. One activation, never retried.
    const activation = this.activate(fault, template, previous, versionID, name)

    // 8. One re-read, then the confirmation table.
    return this.confirm(fault, template, { activation, previous, versionID, name, answer })
  }

  /** One activation, never retried, or the fault's stand-in for it. */
  private activate(
    fault: PromoteFault | undefined,
    template: SandboxTemplate,
    previous: string,
    versionID: string,
    name: string
  ): Activation {
    if (fault?.kind === 'status') return this.coderRefusal(fault.code, versionID, name)
    if (fault?.kind === 'activation-unclear') {
      if (fault.activeAfter === 'requested') this.coder.activate(template.id, versionID)
      if (fault.activeAfter === 'third')
        this.coder.activate(template.id, this.thirdVersion(template, previous, versionID))
      return 'unclear'
    }
    let activation: Activation
    try {
      this.coder.activate(template.id, versionID)
      activation = 'success'
    } catch (error) {
      if (!(error instanceof CoderBackendError)) activation = 'unclear'
      else activation = this.coderRefusal(error.status, versionID, name)
    }
    if (activation === 'success' && fault?.kind === 'superseded-after-success')
      this.coder.activate(template.id, this.thirdVersion(template, previous, versionID))
    return activation
  }

  /** One re-read, then the confirmation table. */
  private confirm(
    fault: PromoteFault | undefined,
    template: SandboxTemplate,
    promotion: Promotion
  ): Answer {
    const { activation, previous, versionID, name, answer } = promotion
    if (fault?.kind === 'reread-fails') throw couldNotConfirm(versionID, name)
    const reread = this.coder.findTemplate(template.organizationName, template.name)
    if (!reread) throw couldNotConfirm(versionID, name)
    const active = reread.activeVersionId
    if (active === versionID) return answer('Promoted', previous, versionID)
    if (activation === 'unclear' && active === previous) throw couldNotConfirm(versionID, name)
    throw superseded(versionID, active)
  }

  /** Maps Coder's answer to the PATCH (the documented error table); 5xx has no clear answer. */
  private coderRefusal(code: number, versionID: string, name: string): 'unclear' {
    if (code >= 500) return 'unclear'
    if (code === 429)
      throw apiError(
        429,
        'TooManyRequests',
        'Coder rate-limited the activation; nothing was changed'
      )
    if (code === 404)
      throw apiError(
        409,
        'Conflict',
        `the template or version ${versionID} was not found in Coder during the activation; nothing was changed: re-read before retrying`
      )
    throw badRequest(
      `Coder refused to activate version ${versionID} on template "${name}" (status ${code}); nothing was changed: check that its import succeeded and that it is not archived`
    )
  }

  /** Another promotable version of the template, neither the previous nor the requested one. */
  private thirdVersion(template: SandboxTemplate, previous: string, requested: string): string {
    const third = this.coder
      .listVersions(template.organizationName, template.name)
      .find(
        (v) => v.id !== previous && v.id !== requested && v.jobStatus === 'succeeded' && !v.archived
      )
    if (!third)
      throw apiError(
        500,
        'InternalError',
        'sandbox fault needs a third promotable version of the template, and there is none'
      )
    return third.id
  }
}

type Activation = 'success' | 'unclear'

interface Promotion {
  activation: Activation
  previous: string
  versionID: string
  name: string
  answer: PromoteAnswer
}
