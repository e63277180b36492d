// Mutations of mode: verify's decisions, the competing-writer rule and the live tests' pruning.
import { type MutatedModule, mutationsOf } from './mutation-types.js'

export const LIVE_MODULES: MutatedModule[] = [
  {
    name: 'live',
    tests: ['test/unit/verdict/live.test.ts'],
    mutations: mutationsOf('src/verdict/live.ts', [
      [
        'decideLive',
        'if (starting && ran.id !== starting.id)',
        'if (false)',
        'the starting version is ignored'
      ],
      [
        'decideLive',
        'if (ending && ending.id !== ran.id)',
        'if (false)',
        'a promotion meanwhile is ignored'
      ],
      [
        'decideLive',
        "return facts.passed ? { result: 'Passed' } : { result: 'Failed', rollback: true }",
        "return facts.passed ? { result: 'Passed' } : { result: 'Failed', rollback: false }",
        'a failure never rolls back'
      ],
      [
        'chooseRollbackTarget',
        'if (found.id === failed.id)',
        'if (false)',
        'the failed version is a target'
      ],
      [
        'chooseRollbackTarget',
        'if (found.archived) return { ok: false, reason: `${version} is archived` }',
        '',
        'an archived target'
      ],
      [
        'chooseRollbackTarget',
        "if (found.jobStatus !== 'succeeded')",
        "if (found.jobStatus === 'failed')",
        'a running import is a target'
      ]
    ])
  },
  {
    name: 'competing-writers',
    tests: ['test/unit/coder/competing-writers.test.ts'],
    mutations: mutationsOf('src/coder/competing-writers.ts', [
      [
        'COMPETING_VERSION_NAME',
        'export const COMPETING_VERSION_NAME = /^k8s-[0-9a-f]{20}(?:-\\d+)?$/',
        'export const COMPETING_VERSION_NAME = /^k8s-[0-9a-f]{20}/',
        'any suffix counts'
      ],
      [
        'competingVersions',
        'return Number.isNaN(t) ? -Infinity : t',
        'return Number.isNaN(t) ? Infinity : t',
        'unknown times count as newest'
      ],
      [
        'competingWritersWarning',
        'if (newest.length === 0) return null',
        '',
        'a warning without versions'
      ]
    ])
  },
  {
    name: 'prune-live',
    tests: ['test/unit/gitops/prune.test.ts'],
    mutations: mutationsOf('src/gitops/prune.ts', [
      [
        'selectPrunableLive',
        'return rb - ra || ab - aa || b.path.localeCompare(a.path)',
        'return b.path.localeCompare(a.path)',
        'live tests ordered by name as text'
      ],
      [
        'selectPrunableLive',
        'if (input.keep <= 0) return []',
        'if (input.keep < 0) return []',
        'keep-tests 0 prunes live tests'
      ],
      [
        'selectPrunableLive',
        'return run ? [run.runId, run.attempt] : [-1, -1]',
        'return run ? [run.runId, run.attempt] : [Infinity, Infinity]',
        'a name without a run counts as newest'
      ]
    ])
  }
]
