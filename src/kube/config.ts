// The kubeconfig: the `kubeconfig` input (content) or the default chain, the chosen context, and every
// secret in it so the caller can mask them (core.setSecret) before anything is logged.
// client-node 2.x: loadFromString / loadFromDefault (action-ecosystem.md §6.2).
import { readFileSync } from 'node:fs'
import { KubeConfig } from '@kubernetes/client-node'
import type { User } from '@kubernetes/client-node'
import { firstLine } from './request.js'

export interface KubeConfigInput {
  /** Kubeconfig content; '' = default chain (KUBECONFIG, ~/.kube/config, in-cluster). */
  kubeconfig: string
  /** Context name; '' = the kubeconfig's current-context. */
  context: string
  /** Called with every secret as soon as the content is parsed, before any check can fail. */
  mask?: (secret: string) => void
}

export interface LoadedKubeConfig {
  kc: KubeConfig
  /** Every secret value found (tokens, passwords, key data in base64 and PEM form, token-file content). */
  secrets: string[]
}

export function loadKubeConfig(input: KubeConfigInput): LoadedKubeConfig {
  const kc = new KubeConfig()
  try {
    if (input.kubeconfig.trim() !== '') {
      kc.loadFromString(input.kubeconfig)
    } else {
      kc.loadFromDefault()
    }
  } catch (err) {
    // Only the first line, and no `cause`: YAML errors quote lines of the content, which may hold secrets.
    const source =
      input.kubeconfig.trim() !== '' ? 'the kubeconfig input' : 'the default kubeconfig'
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`cannot load ${source}: ${firstLine(err)}`)
  }
  const secrets = secretsOf(kc)
  if (input.mask) secrets.forEach(input.mask)

  const names = kc.getContexts().map((c) => c.name)
  if (input.context !== '') {
    if (!names.includes(input.context)) {
      throw Object.assign(
        new Error(
          `kube context "${input.context}" does not exist in the kubeconfig; available contexts: ${listOrNone(names)}`
        ),
        { input: 'kube-context' }
      )
    }
    kc.setCurrentContext(input.context)
  } else if (!kc.getCurrentContext() || !names.includes(kc.getCurrentContext())) {
    throw new Error(
      `the kubeconfig has no usable current-context ("${kc.getCurrentContext() ?? ''}"); set kube-context to one of: ${listOrNone(names)}`
    )
  }
  const context = kc.getContextObject(kc.getCurrentContext())
  if (!kc.getCurrentCluster()) {
    throw new Error(
      `kube context "${kc.getCurrentContext()}" names cluster "${context?.cluster ?? ''}", which the kubeconfig does not define`
    )
  }
  return { kc, secrets }
}

function listOrNone(names: string[]): string {
  return names.length > 0 ? names.join(', ') : '(none)'
}

// Key names in auth-provider config and exec env that hold credentials. guess: a name-based rule; the
// kubeconfig format has no schema marking these as secret.
const SECRET_KEY = /token|secret|password|passwd|key|credential/i

function secretsOf(kc: KubeConfig): string[] {
  const found = new Set<string>()
  const add = (value: unknown): void => {
    if (typeof value !== 'string') return
    const trimmed = value.trim()
    if (trimmed === '') return
    found.add(trimmed)
    // Runner masking works line by line: register each line of multi-line values (PEM bodies).
    if (trimmed.includes('\n')) {
      for (const line of trimmed.split(/\r?\n/)) {
        const l = line.trim()
        if (l !== '' && !l.startsWith('-----')) found.add(l)
      }
    }
  }
  const addFile = (path: unknown): void => {
    if (typeof path !== 'string' || path === '') return
    try {
      add(readFileSync(path, 'utf8'))
    } catch {
      // unreadable here: client-node will fail on it later with its own message
    }
  }
  for (const user of kc.getUsers() as User[]) {
    add(user.token)
    add(user.password)
    if (user.keyData) {
      add(user.keyData)
      add(Buffer.from(user.keyData, 'base64').toString('utf8'))
    }
    addFile(user.keyFile)
    const providerConfig: unknown = user.authProvider?.config
    if (providerConfig && typeof providerConfig === 'object') {
      for (const [key, value] of Object.entries(providerConfig as Record<string, unknown>)) {
        if (key === 'tokenFile' || key === 'token-file') addFile(value)
        else if (SECRET_KEY.test(key)) add(value)
      }
    }
    const env: unknown = user.exec?.env
    if (Array.isArray(env)) {
      for (const entry of env as { name?: unknown; value?: unknown }[]) {
        if (typeof entry?.name === 'string' && SECRET_KEY.test(entry.name)) add(entry.value)
      }
    }
  }
  return [...found]
}
