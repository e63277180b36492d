// The links of the report. Each one is built from parts, every part from an input or another system
// is percent-encoded as one path segment, and a link is only ever http(s); the summary HTML-escapes
// the whole URL once more in its href. An unknown part gives no link, never a guessed one.

/** The URL without trailing slashes when it is http(s) without credentials; '' otherwise. */
export function webBase(url: string): string {
  try {
    const parsed = new URL(url)
    if (!/^https?:$/.test(parsed.protocol) || parsed.username || parsed.password) return ''
    return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '')
  } catch {
    return ''
  }
}

function segments(...parts: string[]): string {
  return parts.map((part) => encodeURIComponent(part)).join('/')
}

/**
 * A template version in the Coder dashboard: /templates/<org>/<template>/versions/<version>.
 * guess: Coder's dashboard route since organizations (v2.16); older dashboards
 * route /templates/<template>/versions/<version>.
 */
export function coderVersionUrl(
  coderUrl: string,
  organization: string,
  template: string,
  version: string
): string {
  const base = webBase(coderUrl)
  if (!base || !organization || !template || !version) return ''
  return `${base}/templates/${segments(organization, template)}/versions/${segments(version)}`
}

/** A commit on GitHub: <server>/<owner>/<repo>/commit/<sha>. */
export function commitUrlOf(server: string, owner: string, repo: string, sha: string): string {
  const base = webBase(server)
  if (!base || !owner || !repo || !/^[0-9a-f]{7,64}$/i.test(sha)) return ''
  return `${base}/${segments(owner, repo)}/commit/${sha}`
}

/** The web server of a pull request URL (<server>/<owner>/<repo>/pull/<n>); '' otherwise. */
export function serverOfPullRequest(pullRequestUrl: string): string {
  return /^(.+)\/[^/]+\/[^/]+\/pull\/\d+$/.exec(webBase(pullRequestUrl))?.[1] ?? ''
}

export interface RunRef {
  serverUrl: string
  /** GITHUB_REPOSITORY: owner/repo. */
  repository: string
  runId: string
  runAttempt: string
}

/** The workflow run: <server>/<owner>/<repo>/actions/runs/<id>[/attempts/<n>]; '' when unknown. */
export function runUrlOf(run: RunRef): string {
  const base = webBase(run.serverUrl || 'https://github.com')
  const [owner = '', repo = '', ...rest] = run.repository.split('/')
  if (!base || !owner || !repo || rest.length > 0 || !/^\d+$/.test(run.runId)) return ''
  const attempt = /^[1-9]\d*$/.test(run.runAttempt) ? `/attempts/${run.runAttempt}` : ''
  return `${base}/${segments(owner, repo)}/actions/runs/${run.runId}${attempt}`
}

/** How the summary names the run link. */
export function runLabelOf(run: RunRef): string {
  const attempt = /^[1-9]\d*$/.test(run.runAttempt) ? `, attempt ${run.runAttempt}` : ''
  return `${run.repository} run ${run.runId}${attempt}`
}

/** The section of docs/troubleshooting.md for a failure kind, in the action's own repository. */
export function troubleshootingUrlOf(
  kind: string,
  action: { serverUrl?: string; repository?: string; ref?: string }
): string {
  const [owner = '', repo = '', ...rest] = (action.repository ?? '').split('/')
  const base = webBase(action.serverUrl || 'https://github.com')
  if (!base || !owner || !repo || rest.length > 0) return ''
  const ref = segments(...(action.ref || 'main').split('/'))
  return `${base}/${segments(owner, repo)}/blob/${ref}/docs/troubleshooting.md#${encodeURIComponent(kind)}`
}
