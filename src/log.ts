// The StepLog of a real run, over @actions/core. Any line of text that another system wrote (a test's
// status message, a server's answer, CLI output) may hold a workflow command: a line that begins with
// `::` once the runner trimmed its leading blanks, or the legacy `##[` form, which the runner finds
// anywhere in a line (actions/runner ActionCommand.TryParseV2 and TryParse). The runner splits lines
// at `\r` as well as `\n` (.NET ReadLine). Such text is written inside a `::stop-commands::<token>`
// block with an unguessable token, so the runner shows it as plain text.
import { randomUUID } from 'node:crypto'
import * as core from '@actions/core'
import type { StepLog } from './steps/step.js'

// `^` with the m flag starts a line after \r too.
const COMMAND_LIKE = /^\s*::|##\[/m

/** Whether any line of the text could be read as a workflow command. */
export function looksLikeCommand(text: string): boolean {
  return COMMAND_LIKE.test(text)
}

/** The lines to write for one log entry: the text alone, or fenced so that no line is a command. */
export function safeLogLines(text: string, token: () => string = randomUUID): string[] {
  if (!looksLikeCommand(text)) return [text]
  const resume = token()
  return [`::stop-commands::${resume}`, text, `::${resume}::`]
}

function writeSafely(text: string): void {
  for (const line of safeLogLines(text)) core.info(line)
}

export const actionsLog: StepLog = {
  info: writeSafely,
  // Annotations escape newlines and `%` (core's escapeData), so their text cannot start a command.
  warning: (text) => core.warning(text),
  // core.debug escapes its data too.
  debug: (text) => core.debug(text),
  // A group title is the data of a `::group::` command: escaped by core as well.
  group: (title, body) => core.group(title, body)
}
