// Mutations of the GitOps and Kubernetes decisions: keep-tests, preflight, pull requests, watch.
import { type MutatedModule, mutationsOf } from './mutation-types.js'

export const GITOPS_KUBE_MODULES: MutatedModule[] = [
  {
    name: 'prune',
    tests: ['test/unit/gitops/prune.test.ts'],
    mutations: mutationsOf('src/gitops/prune.ts', [
      [
        'planPrune',
        'if (input.keep < 1) return plan',
        'if (input.keep < 0) return plan',
        'keep-tests 0 prunes'
      ],
      [
        'keptWhy',
        'if (activeVersionName && newest.versionName === activeVersionName)',
        'if (newest.versionName === activeVersionName)',
        'an empty active name protects unnamed manifests'
      ],
      [
        'keptWhy',
        'Number.isNaN(time) || Number.isNaN(ours)',
        'Number.isNaN(time)',
        "this run's unknown time still prunes"
      ],
      [
        'mayRemoveTest',
        "return state === 'final' || state === 'absent'",
        "return state !== 'running'",
        'a test the cluster cannot tell about is removed'
      ],
      [
        'byNewestFirst',
        'if (aKnown && ta !== tb) return tb - ta',
        'if (aKnown && ta !== tb) return ta - tb',
        'order'
      ],
      [
        'byNewestFirst',
        'a.path < b.path ? 1 : a.path > b.path ? -1 : 0',
        'a.path < b.path ? -1 : a.path > b.path ? 1 : 0',
        'ties in reverse path order'
      ],
      [
        'isGateManifestFor',
        'manifest.spec?.template === `${owner.organization}.${owner.template}`',
        'manifest.spec?.template?.endsWith(owner.template) === true',
        'another organization counts as ours'
      ]
    ])
  },
  {
    name: 'gitOpsProblems',
    tests: ['test/unit/gitops/github/access-problems.test.ts'],
    mutations: mutationsOf('src/gitops/github/access.ts', [
      [
        'gitOpsProblems',
        'if (facts.canWrite === false)',
        'if (!facts.canWrite)',
        'unknown write right is a problem'
      ],
      [
        'gitOpsProblems',
        "if (want.delivery === 'commit') problems.push(...commitRuleProblems(facts))",
        'problems.push(...commitRuleProblems(facts))',
        'a rule against direct commits refuses pull-request mode'
      ],
      [
        'commitRuleProblems',
        '.filter((rule) => !rule.bypass)',
        '.filter(() => true)',
        'a bypassed rule still fails'
      ],
      [
        'gitOpsProblems',
        "want.merge === 'auto' && facts.allowAutoMerge === false",
        'facts.allowAutoMerge === false',
        'immediate merge needs auto-merge'
      ],
      [
        'gitOpsProblems',
        "want.delivery === 'pull-request' && want.merge === 'auto'",
        "want.merge === 'auto'",
        'commit mode needs auto-merge'
      ],
      [
        'fix',
        "want.delivery === 'pull-request'\n          ? 'Grant",
        "want.delivery === 'commit'\n          ? 'Grant",
        'the fix of the other mode'
      ]
    ])
  },
  {
    name: 'pull-request-state',
    tests: ['test/unit/gitops/github/pull-request/state.test.ts'],
    mutations: mutationsOf('src/gitops/github/pull-request/state.ts', [
      [
        'pullRequestState',
        'if (pr.merged === true || (pr.merged_at ?? null) !== null)',
        'if (pr.merged === true)',
        'the list form is never merged'
      ],
      [
        'mergeReadiness',
        "if (pr.mergeable === null || pr.mergeable_state === 'unknown') return 'computing'",
        "if (pr.mergeable === null) return 'computing'",
        'state unknown is tried'
      ],
      [
        'mergeAnswerDecision',
        'lines.length > 0 && lines.every((line) => PENDING_CHECK.test(line))',
        'lines.some((line) => PENDING_CHECK.test(line))',
        'one pending check hides a refusal'
      ],
      [
        'unprocessable',
        "const unprocessable = errors.filter((error) => error.type === 'UNPROCESSABLE')",
        'const unprocessable = errors',
        'an untyped text is trusted'
      ],
      [
        'AUTO_MERGE_NOT_ALLOWED',
        '/^(?:Pull request )?Auto merge is not allowed for this repository\\.?$/',
        '/(?:Pull request )?Auto merge is not allowed for this repository\\.?$/',
        'unanchored at the start'
      ],
      [
        'reason',
        'const reason = message.trim()',
        'const reason = message',
        "GitHub's text untrimmed"
      ]
    ])
  },
  {
    name: 'watch-state',
    tests: ['test/unit/kube/watch-state.test.ts'],
    mutations: mutationsOf('src/kube/watch-state.ts', [
      [
        'advance',
        'if (at < deadlineOf(step.state, rules)) return step',
        'if (at <= deadlineOf(step.state, rules)) return step',
        'the deadline instant is still in time'
      ],
      [
        'advance',
        "if (step.next.do === 'done' || step.next.do === 'deleted') return step",
        "if (step.next.do === 'done') return step",
        'a deletion past the deadline is a timeout'
      ],
      [
        'healthy',
        'state.news || at - state.watchStartedAt >= rules.minHealthyWatchMs',
        'state.news && at - state.watchStartedAt >= rules.minHealthyWatchMs',
        'a long quiet watch backs off'
      ],
      [
        'unchanged',
        'const unchanged = state.last !== null && sameVersion(state.last, object)',
        'const unchanged = state.last !== null',
        'a changed object keeps the old resourceVersion'
      ],
      [
        'afterEnd',
        'return healthy ? go({ ...state, failures: 0 }, then, at) : backOff(state, then, rules)',
        'return healthy ? go(state, then, at) : backOff(state, then, rules)',
        'a healthy watch keeps the backoff'
      ],
      [
        'firstSeenAt',
        'firstSeenAt: state.firstSeenAt ?? at',
        'firstSeenAt: at',
        'each change moves the deadline'
      ],
      [
        'afterList',
        'return state.present ? { ...step, observed: null } : step',
        'return { ...step, observed: null }',
        'an absence is reported twice'
      ]
    ])
  },
  {
    name: 'kube accessNeeds',
    tests: ['test/unit/kube/kube-access.test.ts'],
    mutations: mutationsOf('src/kube/access.ts', [
      [
        'accessNeeds',
        '  if (promote)\n',
        '  if (true)\n',
        'a run that never promotes needs promote'
      ],
      ['accessNeeds', "verb: 'create',", "verb: 'update',", 'the wrong promote verb'],
      [
        'needs',
        "test('watch', 'wait for the test')",
        "test('get', 'wait for the test')",
        'watch not asked'
      ],
      [
        'accessNeeds',
        "        name: template,\n        purpose: 'promote the tested version',",
        "        purpose: 'promote the tested version',",
        'promote asked for every template'
      ],
      [
        'name',
        'const name = need.name ? ` "${need.name}"` : \'\'',
        "const name = ''",
        'the message leaves out the name'
      ]
    ])
  },
  {
    name: 'branchGuard',
    tests: ['test/unit/gitops/branch-guard.test.ts'],
    mutations: mutationsOf('src/gitops/branch-guard.ts', [
      ['foreignChange', 'if (changes.base !== gate.base)', 'if (false)', 'another base is merged'],
      [
        'foreignChange',
        'changes.openedBy === undefined || !sameAccount(changes.openedBy, gate.viewer)',
        'changes.openedBy === undefined',
        'any opener'
      ],
      [
        'sameAccount',
        'if (a.id !== undefined && b.id !== undefined) return a.id === b.id',
        '',
        'a login stands for an id'
      ],
      [
        'foreignChange',
        'if (found !== manifest.text)',
        'if (found === null)',
        'any manifest bytes'
      ],
      ['foreignChange', "? file.status === 'removed'", '? false', 'the manifest may be removed'],
      [
        'foreignChange',
        ": !(removals.has(file.path) && file.status === 'removed')",
        ': !removals.has(file.path)',
        'a removal path may be modified'
      ]
    ])
  },
  {
    name: 'pull-request target',
    tests: ['test/gitops/github/pull-request/pull-request.test.ts'],
    mutations: [
      ...mutationsOf('src/gitops/github/pull-request/wait-for-merge.ts', [
        [
          'checkBase',
          'if (base === undefined || pr.base.ref === base) return',
          'if (base === undefined || pr.base.ref !== null) return',
          'a changed base is merged'
        ],
        [
          'waitForMerge',
          "checkBase(pr, state === 'merged', input.expectedBase)",
          "checkBase(pr, state === 'merged', undefined)",
          'the wait never looks at the base'
        ]
      ]),
      ...mutationsOf('src/gitops/github/pull-request/pull-request.ts', [
        [
          'ownOnly',
          'if (openedBy !== undefined && sameAccount(openedBy, viewer)) return existing',
          'return existing',
          'a pull request of another account is reused'
        ]
      ])
    ]
  }
]
