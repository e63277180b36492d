// The promote job's locate step in-process, on the in-memory Git host: with test-presets, the
// top-level manifest and manifest-path are the same test's (the first, as the commit step gives
// them), never the manifest of one preset test under the path of another.
import { describe, expect, it } from '@jest/globals'
import type { CoderClient, CoderTemplateVersion } from '../../../src/coder/client.js'
import { withVersionMarker } from '../../../src/coder/version-identity.js'
import { commitManifest } from '../../../src/steps/commit.js'
import { locateTested } from '../../../src/steps/locate.js'
import { planPresetTests } from '../../../src/steps/presets.js'
import { MemoryGitHost } from '../../gitops/memory/host.js'
import { commitInput, settingsFor, stepContext } from './step-world.js'

const PRESETS = [
  { Name: 'small', Parameters: [{ Name: 'cpu', Value: '2' }] },
  { Name: 'large', Parameters: [{ Name: 'cpu', Value: '16' }] }
]

/** Coder as the locate step reads it: this commit's version v2 and its two presets. */
function coderWith(version: CoderTemplateVersion): CoderClient {
  return {
    versionByName: async () => version,
    versionById: async () => version,
    request: async () => PRESETS
  } as unknown as CoderClient
}

describe('locate step, test-presets', () => {
  it('the top-level manifest and its path come from the same (first) test', async () => {
    const settings = settingsFor({ mode: 'promote', 'test-presets': 'all' })
    const version = {
      id: 'version-2',
      name: 'v2',
      template_id: 'template-1',
      message: withVersionMarker('release', settings.coder.commitSha, settings.runUrl),
      job: { status: 'succeeded' },
      archived: false,
      created_at: '2026-12-01T00:00:00Z'
    } as unknown as CoderTemplateVersion
    const coder = coderWith(version)
    const host = new MemoryGitHost()
    const { context } = stepContext()
    const pushed = { versionId: version.id, versionName: 'v2' }
    const plan = await planPresetTests({ test: settings.test, pushed, client: coder }, context)
    if (!plan.ok) throw new Error(plan.failure.message)
    const committed = await commitManifest(
      { ...commitInput(host, settings), plan: plan.value.tests },
      context
    )
    expect(committed.ok).toBe(true)
    const preflight = { organization: 'acme', template: 'docker', branch: 'main' }
    const located = await locateTested(
      { settings, preflight: { ...preflight, startingActive: null }, coder, host },
      context
    )
    if (!located.ok) throw new Error(located.failure.message)
    const { tests, manifest, manifestPath } = located.value
    expect(tests.map((t) => t.preset)).toEqual(['large', 'small'])
    expect(manifestPath).toBe(tests[0]!.manifestPath)
    expect(manifest).toEqual(tests[0]!.manifest)
    expect(manifest.metadata.name).toBe(tests[0]!.name)
  })
})
