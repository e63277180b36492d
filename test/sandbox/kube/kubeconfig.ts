// The kubeconfig of the Kubernetes sandbox: its URL, its CA (or insecure-skip-tls-verify over
// plain HTTP) and the bearer token.
import { stringify as toYaml } from 'yaml'

export interface KubeconfigOptions {
  context?: string
  namespace?: string
}

export function sandboxKubeconfig(
  url: string,
  caCertificate: string | null,
  token: string,
  { context = 'sandbox', namespace }: KubeconfigOptions = {}
): string {
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'sandbox',
        cluster: {
          server: url,
          ...(caCertificate
            ? { 'certificate-authority-data': Buffer.from(caCertificate).toString('base64') }
            : { 'insecure-skip-tls-verify': true })
        }
      }
    ],
    users: [{ name: 'sandbox-user', user: { token } }],
    contexts: [
      {
        name: context,
        context: {
          cluster: 'sandbox',
          user: 'sandbox-user',
          ...(namespace ? { namespace } : {})
        }
      }
    ],
    'current-context': context
  })
}
