// test-presets: which presets of the pushed version get a test, and the name of each test.
// Pure: the input text in, a selection out; the presets and a base test name in, one DNS-1123 label
// per preset out. Coder presets: https://coder.com/docs/admin/templates/extending-templates/parameters#workspace-presets
import { cutWithHash, DNS1123_LABEL_MAX, stableHash, toDnsLabel } from './naming.js'

/** '' = one test with test-parameters; `all` = every preset; else the named presets. */
export type PresetSelection =
  { kind: 'none' } | { kind: 'all' } | { kind: 'named'; names: string[] }

/** guess: Coder sets no length limit on a preset name; longer input is surely a mistake. */
export const PRESET_NAME_MAX = 128
export const PRESETS_MAX = 32

/** The input text as a selection, or the broken rule. Items split on commas and newlines. */
export function parsePresetSelection(text: string): PresetSelection | string {
  const items = text
    .split(/[,\r\n]/)
    .map((item) => item.trim())
    .filter((item) => item !== '')
  if (items.length === 0) return { kind: 'none' }
  if (items.length === 1 && items[0] === 'all') return { kind: 'all' }
  if (items.includes('all')) return '"all" stands alone; it cannot be listed with preset names'
  const names = [...new Set(items)]
  if (names.length > PRESETS_MAX) return `at most ${PRESETS_MAX} presets (got ${names.length})`
  const long = names.find((name) => name.length > PRESET_NAME_MAX)
  if (long) return `the preset name "${long.slice(0, 40)}…" is longer than ${PRESET_NAME_MAX}`
  // eslint-disable-next-line no-control-regex
  if (names.some((name) => /[\u0000-\u001f\u007f]/.test(name)))
    return 'a preset name holds a control character'
  return { kind: 'named', names }
}

/**
 * One test name per preset name: `<test>-<preset as a DNS-1123 label>`, at most 63 chars with a hash
 * suffix when cut. Two presets that map to one name (`Large GPU`, `large-gpu`) each get the hash of
 * their exact name, so neither depends on the other's presence or on the order Coder lists them.
 */
export function presetTestNames(testName: string, presets: readonly string[]): Map<string, string> {
  const mapped = new Map(presets.map((preset) => [preset, presetTestName(testName, preset)]))
  const counts = new Map<string, number>()
  for (const name of mapped.values()) counts.set(name, (counts.get(name) ?? 0) + 1)
  const names = new Map<string, string>()
  for (const [preset, name] of mapped) {
    // testName itself is the default test's name: a preset must never take it.
    const unique = (counts.get(name) ?? 0) === 1 && name !== testName
    names.set(preset, unique ? name : withPresetHash(name, preset))
  }
  return names
}

function presetTestName(testName: string, preset: string): string {
  const label = toDnsLabel(preset) || 'preset'
  const joined = `${testName}-${label}`
  if (joined.length <= DNS1123_LABEL_MAX) return joined
  return cutWithHash(joined, `${testName}\n${preset}`, DNS1123_LABEL_MAX, /-+$/)
}

function withPresetHash(name: string, preset: string): string {
  const suffix = `-${stableHash(`preset\n${preset}`)}`
  const head = name.slice(0, DNS1123_LABEL_MAX - suffix.length).replace(/-+$/, '')
  return `${head}${suffix}`
}
