// test-presets against the presets the pushed version has: which presets get a test, and each
// test's parameters. Pure; the adapter that reads the presets is presets.ts.
import type { NameValue } from '../objects/coder-k8s.js'
import { presetTestNames, type PresetSelection } from './presets.js'
import type { CoderPreset } from '../coder/presets.js'

export interface PresetTest {
  /** '' for the one default test (test-presets '' or `all` on a version without presets). */
  preset: string
  parameters: NameValue[]
}

export type PresetChoice =
  | { ok: true; tests: PresetTest[]; note: string }
  | { ok: false; missing: string[]; available: string[] }

/** spec.parameters: the preset's parameters, then test-parameters on top (same name: the input wins). */
export function presetParameters(preset: NameValue[], overrides: NameValue[]): NameValue[] {
  const merged = new Map(preset.map((p) => [p.name, p.value]))
  for (const { name, value } of overrides) merged.set(name, value)
  return [...merged].map(([name, value]) => ({ name, value }))
}

export function choosePresets(
  selection: PresetSelection,
  presets: readonly CoderPreset[],
  testParameters: NameValue[]
): PresetChoice {
  const defaultTest = { preset: '', parameters: testParameters }
  if (selection.kind === 'none') return { ok: true, tests: [defaultTest], note: '' }
  const byName = new Map(presets.map((p) => [p.name, p]))
  const testOf = (p: CoderPreset): PresetTest => ({
    preset: p.name,
    parameters: presetParameters(p.parameters, testParameters)
  })
  if (selection.kind === 'all') {
    if (presets.length === 0)
      return {
        ok: true,
        tests: [defaultTest],
        note: 'test-presets is "all" but the version has no presets: the one default test runs, with test-parameters'
      }
    const sorted = [...presets].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return { ok: true, tests: sorted.map(testOf), note: '' }
  }
  const missing = selection.names.filter((name) => !byName.has(name))
  if (missing.length > 0) return { ok: false, missing, available: presets.map((p) => p.name) }
  return { ok: true, tests: selection.names.map((name) => testOf(byName.get(name)!)), note: '' }
}

/** The error of a named preset the version lacks: names it and lists the version's presets. */
export function missingPresetsText(
  missing: string[],
  available: string[],
  version: string
): string {
  const quoted = (names: string[]): string => names.map((n) => JSON.stringify(n)).join(', ')
  const has = available.length > 0 ? `its presets are ${quoted(available)}` : 'it has no presets'
  const noun = missing.length === 1 ? 'preset' : 'presets'
  return `test-presets names the ${noun} ${quoted(missing)} that version ${version} lacks; ${has}.`
}

/** One CoderTemplateTest of the run: its name, its preset ('' = the default test), its parameters. */
export interface PlannedTest extends PresetTest {
  name: string
}

/** The default test keeps `testName`; preset tests get `<testName>-<preset label>` (presets.ts). */
export function planTests(testName: string, tests: PresetTest[]): PlannedTest[] {
  const names = presetTestNames(
    testName,
    tests.filter((t) => t.preset !== '').map((t) => t.preset)
  )
  return tests.map((t) => ({
    ...t,
    name: t.preset === '' ? testName : (names.get(t.preset) ?? '')
  }))
}
