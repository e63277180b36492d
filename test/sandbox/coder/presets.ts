// Template version presets in the Coder sandbox. Real Coder reads them from the template's
// `data "coder_workspace_preset"` blocks during the import
// (https://coder.com/docs/admin/templates/extending-templates/parameters#workspace-presets); the
// sandbox reads them from a file of its own in the pushed archive instead, `coder-presets.json`
// (a JSON array of `{name, parameters: {NAME: VALUE}, default?}`), or from seedVersion's `presets`.
// The answer of GET /api/v2/templateversions/{id}/presets is shaped as coderd sends it
// (codersdk.Preset without json tags: PascalCase keys; no presets is `null`); guess: see
// src/coder/presets.ts.
import { randomUUID } from 'node:crypto'
import type { SandboxPreset } from './types.js'

export const PRESETS_FILE = 'coder-presets.json'

/** The presets file of a ustar archive, or [] when it has none or it is not a valid list. */
export function presetsOfArchive(archive: Buffer): SandboxPreset[] {
  for (let offset = 0; offset + 512 <= archive.length;) {
    const header = archive.subarray(offset, offset + 512)
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '')
    if (name === '') break
    const size = parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, ''), 8) || 0
    const body = archive.subarray(offset + 512, offset + 512 + size)
    if (name === PRESETS_FILE || name === `./${PRESETS_FILE}`) return parsePresets(body)
    offset += 512 + Math.ceil(size / 512) * 512
  }
  return []
}

function parsePresets(body: Buffer): SandboxPreset[] {
  try {
    const list: unknown = JSON.parse(body.toString('utf8'))
    if (!Array.isArray(list)) return []
    return list.map(
      (item: { name: string; parameters?: Record<string, string>; default?: boolean }) => ({
        name: String(item.name),
        parameters: item.parameters ?? {},
        default: item.default === true
      })
    )
  } catch {
    return []
  }
}

/** codersdk.Preset as coderd marshals it. */
export function presetsJson(presets: SandboxPreset[] | undefined): unknown {
  if (!presets || presets.length === 0) return null
  return presets.map((preset) => {
    const entries = Object.entries(preset.parameters)
    return {
      ID: preset.id ?? randomUUID(),
      Name: preset.name,
      Parameters: entries.length === 0 ? null : entries.map(([Name, Value]) => ({ Name, Value })),
      Default: preset.default ?? false,
      DesiredPrebuildInstances: null,
      Description: '',
      Icon: ''
    }
  })
}
