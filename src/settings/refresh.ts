// The gitops-refresh input: a newline list of `argocd:<namespace>/<application>` or
// `flux:<namespace>/<kustomization>`, the GitOps engine objects that the gate asks to reconcile as
// soon as the change is on gitops-branch. Pure.
import type { InputReader } from './rules.js'
import { dnsLabelProblem, dnsSubdomainProblem } from './naming.js'
import type { InputName, RefreshTarget } from './settings.js'

export const REFRESH_TARGETS_MAX = 20
const ENGINES = ['argocd', 'flux'] as const

/** The rule one entry breaks, or the target it names. */
export function refreshTargetOf(entry: string): RefreshTarget | string {
  const match = /^([a-z]+):([^/\s]*)\/([^/\s]*)$/.exec(entry)
  if (!match)
    return `"${entry}" must be "argocd:<namespace>/<application>" or "flux:<namespace>/<kustomization>"`
  const [, engine = '', namespace = '', name = ''] = match
  if (!(ENGINES as readonly string[]).includes(engine))
    return `"${entry}" names the engine "${engine}"; it must be "argocd" or "flux"`
  const namespaceProblem = dnsLabelProblem(namespace)
  if (namespaceProblem) return `"${entry}": the namespace ${namespaceProblem}`
  // Application and Kustomization names are object names: DNS-1123 subdomains.
  const nameProblem = dnsSubdomainProblem(name)
  if (nameProblem) return `"${entry}": the name ${nameProblem}`
  return { engine: engine as RefreshTarget['engine'], namespace, name }
}

export function parseRefreshTargets(reader: InputReader<InputName>): RefreshTarget[] {
  const targets: RefreshTarget[] = []
  const seen = new Set<string>()
  const lines = reader
    .raw('gitops-refresh')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
  if (lines.length > REFRESH_TARGETS_MAX)
    reader.fail('gitops-refresh', `at most ${REFRESH_TARGETS_MAX} entries (got ${lines.length})`)
  for (const line of lines) {
    const target = refreshTargetOf(line)
    if (typeof target === 'string') reader.fail('gitops-refresh', target)
    else if (seen.has(line)) reader.fail('gitops-refresh', `"${line}" is given twice`)
    else {
      seen.add(line)
      targets.push(target)
    }
  }
  return targets
}
