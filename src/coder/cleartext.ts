// A coder-url with http:// sends the session token (the Coder-Session-Token header, and the CLI's
// CODER_SESSION_TOKEN) in clear over the network, unless the host is this machine.
import { isIP } from 'node:net'

/** 127.0.0.0/8, ::1 and the name localhost (RFC 6761 keeps it on the loopback). Pure. */
function isLoopbackHost(hostname: string): boolean {
  // WHATWG URL lowercases names, writes IPv4 in dotted decimal and IPv6 in brackets.
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase()
  if (host === 'localhost') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1'
  return false
}

/** The warning for a coder-url whose token would travel in clear, or null. Pure. */
export function cleartextTokenWarning(coderUrl: string): string | null {
  let url: URL
  try {
    url = new URL(coderUrl)
  } catch {
    return null // the inputs step reports a URL it cannot parse
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return null
  return (
    `coder-url uses http:// on ${url.hostname}, which is not this machine: the Coder session token ` +
    'travels in clear to it, readable on the network. Use the https:// address of the deployment.'
  )
}
