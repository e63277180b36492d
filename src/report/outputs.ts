// The step outputs of action.yml, all strings, set on every path. The edge of the report: an
// unknown fact (undefined in the report) is written as '' here, and nowhere else.
import type { RunReport } from './report.js'
import { testResultsJson } from './test-results.js'

export function outputsOf(report: RunReport): Record<string, string> {
  const { template, test, gitops, verification } = report
  const rollback = verification?.rollback
  return {
    'version-name': template.version.name ?? '',
    'version-id': template.version.id ?? '',
    'test-name': test.name ?? '',
    'manifest-path': gitops.manifestPath ?? '',
    'commit-sha': gitops.landed?.sha ?? '',
    phase: test.phase ?? '',
    reason: test.reason ?? '',
    message: test.message ?? '',
    'promotion-result': report.promotion.result ?? '',
    'previous-active-version-id': template.previousActive?.id ?? '',
    'active-version-id': template.active?.id ?? '',
    'pull-request-number': gitops.pullRequest?.number ?? '',
    'pull-request-url': gitops.pullRequest?.url ?? '',
    'pruned-manifests': gitops.prunedManifests.join(','),
    'archived-versions': report.tidy.archived.join(','),
    'test-results': testResultsJson(report.tests),
    'verification-result': verification?.result ?? '',
    'verified-version-id': verification?.ran?.id ?? '',
    // Only a rollback this run applied.
    'rolled-back-to-version-id': rollback?.outcome === 'applied' ? (rollback.target?.id ?? '') : '',
    'deployment-id': report.deployment?.id ?? '',
    'sync-seconds': test.syncSeconds?.toFixed(1) ?? ''
  }
}

/** Sets each output through the writer the wiring gives (core.setOutput in a real run). */
export function writeOutputs(
  report: RunReport,
  setOutput: (name: string, value: string) => void
): void {
  for (const [name, value] of Object.entries(outputsOf(report))) setOutput(name, value)
}
