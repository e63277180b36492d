// The sandbox's TLS: a self-signed certificate from the `openssl` CLI, made once per process.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

let cachedCertificate: { key: string; cert: string } | null = null

/** A self-signed certificate for 127.0.0.1 and localhost, made once per process. */
export function selfSignedCertificate(): { key: string; cert: string } {
  if (cachedCertificate) return cachedCertificate
  const dir = mkdtempSync(join(tmpdir(), 'kube-sandbox-tls-'))
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '2',
        '-subj',
        '/CN=kube-sandbox',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost'
      ],
      { stdio: 'ignore' }
    )
    cachedCertificate = {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8')
    }
    return cachedCertificate
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
