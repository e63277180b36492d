// What every end-to-end file asserts the same way.
import { expect } from '@jest/globals'
import type { ActionRun } from '../sandbox/action-runner.js'
import { GITOPS_PATH, GITOPS_REPO, OWNER, type World } from '../sandbox/world.js'

/** The runner consumes `::add-mask::` commands and never shows them; everything else counts. */
export function expectNoSecrets(w: World, run: ActionRun, requireMasks = true): void {
  const masks = run.stdout.split('\n').filter((line) => line.startsWith('::add-mask::'))
  const shown = run.everything
    .split('\n')
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n')
  for (const secret of w.secrets()) {
    expect(shown).not.toContain(secret)
    if (requireMasks) expect(masks).toContain(`::add-mask::${secret}`)
  }
}

/** The outputs naming version v1.0.0 of docker, its test, and the head commit of the GitOps branch. */
export function testedVersionOutputs(w: World, versionId: string): Record<string, string> {
  return {
    'version-name': 'v1.0.0',
    'version-id': versionId,
    'test-name': 'docker-v1-0-0',
    'manifest-path': `${GITOPS_PATH}/docker-v1-0-0.yaml`,
    'commit-sha': w.github.commits(OWNER, GITOPS_REPO, 'main').at(-1)!.sha
  }
}

/** Asserts a clean success (exit 0, nothing on stderr); returns docker's v1.0.0 as Coder holds it. */
export function expectCleanSuccess(w: World, run: ActionRun) {
  expect(run.stderr).toBe('')
  expect(run.exitCode).toBe(0)
  return w.coder.backend.findVersionByName(OWNER, 'docker', 'v1.0.0')!
}
