// A template's version list and the archive request (keep-versions, archive-failed). The list is
// a plain array with cursor pagination by `after_id` and `limit`; archiving has no body, and coderd
// answers 500 for the active version or one a workspace uses (coder/coder coderd/templateversions.go).
import { CoderApiError, type CoderClient, type CoderTemplateVersion } from './client.js'

export const VERSION_PAGE_SIZE = 100
/** 100 pages of 100: a bound on the list, so that a server that never ends a page cannot loop. */
const MAX_VERSION_PAGES = 100

/** Every version of the template (archived ones too if asked), following the pages to the end. */
export async function listTemplateVersions(
  client: CoderClient,
  templateId: string,
  pageSize = VERSION_PAGE_SIZE,
  includeArchived = false
): Promise<CoderTemplateVersion[]> {
  const all: CoderTemplateVersion[] = []
  let afterId = ''
  for (let page = 0; page < MAX_VERSION_PAGES; page++) {
    const query = new URLSearchParams({ limit: String(pageSize) })
    if (afterId) query.set('after_id', afterId)
    if (includeArchived) query.set('include_archived', 'true')
    const answer = await client.request<unknown>(
      'GET',
      `/api/v2/templates/${encodeURIComponent(templateId)}/versions?${query.toString()}`
    )
    if (!Array.isArray(answer)) {
      throw new Error(
        `Coder listed the versions of template ${templateId} as something else than a list`
      )
    }
    const versions = answer as CoderTemplateVersion[]
    all.push(...versions)
    if (versions.length < pageSize) return all
    afterId = versions[versions.length - 1].id
  }
  throw new Error(
    `Coder listed more than ${MAX_VERSION_PAGES * pageSize} versions of template ${templateId}; the list was not read to its end`
  )
}

export type ArchiveAnswer =
  | { archived: true }
  | { archived: false; why: 'refused' | 'already-archived' | 'gone'; note: string }

/**
 * Archives one version. A refusal is an answer, not an error: 500 (in use or active; guess: coderd
 * says which only in its message), 400 (already archived), 404 (gone). Anything else throws.
 */
export async function archiveVersion(
  client: CoderClient,
  versionId: string
): Promise<ArchiveAnswer> {
  try {
    await client.request<unknown>(
      'POST',
      `/api/v2/templateversions/${encodeURIComponent(versionId)}/archive`
    )
    return { archived: true }
  } catch (error) {
    if (!(error instanceof CoderApiError)) throw error
    const said = error.coderMessage || `HTTP ${error.status}`
    if (error.status === 500)
      return { archived: false, why: 'refused', note: `Coder refused: ${said}` }
    if (error.status === 400)
      return { archived: false, why: 'already-archived', note: `Coder refused: ${said}` }
    if (error.status === 404)
      return { archived: false, why: 'gone', note: 'the version no longer exists' }
    throw error
  }
}
