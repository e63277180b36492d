// The presets of a template version: GET /api/v2/templateversions/{id}/presets
// (https://coder.com/docs/reference/api/templates#get-template-version-presets).
// guess: coderd sends codersdk.Preset without json tags, so its keys are PascalCase (`ID`, `Name`,
// `Parameters: [{Name, Value}]`, `Default`), not the documented camelCase; we read both. guess: no
// presets is `null`, and a preset without parameters has `"Parameters": null`; both read as empty.
// guess: a preset's name is unique within its version (Terraform rejects two data sources only by
// address, so two presets could share a name; the first one is kept, with a note).
import type { NameValue } from '../objects/coder-k8s.js'
import type { CoderClient } from './client.js'

export interface CoderPreset {
  name: string
  parameters: NameValue[]
  /** Coder's default preset of the version (`Default`). */
  isDefault: boolean
}

export interface VersionPresets {
  presets: CoderPreset[]
  /** Names that came twice: only the first preset of that name is used. */
  duplicates: string[]
}

export async function versionPresets(
  client: Pick<CoderClient, 'request'>,
  versionId: string
): Promise<VersionPresets> {
  const path = `/api/v2/templateversions/${encodeURIComponent(versionId)}/presets`
  return presetsOfAnswer(await client.request<unknown>('GET', path), path)
}

/** The answer's presets, or an error naming the path when its shape is not Coder's. */
export function presetsOfAnswer(body: unknown, path = 'the presets answer'): VersionPresets {
  if (body === null) return { presets: [], duplicates: [] }
  if (!Array.isArray(body)) throw new Error(`${path} is not a JSON array`)
  const presets: CoderPreset[] = []
  const duplicates: string[] = []
  for (const item of body) {
    const preset = presetOf(item)
    if (!preset) throw new Error(`${path} holds a preset without a name or with bad parameters`)
    if (presets.some((p) => p.name === preset.name)) duplicates.push(preset.name)
    else presets.push(preset)
  }
  return { presets, duplicates }
}

function presetOf(item: unknown): CoderPreset | null {
  if (!item || typeof item !== 'object') return null
  const record = item as Record<string, unknown>
  const name = field(record, 'Name', 'name')
  if (typeof name !== 'string' || name === '') return null
  const raw = field(record, 'Parameters', 'parameters') ?? []
  if (!Array.isArray(raw)) return null
  const parameters: NameValue[] = []
  for (const entry of raw) {
    if (!entry || typeof entry !== 'object') return null
    const p = entry as Record<string, unknown>
    const [pName, pValue] = [field(p, 'Name', 'name'), field(p, 'Value', 'value')]
    if (typeof pName !== 'string' || pName === '' || typeof pValue !== 'string') return null
    parameters.push({ name: pName, value: pValue })
  }
  return { name, parameters, isDefault: field(record, 'Default', 'default') === true }
}

function field(record: Record<string, unknown>, pascal: string, camel: string): unknown {
  return Object.hasOwn(record, pascal) ? record[pascal] : record[camel]
}
