// Entry point of the bundle. SIGINT and SIGTERM abort one AbortController that every wait and
// request listens to; the runner sends SIGTERM 7.5 s after SIGINT and kills 2.5 s later, so run()
// must come back and write the summary within seconds:
// https://docs.github.com/en/actions/reference/workflow-cancellation-reference
import * as core from '@actions/core'
import { run } from './main.js'

const controller = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (!controller.signal.aborted)
      core.info(`Received ${signal}: cancelling. No promotion will start.`)
    controller.abort(new Error(`Received ${signal}`))
  })
}

await run(controller.signal)
// Open sockets (a watch being torn down, keep-alive agents) must not keep a finished step alive.
process.exit(process.exitCode ?? 0)
