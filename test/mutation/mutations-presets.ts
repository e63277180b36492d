// Mutations of the test-presets decisions: the combined verdict, the choice of presets, the names.
import { type MutatedModule, mutationsOf } from './mutation-types.js'

export const PRESET_MODULES: MutatedModule[] = [
  {
    name: 'combined verdict',
    tests: ['test/unit/verdict/combined.test.ts'],
    mutations: mutationsOf('src/verdict/combined.ts', [
      [
        'combineVerdicts',
        "const failing = tests.filter((t) => t.judgment !== 'passed')",
        "const failing = tests.filter((t) => t.judgment === 'failed')",
        'a timeout or a foreign object passes'
      ],
      [
        'combineVerdicts',
        'if (tests.length > 0 && failing.length === 0) return { ok: true }',
        'if (failing.length === 0) return { ok: true }',
        'no test at all passes'
      ],
      [
        'ORDER',
        "{ judgment: 'integrity', kind: 'integrity' },",
        '',
        'an integrity failure hides behind another kind'
      ],
      [
        'judgeTest',
        'if (problems.length > 0)',
        'if (problems.length > 1)',
        'one integrity problem is let through'
      ],
      [
        'judgeTest',
        "if (ending === 'wait-timeout' || verdict.state === 'waiting')",
        "if (ending === 'wait-timeout')",
        'a final-looking read that is not final passes'
      ]
    ])
  },
  {
    name: 'preset choice',
    tests: ['test/unit/settings/preset-selection.test.ts'],
    mutations: mutationsOf('src/settings/preset-selection.ts', [
      [
        'choosePresets',
        'const missing = selection.names.filter((name) => !byName.has(name))',
        'const missing: string[] = []',
        'an unknown preset is not refused'
      ],
      [
        'presetParameters',
        'for (const { name, value } of overrides) merged.set(name, value)',
        'for (const { name, value } of overrides) if (!merged.has(name)) merged.set(name, value)',
        'the preset wins over test-parameters'
      ],
      [
        'choosePresets',
        'if (presets.length === 0)',
        'if (presets.length < 0)',
        'all without presets runs nothing'
      ]
    ])
  },
  {
    name: 'preset names',
    tests: ['test/unit/settings/presets-input.test.ts'],
    mutations: mutationsOf('src/settings/presets.ts', [
      [
        'presetTestNames',
        'const unique = (counts.get(name) ?? 0) === 1 && name !== testName',
        'const unique = true',
        'two presets on one label share a test'
      ],
      [
        'presetTestName',
        'if (joined.length <= DNS1123_LABEL_MAX) return joined',
        'return joined',
        'names longer than 63 characters'
      ],
      [
        'parsePresetSelection',
        "if (items.includes('all')) return '\"all\" stands alone; it cannot be listed with preset names'",
        '',
        'all mixed with names'
      ]
    ])
  },
  {
    name: 'set wait deletion',
    tests: ['test/unit/kube/watch-set.test.ts', 'test/unit/verdict/combined.test.ts'],
    mutations: [
      ...mutationsOf('src/kube/watch-set.ts', [
        [
          'hasEnded',
          '  if (sight.deleted) return true',
          '',
          'a deleted test waits out its timeout'
        ],
        [
          'onList',
          '? { ...before, present: false, deleted: true }',
          '? { ...before, present: false }',
          'a test absent after it was seen is not deleted'
        ],
        [
          'read',
          'if (!rules.isFinal(object) && object.metadata?.deletionTimestamp)',
          'if (false)',
          'a test being deleted is not ended'
        ]
      ]),
      ...mutationsOf('src/verdict/combined.ts', [
        [
          'ORDER',
          "{ judgment: 'deleted', kind: 'wait-failed' },",
          '',
          'a deletion hides behind another kind'
        ]
      ])
    ]
  }
]
