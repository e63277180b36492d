// The set-up of every end-to-end file: one sandbox world per test, closed after it.
import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { afterEach } from '@jest/globals'
import { BUNDLE } from '../sandbox/action-runner.js'
import { startWorld, type World, type WorldOptions } from '../sandbox/world.js'

/** Starts a world for one test (closed after it). */
export interface WorldPerTest {
  (options?: WorldOptions): Promise<World>
  /** The world most cases start from: the template docker, its version v0.9.0 active. */
  withDocker(options?: WorldOptions): Promise<World>
}

/**
 * For a test file: the bundle must exist, and the world a test starts is closed after it. Returns
 * the function that starts that world.
 */
export function oneWorldPerTest(): WorldPerTest {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run package`)
  let world: World | null = null
  afterEach(async () => {
    await world?.close()
    world = null
  })
  const start = async (options: WorldOptions = {}) => {
    world = await startWorld(options)
    return world
  }
  const withDocker = async (options: WorldOptions = {}) => {
    const w = await start(options)
    w.coder.seedTemplate({ name: 'docker', versionName: 'v0.9.0' })
    return w
  }
  return Object.assign(start, { withDocker })
}

/**
 * Run options that do `act` once, when the run's stdout first shows `text` (a cancel, an outage, a
 * merge at the moment the gate waits); `firedAt` is when it did, 0 while it has not.
 */
export function whenLogged(text: string, act: (child: ChildProcess) => void) {
  const options = {
    firedAt: 0,
    onStdout: (stdout: string, child: ChildProcess) => {
      if (options.firedAt || !stdout.includes(text)) return
      options.firedAt = Date.now()
      act(child)
    }
  }
  return options
}
