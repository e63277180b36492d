// Mutations of the timing toolkit (src/timing/): the one backoff every retry loop uses.
import { type MutatedModule, mutationsOf } from './mutation-types.js'

export const TIMING_MODULES: MutatedModule[] = [
  {
    name: 'backoff',
    tests: ['test/unit/timing/backoff.test.ts'],
    mutations: mutationsOf('src/timing/backoff.ts', [
      [
        'base',
        'const base = Math.min(initialMs * factor ** Math.max(0, attempt - 1), maxMs)',
        'const base = initialMs * factor ** Math.max(0, attempt - 1)',
        'no cap'
      ],
      [
        'base',
        'factor ** Math.max(0, attempt - 1)',
        'factor ** Math.max(0, attempt)',
        'one doubling too many'
      ],
      [
        'backoff',
        'const { attempt, initialMs, maxMs, factor = 2 }',
        'const { attempt, initialMs, maxMs, factor = 1.5 }',
        'slower growth'
      ],
      [
        'withJitter',
        '1 - fraction + random() * 2 * fraction',
        '1 + random() * fraction',
        'jitter only upwards'
      ],
      ['withJitter', 'return Math.round(ms *', 'return Math.floor(ms *', 'jitter rounds down'],
      ['backoff', 'withJitter(base, input.jitter ?? 0, input.random)', 'base', 'jitter ignored']
    ])
  },
  {
    name: 'backoff full jitter',
    tests: ['test/unit/timing/backoff.test.ts'],
    mutations: mutationsOf('src/timing/backoff.ts', [
      [
        'backoff',
        "if (input.jitter === 'full') return fullJitter(base, input.random ?? Math.random)",
        "if (input.jitter === 'full') return base",
        'full jitter ignored'
      ],
      [
        'fullJitter',
        'Math.floor(Math.min(Math.max(random(), 0), 1) * ms)',
        'Math.floor(random() * ms)',
        'full jitter unclamped'
      ],
      [
        'fullJitter',
        'Math.floor(Math.min(Math.max(random(), 0), 1) * ms)',
        'Math.round(Math.min(Math.max(random(), 0), 1) * ms)',
        'full jitter reaches the ceiling'
      ]
    ])
  }
]
