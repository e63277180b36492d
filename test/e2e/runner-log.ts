// The log as the runner reads it (actions/runner): lines split at \r\n, \r or \n (.NET ReadLine in
// ProcessInvoker), leading blanks trimmed before `::` (ActionCommand.TryParseV2), the legacy `##[`
// form found anywhere in a line (ActionCommand.TryParse), and a `::stop-commands::<token>` block
// that ends at the first command named like the token, case ignored (ActionCommandManager).

/** The commands the runner would execute, as it sees them (blanks trimmed). */
export function commandsTheRunnerRuns(stdout: string): string[] {
  let stopped: string | null = null
  const commands: string[] = []
  for (const line of stdout.split(/\r\n|\r|\n/)) {
    const command = parseCommand(line)
    if (!command) continue
    if (stopped !== null) {
      if (command.name.toLowerCase() === stopped.toLowerCase()) stopped = null
      continue
    }
    if (command.name === 'stop-commands') stopped = command.data
    else commands.push(command.text)
  }
  return commands
}

/** The error annotations the runner would show, their data unescaped as the runner does. */
export function errorAnnotations(stdout: string): { title: string; message: string }[] {
  return commandsTheRunnerRuns(stdout)
    .map((text) => /^::error(?: ([^:]*))?::(.*)$/s.exec(text))
    .filter((match) => match !== null)
    .map((match) => ({
      title: unescape(/(?:^|,)title=([^,]*)/.exec(match[1] ?? '')?.[1] ?? '', true),
      message: unescape(match[2] ?? '', false)
    }))
}

interface Command {
  name: string
  data: string
  text: string
}

function parseCommand(line: string): Command | null {
  const trimmed = line.trimStart()
  if (trimmed.startsWith('::')) {
    const end = trimmed.indexOf('::', 2)
    if (end >= 0) {
      const name = trimmed.slice(2, end).split(' ')[0]!
      return { name, data: trimmed.slice(end + 2), text: trimmed }
    }
  }
  // Legacy `##[name ...]data`, anywhere in the line.
  const legacy = /##\[([^\]\s;]+)[^\]]*\](.*)$/s.exec(line)
  if (legacy) return { name: legacy[1]!, data: legacy[2]!, text: legacy[0] }
  return null
}

function unescape(text: string, property: boolean): string {
  let out = text.replaceAll('%0D', '\r').replaceAll('%0A', '\n')
  if (property) out = out.replaceAll('%3A', ':').replaceAll('%2C', ',')
  return out.replaceAll('%25', '%')
}
