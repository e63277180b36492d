// Coder's /api/v2/buildinfo `version` names the tool-cache directory of the downloaded CLI
// (@actions/tool-cache joins it into a path) and appears in the log. It is the server's text: only
// a release-shaped version is accepted, so that no `../`, slash or newline becomes a path or a line.
// Coder answers `v2.20.1`, `v2.20.1+abc1234` or `v2.21.0-devel+abc1234` (/api/v2/buildinfo).

/** `v?MAJOR.MINOR.PATCH`, then optionally `-` or `+` and SemVer's identifier characters. */
const RELEASE_VERSION = /^v?\d{1,9}\.\d{1,9}\.\d{1,9}(?:[-+][0-9A-Za-z.+-]*)?$/
/** Far longer than any Coder version; a longer answer is not one. */
export const MAX_SERVER_VERSION_LENGTH = 128
const SHOWN_LIMIT = 60

/** Why the version cannot name a cache directory, or null when it can. Pure. */
export function serverVersionProblem(version: string): string | null {
  if (version.length <= MAX_SERVER_VERSION_LENGTH && RELEASE_VERSION.test(version)) return null
  // JSON quoting shows a newline as \n: the message stays one line of data.
  const cut = version.length > SHOWN_LIMIT ? `${version.slice(0, SHOWN_LIMIT)}…` : version
  return (
    `its version ${JSON.stringify(cut)} is not a release version (v?MAJOR.MINOR.PATCH[-+…]), ` +
    'so the gate will not download a CLI for it. Check that coder-url points to a Coder deployment, ' +
    'or set the coder-cli input to a coder binary.'
  )
}
