// Start-up of two bundles (spawn -> first request), interleaved in one world; the size of dist/.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { World } from '../world.js'
import { BUNDLE, inputEnv } from '../action-runner.js'
import { STARTUP_RUNS } from './config.js'
import { fail, sleep, withWorld } from './runs.js'

/** Spawn of `bundle` -> first request to any sandbox server; the child is killed right after. */
async function startupOf(world: World, bundle: string, temp: string): Promise<number> {
  const count = (): number =>
    world.coder.requests.length + world.kube.requests.length + world.github.requests.length
  const firstNew = (before: [number, number, number]): number | undefined =>
    [world.coder.requests, world.kube.requests, world.github.requests]
      .map((list, i) => list[before[i]!]?.at)
      .filter((at): at is number => at !== undefined)
      .sort((a, b) => a - b)[0]
  const before: [number, number, number] = [
    world.coder.requests.length,
    world.kube.requests.length,
    world.github.requests.length
  ]
  const context = world.context()
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: temp,
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: context.eventName,
    GITHUB_EVENT_PATH: path.join(temp, 'event.json'),
    GITHUB_REF: context.ref,
    GITHUB_SHA: context.sha,
    GITHUB_REPOSITORY: context.repository,
    GITHUB_API_URL: context.apiUrl,
    GITHUB_RUN_ID: '1',
    GITHUB_WORKSPACE: context.workspace,
    GITHUB_OUTPUT: path.join(temp, 'output.txt'),
    GITHUB_STEP_SUMMARY: path.join(temp, 'summary.md'),
    RUNNER_TEMP: path.join(temp, 'runner-temp'),
    RUNNER_TOOL_CACHE: path.join(temp, 'tool-cache'),
    ...inputEnv(world.inputs({ version: 'v9.0.0' }))
  }
  const spawnedAt = Date.now()
  const child = spawn(process.execPath, [bundle], { cwd: context.workspace, env, stdio: 'ignore' })
  const closed = new Promise((resolve) => child.on('close', resolve))
  const giveUpAt = spawnedAt + 30_000
  while (count() === before.reduce((a, b) => a + b) && Date.now() < giveUpAt) await sleep(1)
  child.kill('SIGKILL')
  await closed
  return (firstNew(before) ?? fail('start-up', `${bundle} made no request`)) - spawnedAt
}

export async function startupPairs(
  compareBundle: string
): Promise<{ current: number[]; compared: number[] }> {
  const temp = mkdtempSync(path.join(os.tmpdir(), 'gate-bench-startup-'))
  for (const dir of ['runner-temp', 'tool-cache']) mkdirSync(path.join(temp, dir))
  for (const file of ['output.txt', 'summary.md']) writeFileSync(path.join(temp, file), '')
  writeFileSync(path.join(temp, 'event.json'), '{}')
  const current: number[] = []
  const compared: number[] = []
  await withWorld({ noSync: true }, async (world) => {
    for (let i = 0; i < STARTUP_RUNS; i++) {
      // Alternate which goes first, so neither always meets a warmer cache.
      const order = i % 2 === 0 ? ['current', 'compared'] : ['compared', 'current']
      for (const which of order) {
        if (which === 'current') current.push(await startupOf(world, BUNDLE, temp))
        else if (compareBundle) compared.push(await startupOf(world, compareBundle, temp))
      }
    }
  })
  return { current, compared }
}

export function bundleBytes(bundle: string): number {
  const dir = path.dirname(bundle)
  return readdirSync(dir)
    .filter((file) => statSync(path.join(dir, file)).isFile())
    .reduce((sum, file) => sum + statSync(path.join(dir, file)).size, 0)
}
