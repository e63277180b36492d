// Mutations of the GitOps and Kubernetes decisions: keep-tests, preflight, pull requests, watch.
import { type MutatedModule, mutationsOf } from './mutation-types.js'

export const GITOPS_KUBE_MODULES: MutatedModule[] = [
  {
    name: 'prune',
    tests: ['test/unit/gitops/prune.test.ts'],
    mutations: mutationsOf('src/gitops/prune.ts', [
      ['if (input.keep < 1) return []', 'if (input.keep < 0) return []', 'keep-tests 0 prunes'],
      [
        '!(input.activeVersionName && c.versionName === input.activeVersionName)',
        '!(c.versionName === input.activeVersionName)',
        'an empty active name protects unnamed manifests'
      ],
      [
        'if (aKnown !== bKnown) return aKnown ? -1 : 1',
        'if (aKnown !== bKnown) return aKnown ? 1 : -1',
        'unknown times count as newest'
      ],
      [
        'if (aKnown && ta !== tb) return tb - ta',
        'if (aKnown && ta !== tb) return ta - tb',
        'order'
      ],
      [
        'a.path < b.path ? 1 : a.path > b.path ? -1 : 0',
        'a.path < b.path ? -1 : a.path > b.path ? 1 : 0',
        'ties in reverse path order'
      ],
      [
        'manifest.spec?.template === `${owner.organization}.${owner.template}`',
        'manifest.spec?.template?.endsWith(owner.template) === true',
        'another organization counts as ours'
      ]
    ])
  },
  {
    name: 'gitOpsProblems',
    tests: ['test/unit/gitops/gitops-problems.test.ts'],
    mutations: mutationsOf('src/gitops/access.ts', [
      ['if (facts.canWrite === false)', 'if (!facts.canWrite)', 'unknown write right is a problem'],
      [
        "if (want.mode === 'commit' && facts.pullRequestRequiredBy)",
        'if (facts.pullRequestRequiredBy)',
        'a required pull request refuses pull-request mode'
      ],
      [
        "want.merge === 'auto' && facts.allowAutoMerge === false",
        'facts.allowAutoMerge === false',
        'immediate merge needs auto-merge'
      ],
      [
        "want.mode === 'pull-request' && want.merge === 'auto'",
        "want.merge === 'auto'",
        'commit mode needs auto-merge'
      ],
      [
        "want.mode === 'pull-request'\n          ? 'Grant",
        "want.mode === 'commit'\n          ? 'Grant",
        'the fix of the other mode'
      ]
    ])
  },
  {
    name: 'pull-request-state',
    tests: ['test/unit/gitops/pull-request-state.test.ts'],
    mutations: mutationsOf('src/gitops/pull-request-state.ts', [
      [
        'if (pr.merged === true || (pr.merged_at ?? null) !== null)',
        'if (pr.merged === true)',
        'the list form is never merged'
      ],
      [
        "if (pr.mergeable === null || pr.mergeable_state === 'unknown') return 'computing'",
        "if (pr.mergeable === null) return 'computing'",
        'state unknown is tried'
      ],
      [
        'lines.length > 0 && lines.every((line) => PENDING_CHECK.test(line))',
        'lines.some((line) => PENDING_CHECK.test(line))',
        'one pending check hides a refusal'
      ],
      [
        "const unprocessable = errors.filter((error) => error.type === 'UNPROCESSABLE')",
        'const unprocessable = errors',
        'an untyped text is trusted'
      ],
      [
        '/^(?:Pull request )?Auto merge is not allowed for this repository\\.?$/',
        '/(?:Pull request )?Auto merge is not allowed for this repository\\.?$/',
        'unanchored at the start'
      ],
      ['const reason = message.trim()', 'const reason = message', "GitHub's text untrimmed"]
    ])
  },
  {
    name: 'watch-state',
    tests: ['test/unit/kube/watch-state.test.ts'],
    mutations: mutationsOf('src/kube/watch-state.ts', [
      [
        "if (step.next.do === 'done' || at < deadlineOf(step.state, rules)) return step",
        "if (step.next.do === 'done' || at <= deadlineOf(step.state, rules)) return step",
        'the deadline instant is still in time'
      ],
      [
        'state.news || at - state.watchStartedAt >= rules.minHealthyWatchMs',
        'state.news && at - state.watchStartedAt >= rules.minHealthyWatchMs',
        'a long quiet watch backs off'
      ],
      [
        'const unchanged = state.last !== null && sameVersion(state.last, object)',
        'const unchanged = state.last !== null',
        'a changed object keeps the old resourceVersion'
      ],
      [
        'return healthy ? go({ ...state, failures: 0 }, then, at) : backOff(state, then, rules)',
        'return healthy ? go(state, then, at) : backOff(state, then, rules)',
        'a healthy watch keeps the backoff'
      ],
      ['firstSeenAt: state.firstSeenAt ?? at', 'firstSeenAt: at', 'each change moves the deadline'],
      [
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
      ['  if (promote)\n', '  if (true)\n', 'a run that never promotes needs promote'],
      ["verb: 'create',", "verb: 'update',", 'the wrong promote verb'],
      ["test('watch', 'wait for the test')", "test('get', 'wait for the test')", 'watch not asked'],
      [
        "        name: template,\n        purpose: 'promote the tested version',",
        "        purpose: 'promote the tested version',",
        'promote asked for every template'
      ],
      [
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
      ['if (changes.base !== gate.base)', 'if (false)', 'another base is merged'],
      [
        'changes.openedBy === null || !sameAccount(changes.openedBy, gate.viewer)',
        'changes.openedBy === null',
        'any opener'
      ],
      ['if (a.id !== null && b.id !== null) return a.id === b.id', '', 'a login stands for an id'],
      [
        'if (changes.manifestText !== gate.manifestText)',
        'if (changes.manifestText === null)',
        'any manifest bytes'
      ],
      ["? file.status === 'removed'", '? false', 'the manifest may be removed'],
      [
        ": !(removals.has(file.path) && file.status === 'removed')",
        ': !removals.has(file.path)',
        'a removal path may be modified'
      ]
    ])
  },
  {
    name: 'pull-request target',
    tests: ['test/gitops/pull-request.test.ts'],
    mutations: [
      ...mutationsOf('src/gitops/wait-for-merge.ts', [
        [
          'if (base === undefined || pr.base.ref === base) return',
          'if (base === undefined || pr.base.ref !== null) return',
          'a changed base is merged'
        ],
        [
          "checkBase(pr, state === 'merged', input.expectedBase)",
          "checkBase(pr, state === 'merged', undefined)",
          'the wait never looks at the base'
        ]
      ]),
      ...mutationsOf('src/gitops/pull-request.ts', [
        [
          'if (openedBy !== null && sameAccount(openedBy, viewer)) return existing',
          'return existing',
          'a pull request of another account is reused'
        ]
      ])
    ]
  }
]
