// Version identity: a version of our name is reused only when it is this commit's. Its message ends
// with a marker naming the commit; a re-run checks the marker, never the whole message (a new run
// has a new run URL, and a custom message may change). Pure.

const MARKER_SHA_LENGTH = 12
/** ` (commit <sha12>, <run URL>)` at the very end of a version message. */
const MARKER_PATTERN = /\(commit ([0-9a-f]{12})(?:, [^()\s]+)?\)$/

/** The message with the commit marker appended; without a commit, the run URL alone. */
export function withVersionMarker(
  message: string,
  commitSha: string | undefined,
  runUrl: string
): string {
  const marker = commitSha
    ? `(commit ${commitSha.slice(0, MARKER_SHA_LENGTH).toLowerCase()}, ${runUrl})`
    : `(${runUrl})`
  return `${message} ${marker}`
}

/** Whether a version's message carries the marker of this commit: then a re-run may reuse it. */
export function hasVersionMarker(message: string, commitSha: string | undefined): boolean {
  if (commitSha === undefined || commitSha.length < MARKER_SHA_LENGTH) return false
  const found = MARKER_PATTERN.exec(message.trimEnd())
  return found?.[1] === commitSha.slice(0, MARKER_SHA_LENGTH).toLowerCase()
}

/** Whether a version's message carries the gate's marker of any commit: the gate pushed it. */
export function carriesGateMarker(message: string): boolean {
  return MARKER_PATTERN.test(message.trimEnd())
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Whether a value has the form of a Coder ID: every Coder ID (version, template, user) is a UUID
 * (format uuid in Coder's API description, https://github.com/coder/coder/blob/main/coderd/apidoc/swagger.json).
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value)
}
