// What every end-to-end file asserts the same way.
import { existsSync } from 'node:fs'
import { afterEach, expect } from '@jest/globals'
import YAML from 'yaml'
import { type ActionRun, BUNDLE } from '../sandbox/action-runner.js'
import {
  GITOPS_PATH,
  GITOPS_REPO,
  OWNER,
  startWorld,
  type World,
  type WorldOptions
} from '../sandbox/world.js'

/**
 * For a test file: the bundle must exist, and the world a test starts is closed after it. Returns
 * the function that starts that world.
 */
export function oneWorldPerTest(): (options?: WorldOptions) => Promise<World> {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run package`)
  let world: World | null = null
  afterEach(async () => {
    await world?.close()
    world = null
  })
  return async (options = {}) => {
    world = await startWorld(options)
    return world
  }
}

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

export function promoteRequests(w: World): number {
  return w.kube.requests.filter((r) => r.method === 'POST' && r.path.includes('/promote')).length
}

export function activeVersionName(w: World, template = 'docker'): string | undefined {
  const found = w.coder.backend.findTemplate(OWNER, template)
  return found ? w.coder.backend.findVersionById(found.activeVersionId)?.name : undefined
}

export function manifestInGit(
  w: World,
  testName: string,
  branch = 'main'
): Record<string, unknown> | null {
  const text = w.github.readFile(OWNER, GITOPS_REPO, branch, `${GITOPS_PATH}/${testName}.yaml`)
  return text === null ? null : YAML.parse(text)
}
