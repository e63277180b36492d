// The kubeconfig: the `kubeconfig` input (content) or the default chain, the chosen context, and every
// secret in it so the caller can mask them (core.setSecret) before anything is logged.
// client-node 2.x: loadFromString / loadFromDefault.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { KubeConfig } from '@kubernetes/client-node'
import type { User } from '@kubernetes/client-node'
import YAML from 'yaml'
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
  const given = input.kubeconfig.trim() !== ''
  if (!given) {
    const missing = noKubeconfigProblem(defaultPlaces())
    if (missing) throw kubeconfigError(missing)
  }
  try {
    if (given) kc.loadFromString(input.kubeconfig)
    else kc.loadFromDefault()
  } catch (err) {
    const shape = given ? kubeconfigShape(input.kubeconfig) : 'kubeconfig'
    if (shape !== 'kubeconfig') throw kubeconfigError(kubeconfigShapeProblem(shape))
    // Only the first line, and no `cause`: YAML errors quote lines of the content, which may hold secrets.
    const source = given ? 'the kubeconfig input' : 'the default kubeconfig'
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`cannot load ${source}: ${firstLine(err)}`)
  }
  // client-node takes any YAML scalar (a path, base64 text) as an empty config: say what was given.
  if (given && isEmptyConfig(kc)) {
    const shape = kubeconfigShape(input.kubeconfig)
    if (shape !== 'kubeconfig') throw kubeconfigError(kubeconfigShapeProblem(shape))
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

/** What a `kubeconfig` value is, judged without ever showing it (it may hold a secret). */
export type KubeconfigShape = 'kubeconfig' | 'path' | 'base64' | 'not-yaml' | 'other-yaml' | 'text'

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/
const KUBECONFIG_KEYS = ['clusters', 'contexts', 'users', 'current-context']

/** Pure: the shape of a non-empty `kubeconfig` value. */
export function kubeconfigShape(text: string): KubeconfigShape {
  const trimmed = text.trim()
  const compact = trimmed.replace(/\s+/g, '')
  if (BASE64URL.test(compact) || BASE64.test(compact)) {
    const decoded = Buffer.from(compact, BASE64.test(compact) ? 'base64' : 'base64url')
    if (kubeconfigObject(parseYaml(decoded.toString('utf8')))) return 'base64'
  }
  if (!/[\r\n]/.test(trimmed) && looksLikePath(trimmed)) return 'path'
  if (compact.length >= 24 && compact.length % 4 === 0 && BASE64.test(compact)) return 'base64'
  const parsed = parseYaml(trimmed)
  if (parsed === NOT_YAML) return 'not-yaml'
  if (kubeconfigObject(parsed)) return 'kubeconfig'
  return parsed !== null && typeof parsed === 'object' ? 'other-yaml' : 'text'
}

// A path as people paste one: absolute, home- or dot-relative, Windows, ~/.kube, or a config file name.
const PATH_LIKE = [
  /^(~|\$HOME|\$\{HOME\}|\.{1,2})?[\\/]/, // /x, ~/x, ./x, ../x, $HOME/x
  /^[A-Za-z]:[\\/]/, // C:\x
  /(^|[\\/])\.kube([\\/]|$)/,
  /^[^\s:]+\.(ya?ml|json|conf|config|kubeconfig)$/i
]

function looksLikePath(line: string): boolean {
  if (line.length > 4096) return false
  if (PATH_LIKE.some((pattern) => pattern.test(line))) return true
  // a/b/c without spaces or colons: a relative path (YAML text has `: `, base64 is checked after).
  return /^[^\s:]+\/[^\s:]+$/.test(line) && /[.\-_]/.test(line)
}

const NOT_YAML = Symbol('not YAML')

function parseYaml(text: string): unknown {
  try {
    return YAML.parse(text)
  } catch {
    return NOT_YAML
  }
}

function kubeconfigObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const record = value as Record<string, unknown>
  return record.kind === 'Config' || KUBECONFIG_KEYS.some((key) => key in record)
}

const KUBECONFIG_CONTENT =
  'the content of a kubeconfig file (YAML with kind: Config, clusters, users and contexts)'

/** Pure: what to tell the user about a value of this shape; the value itself is never shown. */
export function kubeconfigShapeProblem(shape: Exclude<KubeconfigShape, 'kubeconfig'>): string {
  switch (shape) {
    case 'path':
      return "the value looks like a file path, not a kubeconfig: pass the file's content (for example from a secret that holds the YAML), or leave kubeconfig empty and set the KUBECONFIG environment variable to the path"
    case 'base64':
      return 'the value looks base64-encoded: decode it (for example `base64 -d`) and pass the YAML itself'
    case 'not-yaml':
      return `the value is not YAML, so not a kubeconfig: pass ${KUBECONFIG_CONTENT}`
    case 'other-yaml':
      return `the value is YAML but not a kubeconfig (no kind: Config, no clusters, contexts or users): pass ${KUBECONFIG_CONTENT}`
    case 'text':
      return `the value is plain text, not a kubeconfig: pass ${KUBECONFIG_CONTENT}`
  }
}

/** client-node's in-cluster credentials (loadFromDefault's last resort before localhost:8080). */
export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token'

export interface DefaultKubeconfigPlaces {
  kubeconfigEnv: string
  homeConfig: string
  homeConfigExists: boolean
  serviceAccountTokenExists: boolean
}

/**
 * Pure: with an empty input, client-node tries KUBECONFIG, ~/.kube/config and the pod's service
 * account, then silently uses http://localhost:8080; that last fallback is never what a run wants.
 */
export function noKubeconfigProblem(places: DefaultKubeconfigPlaces): string | null {
  if (places.kubeconfigEnv !== '' || places.homeConfigExists) return null
  if (places.serviceAccountTokenExists) return null
  return `no kubeconfig found: the kubeconfig input is empty, the KUBECONFIG environment variable is not set, and ${places.homeConfig} does not exist (nor does an in-cluster service account token). Pass the kubeconfig's content in the kubeconfig input (from a secret), or set KUBECONFIG to its path`
}

function kubeconfigError(message: string): Error {
  return Object.assign(new Error(message), { input: 'kubeconfig' })
}

function isEmptyConfig(kc: KubeConfig): boolean {
  return kc.getClusters().length + kc.getContexts().length + kc.getUsers().length === 0
}

/** Where client-node's loadFromDefault looks (client-node 2.x config.js), as seen from here. */
function defaultPlaces() {
  // client-node finds the home directory through HOME only (findHomeDir, config.js): without HOME it
  // never reads ~/.kube/config, so neither may this check.
  const home = process.env.HOME || ''
  const homeConfig = home ? path.join(home, '.kube', 'config') : '~/.kube/config (HOME is not set)'
  return {
    kubeconfigEnv: process.env.KUBECONFIG ?? '',
    homeConfig,
    homeConfigExists: home !== '' && existsSync(homeConfig),
    serviceAccountTokenExists: existsSync(SERVICE_ACCOUNT_TOKEN)
  }
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
