// The fake `coder` CLI's REST client: Coder's error shape, and the version check on first answer.
/* global fetch */
import { URL } from 'node:url'
import { CliError, err, run } from './common.mjs'

export function makeClient(url, token) {
  let versionChecked = false
  return async function api(method, path, body, contentType = 'application/json') {
    const headers = { 'Coder-Session-Token': token }
    let payload
    if (body !== undefined) {
      headers['Content-Type'] = contentType
      payload = contentType === 'application/json' ? JSON.stringify(body) : body
    }
    const response = await fetch(new URL(path, url), { method, headers, body: payload })
    if (!versionChecked) {
      versionChecked = true
      warnOnVersionMismatch(response.headers.get('x-coder-build-version') ?? '')
    }
    const text = await response.text()
    let data
    try {
      data = text ? JSON.parse(text) : undefined
    } catch {
      data = undefined
    }
    if (!response.ok) {
      const lines = []
      if (data?.detail) lines.push(data.detail)
      if (Array.isArray(data?.validations) && data.validations.length) {
        lines.push(`${data.validations.length} validation error(s) found`)
        for (const v of data.validations) lines.push(`\t${v.field}: ${v.detail}`)
      }
      const error = new CliError(data?.message ?? `unexpected status ${response.status}`, lines)
      error.status = response.status
      throw error
    }
    return data
  }
}

// A major.minor mismatch warns once on stderr; dev builds always match.
function warnOnVersionMismatch(serverVersion) {
  if (process.env.CODER_NO_VERSION_WARNING === 'true') return
  const majorMinor = (v) => v.replace(/^v/, '').split('.').slice(0, 2).join('.')
  if (!serverVersion || run.builtInVersion.includes('devel') || serverVersion.includes('devel'))
    return
  if (majorMinor(serverVersion) === majorMinor(run.builtInVersion)) return
  err(`version mismatch: client ${run.builtInVersion}, server ${serverVersion}`)
  err(
    `download the server version with: 'curl -L https://coder.com/install.sh | sh -s -- --version ${serverVersion}'`
  )
}
