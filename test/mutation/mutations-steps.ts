// Mutations of the commit and merge steps, caught by their in-process tests on the in-memory Git
// host (test/gitops/memory/host.ts): the seam lets a step's decisions be mutated like a pure table.
import { type MutatedModule, mutationsOf } from './mutation-types.js'

export const STEP_MODULES: MutatedModule[] = [
  {
    name: 'commit step',
    tests: ['test/unit/steps/commit.test.ts'],
    mutations: mutationsOf('src/steps/commit.ts', [
      [
        'commitAdvice',
        "if (failure === 'manifest-conflict')",
        "if (failure === 'rate-limited')",
        'a conflict gets the token advice'
      ],
      [
        'commitManifest',
        '    if (toPullRequest)\n',
        '    if (false)\n',
        'a spent branch is never moved forward'
      ],
      [
        'logOutcome',
        'if (outcome.lostRaces > 0)',
        'if (outcome.lostRaces > 1)',
        'one lost race goes unsaid'
      ]
    ])
  },
  {
    name: 'merge step',
    tests: ['test/unit/steps/pull-request-step.test.ts'],
    mutations: mutationsOf('src/steps/merge.ts', [
      [
        'mergeGatePullRequest',
        "asked = gitops.merge === 'auto'",
        'asked = false',
        'auto-merge is never turned off'
      ],
      [
        'mergeFailed',
        '  if (autoMergeAsked) {',
        '  if (autoMergeAsked && timedOut) {',
        'an error leaves auto-merge on'
      ],
      [
        'mergeGatePullRequest',
        "if (gitops.merge === 'manual')",
        "if (gitops.merge === 'auto')",
        'manual does not say it waits for a person'
      ]
    ])
  }
]
