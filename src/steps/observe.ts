// Observed state, not memory: the active version read from Coder. The promotion guard reads it right
// before the request; the report reads it at the end of every run for active-version-id (bounded and
// best-effort: a failed read leaves the output empty rather than guessed).
import type { CoderClient } from '../coder/client.js'
import type { VersionFacts } from '../promotion/guard.js'

/** The active version of the template; null when the template does not exist. */
export async function readActiveVersion(
  client: Pick<CoderClient, 'template' | 'versionById'>,
  organization: string,
  template: string
): Promise<VersionFacts | null> {
  const found = await client.template(organization, template)
  if (!found) return null
  const version = await client.versionById(found.active_version_id)
  return {
    id: found.active_version_id,
    name: version?.name ?? '',
    createdAt: version?.created_at
  }
}

/** At the end of a run: the read, or null after a failure or the time limit. Never throws. */
export async function observeActiveVersion(
  client: Pick<CoderClient, 'template' | 'versionById'> | null,
  organization: string,
  template: string,
  timeoutMs = 5_000
): Promise<VersionFacts | null> {
  if (!client || !organization || !template) return null
  let timer: NodeJS.Timeout | undefined
  const limit = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs)
  })
  try {
    return await Promise.race([readActiveVersion(client, organization, template), limit])
  } catch {
    return null
  } finally {
    clearTimeout(timer)
  }
}
