// The StepLog of a real run, over @actions/core. Any line of text that another system wrote (a test's
// status message, a server's answer, CLI output) may hold a workflow command: a line that begins with
// `::` once the runner trimmed its leading blanks, or the legacy `##[` form, which the runner finds
// anywhere in a line (actions/runner ActionCommand.TryParseV2 and TryParse). The runner splits lines
// at `\r` as well as `\n` (.NET ReadLine). Such text is written inside a `::stop-commands::<token>`
// block with an unguessable token, so the runner shows it as plain text.
import { randomUUID } from 'node:crypto'
import * as core from '@actions/core'

/** The log a step writes to (src/steps/step.ts StepContext.log), and adapters that log as they go. */
export interface StepLog {
  /** A line for the log. Text from other systems is safe here: it is never run as a command. */
  info(text: string): void
  /** A warning annotation. */
  warning(text: string): void
  debug(text: string): void
  group<T>(title: string, body: () => Promise<T>): Promise<T>
}

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
