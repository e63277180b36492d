// Mutations of the test-presets decisions: the combined verdict, the choice of presets, the names.
import { type MutatedModule, mutationsOf } from './mutation-types.js'

export const PRESET_MODULES: MutatedModule[] = [
  {
    name: 'combined verdict',
    tests: ['test/unit/verdict/combined.test.ts'],
    mutations: mutationsOf('src/verdict/combined.ts', [
      [
        "const failing = tests.filter((t) => t.judgment !== 'passed')",
        "const failing = tests.filter((t) => t.judgment === 'failed')",
        'a timeout or a foreign object passes'
      ],
      [
        'if (tests.length > 0 && failing.length === 0) return { ok: true }',
        'if (failing.length === 0) return { ok: true }',
        'no test at all passes'
      ],
      [
        "{ judgment: 'integrity', kind: 'integrity' },",
        '',
        'an integrity failure hides behind another kind'
      ],
      [
        'if (problems.length > 0)',
        'if (problems.length > 1)',
        'one integrity problem is let through'
      ],
      [
        "if (ending === 'wait-timeout' || verdict.state === 'waiting')",
        "if (ending === 'wait-timeout')",
        'a final-looking read that is not final passes'
      ]
    ])
  },
  {
    name: 'preset choice',
    tests: ['test/unit/coder/preset-selection.test.ts'],
    mutations: mutationsOf('src/coder/preset-selection.ts', [
      [
        'const missing = selection.names.filter((name) => !byName.has(name))',
        'const missing: string[] = []',
        'an unknown preset is not refused'
      ],
      [
        'for (const { name, value } of overrides) merged.set(name, value)',
        'for (const { name, value } of overrides) if (!merged.has(name)) merged.set(name, value)',
        'the preset wins over test-parameters'
      ],
      ['if (presets.length === 0)', 'if (presets.length < 0)', 'all without presets runs nothing']
    ])
  },
  {
    name: 'preset names',
    tests: ['test/unit/settings/presets.test.ts'],
    mutations: mutationsOf('src/settings/presets.ts', [
      [
        'const unique = (counts.get(name) ?? 0) === 1 && name !== testName',
        'const unique = true',
        'two presets on one label share a test'
      ],
      [
        'if (joined.length <= DNS1123_LABEL_MAX) return joined',
        'return joined',
        'names longer than 63 characters'
      ],
      [
        "if (items.includes('all')) return '\"all\" stands alone; it cannot be listed with preset names'",
        '',
        'all mixed with names'
      ]
    ])
  }
]
