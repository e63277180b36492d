// The template version list's pagination and the archive rules of coderd, as the Coder sandbox
// serves them (coder/coder coderd/templateversions.go: a plain array; `after_id`, `limit`, `offset`,
// `include_archived`; archiving the active version or one in use answers 500).

export interface PagedVersion {
  id: string
  createdAt: string
  archived: boolean
}

export class PageError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

/**
 * One page of the list. guess: coderd orders by created_at, then id, both ascending, and after_id
 * starts after that row; limit 0 (or none) means no limit.
 */
export function versionPage<T extends PagedVersion>(all: T[], query: URLSearchParams): T[] {
  const includeArchived = query.get('include_archived') === 'true'
  const ordered = all
    .filter((v) => includeArchived || !v.archived)
    .sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1
    )
  const limit = Number(query.get('limit') ?? '0')
  const offset = Number(query.get('offset') ?? '0')
  if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(offset) || offset < 0) {
    throw new PageError(400, 'Query parameters have invalid values.')
  }
  let start = 0
  const afterId = query.get('after_id')
  if (afterId) {
    const index = ordered.findIndex((v) => v.id === afterId)
    // An after_id that does not exist answers 400 (guess: this message).
    if (index < 0) throw new PageError(400, `Record at "after_id" (${afterId}) does not exist.`)
    start = index + 1
  }
  start += offset
  return ordered.slice(start, limit > 0 ? start + limit : undefined)
}

/** Why coderd does not archive a version, or null when it does. */
export function archiveRefusal(
  version: PagedVersion,
  activeVersionId: string,
  inUse: boolean
): PageError | null {
  // guess: the message; only the status codes were read in coderd.
  if (version.archived) return new PageError(400, 'Template version is already archived.')
  if (version.id === activeVersionId || inUse) {
    return new PageError(500, 'Internal error archiving template version.')
  }
  return null
}
