// What the fake `coder` CLI's modules share (fake-coder.mjs imports them through a URL the sandbox
// bakes in): its errors, its output, and the run's baked version and report.

export class CliError extends Error {
  constructor(message, lines = []) {
    super(message)
    this.lines = lines
  }
}
// ErrCanceled: exit 1 without a message.
export class Canceled extends Error {}

/** Set by fake-coder.mjs at start: the baked CLI version and the run's report to the sandbox. */
export const run = { builtInVersion: 'v0.0.0-devel', invocation: null }

export const out = (text) => process.stdout.write(text + '\n')
export const err = (text) => process.stderr.write(text + '\n')
