// The step outputs of interface.md, all strings, set on every path.
import * as core from '@actions/core'
import type { RunReport } from './report.js'

export function outputsOf(report: RunReport): Record<string, string> {
  return {
    'version-name': report.versionName,
    'version-id': report.versionId,
    'test-name': report.testName,
    'manifest-path': report.manifestPath,
    'commit-sha': report.commitSha,
    phase: report.phase,
    reason: report.reason,
    message: report.message,
    'promotion-result': report.promotionResult,
    'previous-active-version-id': report.previousActiveVersionId,
    'active-version-id': report.activeVersionId,
    'pull-request-number': report.pullRequestNumber,
    'pull-request-url': report.pullRequestUrl,
    'pruned-manifests': report.prunedManifests.join(','),
    'archived-versions': report.archivedVersions.join(',')
  }
}

export function writeOutputs(report: RunReport): void {
  for (const [name, value] of Object.entries(outputsOf(report))) core.setOutput(name, value)
}
