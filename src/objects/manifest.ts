// The CoderTemplateTest manifest that the gate commits, as deterministic YAML, and the comparison
// of a live spec with it. Facts: coder-k8s's CRD and docs/how-to/gitops.md (coder/coder-k8s).
import { isDeepStrictEqual } from 'node:util'
import YAML from 'yaml'
import {
  type CoderTemplateTest,
  type CoderTemplateTestSpec,
  type NameValue,
  TEST_API_VERSION,
  TEST_KIND
} from './coder-k8s.js'

/** The CRD's default: the API server writes it, so a stored object always has timeoutSeconds. */
const DEFAULT_TIMEOUT_SECONDS = 900
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by'
export const MANAGED_BY = 'coder-template-gate'

export interface ManifestParams {
  testName: string
  namespace: string
  controlPlane: string
  /** Canonical organization name: never the alias `default`, which the aggregated API rejects. */
  organization: string
  /** Canonical template name. */
  template: string
  /** A version name, or `{active: true}`: the version active when the controller resolves it. */
  version: string | { active: true }
  parameters: NameValue[]
  timeoutSeconds: number
}

export function buildTestManifest(params: ManifestParams): CoderTemplateTest {
  const spec: CoderTemplateTestSpec = {
    controlPlaneRef: { name: params.controlPlane },
    template: `${params.organization}.${params.template}`,
    version: typeof params.version === 'string' ? { name: params.version } : { active: true }
  }
  if (params.parameters.length > 0) {
    spec.parameters = params.parameters.map(({ name, value }) => ({ name, value }))
  }
  // Always explicit, so that Git shows the deadline the test runs with. Never
  // ttlSecondsAfterFinished: GitOps would recreate the deleted test forever.
  spec.timeoutSeconds = params.timeoutSeconds
  return {
    apiVersion: TEST_API_VERSION,
    kind: TEST_KIND,
    metadata: {
      name: params.testName,
      namespace: params.namespace,
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY }
    },
    spec
  }
}

const HEADER = [
  ' Written by coder-template-gate. One test per template version: the spec is immutable,',
  ' so a new version needs a new test. Do not set ttlSecondsAfterFinished on this object.'
].join('\n')

/** The same manifest always gives the same bytes: key order is fixed by buildTestManifest. */
export function renderManifest(manifest: CoderTemplateTest): string {
  const document = new YAML.Document(manifest)
  YAML.visit(document, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && !isPlainInYaml11(node.value))
        node.type = YAML.Scalar.QUOTE_DOUBLE
    }
  })
  document.commentBefore = HEADER
  return document.toString({ lineWidth: 0 })
}

/**
 * Argo CD and kubectl read YAML with go-yaml v2 (YAML 1.1), where `yes`, `off`, `y`, `1_000` and
 * `0b101` are not strings. A string stays plain only when a 1.1 reader reads it back as itself.
 */
export function isPlainInYaml11(value: string): boolean {
  // go-yaml v2 reads ints with Go's strconv.ParseInt(s, 0, 64), which also takes the 0o/0O/0X/0B
  // prefixes that the yaml library's 1.1 mode leaves strings (found by the yaml.v2 read-back test).
  if (/^[-+]?0[bBoOxX]/.test(value)) return false
  try {
    return YAML.parse(value, { version: '1.1' }) === value
  } catch {
    return false
  }
}

/** Parses a manifest file, or returns null when it is not a single CoderTemplateTest. */
export function parseManifest(text: string): CoderTemplateTest | null {
  try {
    const value: unknown = YAML.parse(text)
    if (!isRecord(value) || value.kind !== TEST_KIND || !isRecord(value.spec)) return null
    return value as unknown as CoderTemplateTest
  } catch {
    return null
  }
}

/** True when an existing file declares the same test: same name, namespace and whole spec. */
export function sameTest(existing: CoderTemplateTest | null, wanted: CoderTemplateTest): boolean {
  return (
    existing !== null &&
    existing.apiVersion === wanted.apiVersion &&
    existing.metadata?.name === wanted.metadata.name &&
    existing.metadata?.namespace === wanted.metadata.namespace &&
    specDifferences(wanted.spec, existing.spec).length === 0
  )
}

/**
 * Every difference between the spec we committed and a live spec, as readable lines such as
 * `spec.version.name: committed "v2", found "v3"`. The whole spec counts: a field that only
 * the live object has is a difference too. The only normalisation is the server's timeoutSeconds
 * default.
 */
export function specDifferences(committed: CoderTemplateTestSpec, live: unknown): string[] {
  const withDefaults = (spec: unknown): unknown =>
    isRecord(spec) && spec.timeoutSeconds === undefined
      ? { ...spec, timeoutSeconds: DEFAULT_TIMEOUT_SECONDS }
      : spec
  const differences: string[] = []
  collectDifferences('spec', withDefaults(committed), withDefaults(live), differences)
  return differences
}

function collectDifferences(at: string, committed: unknown, live: unknown, out: string[]): void {
  if (isDeepStrictEqual(committed, live)) return
  if (at === 'spec.parameters' && Array.isArray(committed) && Array.isArray(live)) {
    compareParameters(committed as NameValue[], live, out)
    return
  }
  if (isRecord(committed) && isRecord(live)) {
    const keys = [...new Set([...Object.keys(committed), ...Object.keys(live)])].sort()
    for (const key of keys) collectDifferences(`${at}.${key}`, committed[key], live[key], out)
    return
  }
  out.push(`${at}: committed ${show(committed)}, found ${show(live)}`)
}

/** spec.parameters is a list-map keyed by name in the CRD: compare it as name -> value. */
function compareParameters(committed: NameValue[], live: unknown[], out: string[]): void {
  const liveByName = new Map<string, unknown>()
  for (const entry of live) {
    if (isRecord(entry) && typeof entry.name === 'string') liveByName.set(entry.name, entry)
    else out.push(`spec.parameters: found an entry without a name: ${show(entry)}`)
  }
  for (const entry of committed) {
    if (!liveByName.has(entry.name)) {
      out.push(`spec.parameters[${entry.name}]: committed ${show(entry.value)}, found nothing`)
      continue
    }
    collectDifferences(`spec.parameters[${entry.name}]`, entry, liveByName.get(entry.name), out)
    liveByName.delete(entry.name)
  }
  for (const [name, entry] of liveByName) {
    out.push(`spec.parameters[${name}]: committed nothing, found ${show(entry)}`)
  }
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing'
  const text = JSON.stringify(value)
  return text.length > 120 ? `${text.slice(0, 117)}...` : text
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
