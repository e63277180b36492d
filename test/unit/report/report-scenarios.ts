// Runs of the gate as journals, one per path through the report: every outcome, gate and promote
// job, commit and pull-request mode, cancels and crashes. The golden test renders each of them.
import { Journal, type StepName } from '../../../src/steps/journal.js'
import { cancelled, failed, skipped, succeeded } from '../../../src/steps/step.js'

const silent = {
  info() {},
  warning() {},
  debug() {},
  group: <T>(_t: string, b: () => Promise<T>) => b()
}
const settings = (over: Record<string, unknown> = {}, gitops: Record<string, unknown> = {}) => ({
  coder: { template: 'docker', organization: '', version: 'v2', url: 'https://coder.example.com/' },
  test: { namespace: 'coder-tests', name: 'docker-v2' },
  gitops: {
    path: 'tests',
    delivery: 'commit',
    owner: 'acme',
    repo: 'gitops',
    branch: '',
    merge: 'auto',
    ...gitops
  },
  promote: 'promote',
  mode: 'gate',
  runUrl: 'https://github.com/acme/t/actions/runs/1',
  ...over
})
const ctx = { serverUrl: 'https://github.com', repository: 'acme/t', runId: '1', runAttempt: '2' }
const preflight = {
  organization: 'acme',
  template: 'Docker',
  templateExists: true,
  startingActive: { id: 'old-id', name: 'v1', createdAt: '' },
  branch: 'main'
}
const push = {
  versionId: 'new-id',
  versionName: 'v2',
  createdAt: '',
  template: 'Docker',
  createdTemplate: false,
  reused: false
}
const commit = {
  manifest: {},
  manifestPath: 'tests/docker-v2.yaml',
  branch: 'main',
  commitSha: 'abcdef0123456789',
  commitUrl: 'https://github.com/acme/gitops/commit/abc',
  pruned: ['tests/a.yaml'],
  prunedDropped: [
    { path: 'tests/b.yaml', reason: 'replaced' },
    { path: 'tests/c.yaml', reason: 'gone' }
  ],
  onBase: true
}
const prCommit = {
  ...commit,
  branch: 'coder-template-gate/docker-v2',
  onBase: false,
  pruned: [],
  prunedDropped: []
}
const noChange = { ...commit, commitSha: '', commitUrl: undefined, pruned: [], prunedDropped: [] }
const opened = {
  number: 7,
  url: 'https://github.com/acme/gitops/pull/7',
  nodeId: 'n',
  headSha: 'h',
  author: null,
  merged: false,
  reused: false
}
const ws = { name: 'ktt-0123', ownerId: 'tester-id', deleted: 'True/Deleted' }
const clock = {
  startTime: 5_500,
  createAttemptTime: null,
  agentsReadyTime: 6_000,
  completionTime: 7_000
}
const synced = (last: unknown, extra: Record<string, unknown> = {}) => ({
  syncedAt: 5_000,
  timeline: [{ at: 5_000, phase: 'Running', reason: 'r', message: '<b>m</b>' }],
  last,
  notFoundSeen: false,
  workspace: ws,
  clock,
  ...extra
})
const unsynced = { syncedAt: null, timeline: [], last: null, notFoundSeen: true, workspace: null }
const tested = {
  ...synced({ phase: 'Succeeded', reason: 'Succeeded', message: 'ok' }),
  test: {},
  versionId: 'new-id'
}
const located = {
  versionId: 'new-id',
  versionName: 'v2',
  createdAt: '',
  template: 'docker',
  manifest: {},
  manifestPath: 'tests/docker-v2.yaml',
  branch: 'main',
  commitSha: 'abcdef0123456789abcdef0123456789abcdef01',
  commitUrl: 'https://github.com/acme/gitops/commit/abcdef01',
  starting: { id: 'expected-id', name: 'v1', createdAt: '' }
}
const tidied = (over: Record<string, unknown>) => ({
  archived: [],
  wouldArchive: [],
  notes: [],
  oursArchived: false,
  ...over
})

export type Steps = [StepName, unknown][]
/** mode: verify: inputs, preflight, the live test's commit and wait. */
export const liveSteps = (): Steps => [
  [
    'inputs',
    ok({
      settings: settings({
        mode: 'verify',
        test: { namespace: 'coder-tests', name: 'docker-live-9-1' }
      }),
      context: ctx
    })
  ],
  ['preflight', ok(preflight)],
  ['commit', ok({ ...commit, manifestPath: 'tests/docker-live-9-1.yaml' })],
  ['wait', ok({ ...tested, versionId: 'old-id' })]
]
const verified = (result: string, rollback?: object) => ({
  result,
  ran: { id: 'old-id', name: 'v1' },
  starting: { id: 'old-id', name: 'v1' },
  ending: { id: 'old-id', name: 'v1' },
  ...(rollback ? { rollback } : {})
})
const ok = (v: unknown) => succeeded(v, 'done <x>')
const gate = (s = settings()): Steps => [
  ['inputs', ok({ settings: s, context: ctx })],
  ['preflight', ok(preflight)],
  ['push', ok(push)]
]
export const SCENARIOS: [string, Steps, boolean?][] = [
  [
    'promoted',
    [
      ...gate(),
      ['commit', ok(commit)],
      ['wait', ok(tested)],
      ['promote', ok({ result: 'Promoted', confirmedBy: 're-read' })]
    ]
  ],
  [
    'already active dry-run',
    [
      ...gate(settings({ promote: 'dry-run' })),
      ['commit', ok(noChange)],
      ['wait', ok(tested)],
      ['promote', ok({ result: 'AlreadyActive', confirmedBy: 'answer' })],
      ['tidy', ok(tidied({ wouldArchive: ['v0'], notes: ['v1: kept'] }))]
    ]
  ],
  [
    'skipped',
    [
      ...gate(),
      ['commit', ok(commit)],
      ['wait', ok(tested)],
      ['promote', skipped({ result: 'Skipped', confirmedBy: '' }, 'off')],
      ['tidy', ok(tidied({ archived: ['v0'], warning: 'W <b>' }))]
    ]
  ],
  [
    'invalid',
    [['inputs', failed('invalid-input', '2 inputs are invalid', { problems: ['a <b>', 'b'] })]]
  ],
  [
    'preflight',
    [
      ['inputs', ok({ settings: settings(), context: ctx })],
      [
        'preflight',
        failed('preflight', 'checks failed', {
          problems: ['x'],
          advice: ['do `y` https://x.example/p.']
        })
      ]
    ]
  ],
  [
    'preflight cancelled',
    [
      ['inputs', ok({ settings: settings(), context: ctx })],
      ['preflight', cancelled('c')]
    ]
  ],
  [
    'push failed',
    [
      ['inputs', ok({ settings: settings(), context: ctx })],
      ['preflight', ok(preflight)],
      ['push', failed('push', 'the import failed')]
    ]
  ],
  [
    'push created',
    [
      ...gate().slice(0, 2),
      ['push', ok({ ...push, createdTemplate: true })],
      ['commit', failed('commit', 'protected')]
    ]
  ],
  ['commit cancelled', [...gate(), ['commit', cancelled('c')]]],
  [
    'pr commit failed',
    [...gate(settings({}, { delivery: 'pull-request' })), ['commit', failed('commit', 'x')]]
  ],
  [
    'pr failed',
    [
      ...gate(settings({}, { delivery: 'pull-request' })),
      ['commit', ok(prCommit)],
      ['pull-request', failed('pull-request', 'no')]
    ]
  ],
  [
    'merge timed out off',
    [
      ...gate(settings({}, { delivery: 'pull-request' })),
      ['commit', ok(prCommit)],
      ['pull-request', ok(opened)],
      [
        'merge',
        failed('pull-request', 'not merged', {
          status: 'timed out',
          facts: { pullRequest: opened, autoMergeOff: true }
        })
      ]
    ]
  ],
  [
    'merge failed on',
    [
      ...gate(settings({}, { delivery: 'pull-request' })),
      ['commit', ok(prCommit)],
      ['pull-request', ok(opened)],
      [
        'merge',
        failed('pull-request', 'closed', { facts: { pullRequest: opened, autoMergeOff: false } })
      ]
    ]
  ],
  [
    'merge cancelled',
    [
      ...gate(settings({}, { delivery: 'pull-request' })),
      ['commit', ok(prCommit)],
      ['pull-request', ok(opened)],
      ['merge', cancelled('c')]
    ]
  ],
  [
    'merge failed immediate',
    [
      ...gate(settings({}, { delivery: 'pull-request', merge: 'immediate' })),
      ['commit', ok(prCommit)],
      ['pull-request', ok(opened)],
      ['merge', failed('pull-request', 'closed', { facts: { pullRequest: opened } })]
    ]
  ],
  [
    'merged test failed',
    [
      ...gate(settings({}, { delivery: 'pull-request' })),
      ['commit', ok(prCommit)],
      ['pull-request', ok(opened)],
      ['merge', ok({ mergeCommitSha: 'fedcba9876543210' })],
      [
        'wait',
        failed('test-failed', 'The test failed. Nothing was promoted.', {
          facts: synced({ phase: 'Failed', reason: 'AgentStartError', message: 'exit 1' })
        })
      ],
      ['tidy', ok(tidied({ archived: ['v2'], oursArchived: true }))]
    ]
  ],
  [
    'sync timeout',
    [
      ...gate(),
      ['commit', ok(commit)],
      ['wait', failed('sync-timeout', 'no test', { status: 'timed out', facts: unsynced })]
    ]
  ],
  [
    'wait cancelled synced',
    [
      ...gate(),
      ['commit', ok(commit)],
      [
        'wait',
        cancelled(
          'c',
          synced(
            { phase: 'Running', reason: 'WaitingForBuild', message: '' },
            { workspace: { name: 'ktt-1' } }
          )
        )
      ]
    ]
  ],
  ['wait cancelled no facts', [...gate(), ['commit', ok(commit)], ['wait', cancelled('c')]]],
  [
    'integrity',
    [
      ...gate(),
      ['commit', ok(commit)],
      [
        'wait',
        failed('integrity', 'does not prove', {
          problems: ['spec'],
          facts: synced({ phase: 'Succeeded', reason: 'Succeeded', message: 'ok' })
        })
      ]
    ]
  ],
  [
    'refused',
    [
      ...gate(),
      ['commit', ok(commit)],
      ['wait', ok(tested)],
      [
        'promote',
        failed('refused', 'would roll back', { status: 'refused', facts: { requestSent: false } })
      ]
    ]
  ],
  [
    'promote failed sent',
    [
      ...gate(),
      ['commit', ok(commit)],
      ['wait', ok(tested)],
      ['promote', failed('promote-failed', '403', { facts: { requestSent: true } })]
    ]
  ],
  [
    'promote cancelled sent',
    [
      ...gate(),
      ['commit', ok(commit)],
      ['wait', ok(tested)],
      ['promote', cancelled('c', { requestSent: true })]
    ]
  ],
  [
    'promote cancelled unsent',
    [
      ...gate(),
      ['commit', ok(commit)],
      ['wait', ok(tested)],
      ['promote', cancelled('c', { requestSent: false })]
    ]
  ],
  [
    'crash',
    [
      ...gate(),
      ['commit', ok(commit)],
      ['wait', ok(tested)],
      ['promote', ok({ result: 'Promoted', confirmedBy: 'answer' })]
    ],
    true
  ],
  ['crash early', [['inputs', ok({ settings: settings(), context: ctx })]], true],
  [
    'promote job',
    [
      ['inputs', ok({ settings: settings({ mode: 'promote' }), context: ctx })],
      ['preflight', ok(preflight)],
      ['locate', ok(located)],
      ['wait', ok(tested)],
      ['promote', ok({ result: 'Promoted', confirmedBy: 'answer' })]
    ]
  ],
  [
    'promote job refused',
    [
      ['inputs', ok({ settings: settings({ mode: 'promote' }), context: ctx })],
      ['preflight', ok(preflight)],
      ['locate', ok(located)],
      ['wait', ok(tested)],
      [
        'promote',
        failed('refused', 'changed', { status: 'refused', facts: { requestSent: false } })
      ]
    ]
  ],
  [
    'promote job sent unread',
    [
      ['inputs', ok({ settings: settings({ mode: 'promote' }), context: ctx })],
      ['preflight', ok(preflight)],
      ['locate', ok(located)],
      ['wait', ok(tested)],
      ['promote', failed('promote-failed', 'x', { facts: { requestSent: true } })]
    ]
  ],
  [
    'locate failed',
    [
      ['inputs', ok({ settings: settings({ mode: 'promote' }), context: ctx })],
      ['preflight', ok(preflight)],
      ['locate', failed('locate', 'no manifest')]
    ]
  ],
  ['verify passed', [...liveSteps(), ['verify', ok(verified('Passed'))]]],
  [
    'verify inconclusive',
    [
      ...liveSteps(),
      [
        'verify',
        ok({ ...verified('Inconclusive'), why: 'the test ran v1, and <v3> is active now' })
      ]
    ]
  ],
  [
    'verify rolled back',
    [
      ...liveSteps(),
      [
        'verify',
        failed('test-failed', 'The live version failed; rolled back to v0.', {
          facts: verified('RolledBack', {
            outcome: 'applied',
            target: { id: 'v0-id', name: 'v0' },
            detail: 'guard: v1 was still active'
          })
        })
      ]
    ]
  ],
  [
    'verify rollback refused',
    [
      ...liveSteps(),
      [
        'verify',
        failed('test-failed', 'The live version failed; no rollback.', {
          facts: verified('Failed', {
            outcome: 'refused',
            target: { id: 'v0-id', name: 'v0' },
            detail: 'the active version is v3 (v3-id) now'
          })
        })
      ]
    ]
  ],
  ['verify preflight failed', [liveSteps()[0]!, ['preflight', failed('preflight', 'no access')]]],
  [
    'verify rollback target made active by another writer',
    [
      ...liveSteps(),
      [
        'verify',
        ok({
          ...verified('Inconclusive', {
            outcome: 'already-active',
            target: { id: 'v0-id', name: 'v0' },
            detail: 'the rollback target is already active; this run sent no promote request'
          }),
          why: 'the test of v1 failed, and the rollback target v0 became active meanwhile, not by this run'
        })
      ]
    ]
  ],
  [
    'verify rollback skipped (promote: false)',
    [
      ...liveSteps(),
      [
        'verify',
        failed('test-failed', 'The live version failed; no rollback: promote: false.', {
          facts: verified('Failed', {
            outcome: 'skipped',
            target: { id: 'v0-id', name: 'v0' },
            detail: 'promote: false, nothing sent'
          })
        })
      ]
    ]
  ],
  [
    'verify cancelled after the rollback request went out',
    [
      ...liveSteps(),
      [
        'verify',
        cancelled(
          'The run was cancelled.',
          verified('Failed', {
            outcome: 'sent',
            target: { id: 'v0-id', name: 'v0' },
            detail: 'the run was cancelled before its answer'
          })
        )
      ]
    ]
  ]
]
export const OBSERVED = [
  null,
  { id: 'new-id', name: 'v2', createdAt: '' },
  { id: 'old-id', name: 'v1', createdAt: '' }
]
export const ENVS = [
  {},
  {
    actionRepository: 'acme/gate',
    actionRef: 'v1',
    serverUrl: 'https://ghe.example',
    repository: 'acme/t',
    runId: '9',
    runAttempt: '1'
  }
]

export async function journalOf(steps: Steps, crash: boolean | undefined): Promise<Journal> {
  let t = 1_000
  const journal = new Journal({
    signal: new AbortController().signal,
    log: silent,
    now: () => (t += 1_000)
  })
  try {
    for (const [name, result] of steps) await journal.run(name, async () => result as never)
    if (crash) throw new Error('boom')
  } catch (error) {
    journal.stopped(error)
  }
  return journal
}
