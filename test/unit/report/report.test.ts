// The report is built from the journal of step results: each path through the run gives its
// outcome, rows, outputs and advice, and every text from outside is escaped in the summary.
import { describe, expect, it } from '@jest/globals'
import { buildReport } from '../../../src/report/build.js'
import { escapeMarkdown, renderComment } from '../../../src/report/comment.js'
import { epilogueLines } from '../../../src/report/epilogue.js'
import { outputsOf } from '../../../src/report/outputs.js'
import { emptyReport, type RunReport } from '../../../src/report/report.js'
import {
  coderVersionUrl,
  commitUrlOf,
  runUrlOf,
  troubleshootingUrlOf
} from '../../../src/report/links.js'
import { escapeHtml, headline, renderSummary, richText } from '../../../src/report/summary.js'
import { summaryAsText } from '../../sandbox/summary-text.js'
import { Journal, type StepName, type StepValues } from '../../../src/steps/journal.js'
import { cancelled, failed, skipped, type StepResult, succeeded } from '../../../src/steps/step.js'

const silent = {
  info() {},
  warning() {},
  debug() {},
  group: <T>(_t: string, b: () => Promise<T>) => b()
}

const settings = {
  coder: { template: 'docker', organization: '', version: 'v2', url: 'https://coder.example.com/' },
  test: { namespace: 'coder-tests', name: 'docker-v2' },
  gitops: { path: 'tests', delivery: 'commit', owner: 'acme', repo: 'gitops', branch: '' },
  promote: 'promote',
  runUrl: 'https://github.com/acme/t/actions/runs/1'
}
const runContext = {
  serverUrl: 'https://github.com',
  repository: 'acme/t',
  runId: '1',
  runAttempt: '2'
}
const values = {
  inputs: { settings, context: runContext },
  preflight: {
    organization: 'acme',
    template: 'docker',
    templateExists: true,
    startingActive: { id: 'old-id', name: 'v1', createdAt: '2026-12-01T00:00:00Z' },
    branch: 'main'
  },
  push: {
    versionId: 'new-id',
    versionName: 'v2',
    createdAt: '2026-12-02T00:00:00Z',
    template: 'docker',
    createdTemplate: false,
    reused: false
  },
  commit: {
    manifest: {},
    manifestPath: 'tests/docker-v2.yaml',
    branch: 'main',
    commitSha: 'abcdef0123456789',
    commitUrl: 'https://github.com/acme/gitops/commit/abc',
    pruned: ['tests/docker-v0.yaml']
  },
  wait: {
    syncedAt: 5_000,
    timeline: [{ at: 6_000, phase: 'Succeeded', reason: 'AgentsReady', message: 'ok' }],
    last: { phase: 'Succeeded', reason: 'AgentsReady', message: 'ok' },
    notFoundSeen: true,
    test: {},
    versionId: 'new-id'
  },
  promote: { result: 'Promoted', confirmedBy: 'answer' }
} as unknown as StepValues

type Outcomes = Partial<{
  [K in StepName]: StepResult<StepValues[K], never> | StepResult<never, unknown>
}>

/** A journal in which every step up to the first failure succeeded with `values`. */
async function journalOf(results: Outcomes): Promise<Journal> {
  let clock = 1_000
  const journal = new Journal({
    signal: new AbortController().signal,
    log: silent,
    now: () => (clock += 1_000)
  })
  const order: StepName[] = ['inputs', 'preflight', 'push', 'commit', 'wait', 'promote']
  try {
    for (const name of order) {
      const result = results[name] ?? succeeded(values[name], `${name} done`)
      await journal.run(name, async () => result as never)
    }
  } catch (error) {
    journal.stopped(error)
  }
  return journal
}

// What main.ts passes from the environment; the inputs' run context wins when the inputs are valid.
const runEnv = {
  serverUrl: 'https://github.com',
  repository: 'acme/t',
  runId: '1',
  runAttempt: '2'
}
const observed = { id: 'new-id', name: 'v2', createdAt: '2026-12-02T00:00:00Z' }
const build = (journal: Journal, active = observed): RunReport =>
  buildReport(journal, {
    startedAt: 0,
    observed: active,
    actionRepository: 'acme/coder-template-gate',
    actionRef: 'v1',
    ...runEnv
  })

describe('buildReport', () => {
  it('a promoted run: outcome, facts, rows and outputs from the steps and the observed version', async () => {
    const report = build(await journalOf({}))
    expect(report.outcome).toBe('promoted')
    expect(report.rows.map((r) => `${r.name}:${r.result}`)).toEqual([
      'preflight:succeeded',
      'push:succeeded',
      'commit:succeeded',
      'sync:succeeded',
      'test:succeeded',
      'promote:succeeded'
    ])
    expect(report.rows.find((r) => r.name === 'test')).toMatchObject({ startedAt: 5_000 })
    expect(outputsOf(report)).toMatchObject({
      'version-id': 'new-id',
      'previous-active-version-id': 'old-id',
      'active-version-id': 'new-id',
      'promotion-result': 'Promoted',
      'manifest-path': 'tests/docker-v2.yaml',
      'pruned-manifests': 'tests/docker-v0.yaml',
      phase: 'Succeeded'
    })
    expect(report.leftBehind).toEqual([])
  })

  it('active-version-id is what Coder said at the end, not what the run expected', async () => {
    const report = build(await journalOf({}), { id: 'someone-else', name: 'v9', createdAt: '' })
    expect(outputsOf(report)['active-version-id']).toBe('someone-else')
    const unread = buildReport(await journalOf({}), { startedAt: 0, observed: null })
    expect(outputsOf(unread)['active-version-id']).toBe('')
  })

  it.each([
    [
      'invalid input',
      { inputs: failed('invalid-input', '2 inputs are invalid', { problems: ['a', 'b'] }) },
      'invalid-input',
      'not run'
    ],
    [
      'a failed preflight',
      { preflight: failed('preflight', 'checks failed', { problems: ['x'] }) },
      'failed',
      'not run'
    ],
    ['a failed push', { push: failed('push', 'push failed') }, 'failed', 'not run'],
    [
      'a sync timeout',
      {
        wait: failed('sync-timeout', 'no test', {
          status: 'timed out',
          facts: { syncedAt: null, timeline: [], last: null, notFoundSeen: true }
        })
      },
      'timed-out',
      'timed out'
    ],
    [
      'a failed test',
      {
        wait: failed('test-failed', 'AgentStartError', {
          facts: {
            syncedAt: 5_000,
            timeline: [],
            last: { phase: 'Failed', reason: 'AgentStartError', message: 'm' },
            notFoundSeen: false
          }
        })
      },
      'failed',
      'succeeded'
    ],
    [
      'a refusal',
      {
        promote: failed('refused', 'would roll back', {
          status: 'refused',
          facts: { requestSent: false }
        })
      },
      'refused',
      'succeeded'
    ],
    ['a cancel', { wait: cancelled('cancelled') }, 'cancelled', 'cancelled']
  ] as const)('%s', async (_name, results, outcome, syncRow) => {
    const report = build(await journalOf(results as Outcomes))
    expect(report.outcome).toBe(outcome)
    const failure = Object.values(results)[0] as { failure: { kind: string } }
    expect(report.failure?.kind).toBe(failure.failure.kind)
    expect(report.failure?.troubleshooting?.url).toBe(
      `https://github.com/acme/coder-template-gate/blob/v1/docs/troubleshooting.md#${failure.failure.kind}`
    )
    if (outcome !== 'invalid-input')
      expect(report.rows.find((r) => r.name === 'sync')?.result).toBe(syncRow)
  })

  it('a refusal says Refused, and what stays behind', async () => {
    const report = build(
      await journalOf({
        promote: failed('refused', 'would roll back', {
          status: 'refused',
          facts: { requestSent: false }
        })
      }),
      { id: 'old-id', name: 'v1', createdAt: '' }
    )
    expect(report.promotion.result).toBe('Refused')
    expect(headline(report)).toContain('refused')
    expect(report.leftBehind.join('\n')).toContain('Version v2 (new-id) stays in Coder, inactive')
    expect(report.leftBehind.join('\n')).toContain(
      'The test coder-tests/docker-v2 stays in the cluster while its manifest is in Git'
    )
    expect(report.test.inspectCommand).toBe(
      'kubectl get codertemplatetest -n coder-tests docker-v2 -o yaml'
    )
  })

  /**
   * The real Journal, cancelled while the promote step's body still runs: the race with the cancel
   * wins, and the facts the step published before (or none) are what the report sees.
   */
  async function cancelledDuringPromote(sent: boolean): Promise<Journal> {
    const controller = new AbortController()
    const journal = new Journal({ signal: controller.signal, log: silent, now: () => 1_000 })
    try {
      for (const name of ['inputs', 'preflight', 'push', 'commit', 'wait'] as const)
        await journal.run(name, async () => succeeded(values[name], `${name} done`) as never)
      await journal.run('promote', (context) => {
        if (sent) context.publish({ requestSent: true })
        controller.abort()
        return new Promise(() => {}) // the promote request never answers
      })
    } catch (error) {
      journal.stopped(error)
    }
    return journal
  }

  it('a cancel during the promote request keeps requestSent, through the real Journal', async () => {
    const journal = await cancelledDuringPromote(true)
    const entry = journal.entry('promote')!
    expect(entry.result.ok).toBe(false)
    expect(!entry.result.ok && entry.result.failure.status).toBe('cancelled')
    expect(!entry.result.ok && entry.result.facts).toEqual({ requestSent: true })
  })

  it('a cancel during the promote request says the version may be active, and how to check', async () => {
    // The final read still shows the previous version: the request may yet apply.
    const report = build(await cancelledDuringPromote(true), {
      id: 'old-id',
      name: 'v1',
      createdAt: ''
    })
    expect(report.outcome).toBe('cancelled')
    expect(report.template.active?.id).toBe('old-id')
    const check = 'coder templates versions list docker -O acme'
    const texts = {
      summary: summaryAsText(renderSummary(report, 0)),
      epilogue: epilogueLines(report).join('\n'),
      comment: renderComment(report)
    }
    for (const [where, text] of Object.entries(texts)) {
      expect([where, text]).toEqual([where, expect.stringContaining('may be active')])
      expect([where, text]).toEqual([where, expect.stringContaining(check)])
      expect([where, /nothing was promoted/i.test(text)]).toEqual([where, false])
    }
    expect(report.leftBehind.join('\n')).not.toContain('stays in Coder, inactive')
    expect(report.rows.find((r) => r.name === 'promote')?.detail).toContain(
      'after the promote request was sent'
    )
  })

  it('a cancel during the promote request names the version active when the final read shows it', async () => {
    const report = build(await cancelledDuringPromote(true), observed)
    expect(report.template.active?.id).toBe('new-id')
    expect(headline(report)).toContain('the version is active')
    expect(report.failure?.error).toContain('v2 (new-id) is active')
    expect(report.failure?.error).not.toMatch(/nothing was promoted/i)
  })

  it('a cancel before the promote request says nothing was promoted', async () => {
    const report = build(await cancelledDuringPromote(false), {
      id: 'old-id',
      name: 'v1',
      createdAt: ''
    })
    expect(report.promotion.requested).toBe(false)
    expect(headline(report)).toContain('nothing was promoted')
    expect(report.failure?.error).toBe('The run was cancelled. Nothing was promoted.')
  })

  it('skipped promotion is passed; a dry-run is would-promote', async () => {
    expect(
      build(
        await journalOf({
          promote: skipped({ result: 'Skipped', confirmedBy: '' }, 'promote: false')
        })
      ).outcome
    ).toBe('passed')
    expect(
      build(
        await journalOf({
          promote: succeeded({ result: 'WouldPromote', confirmedBy: 'answer' }, 'x')
        })
      ).outcome
    ).toBe('would-promote')
  })

  it('an error outside any step is a failure, not a success', async () => {
    const journal = await journalOf({})
    journal.stopped(new Error('boom'))
    expect(build(journal).outcome).toBe('failed')
  })
})

describe('renderSummary', () => {
  it('escapes what came from outside and keeps one line', async () => {
    const report = build(
      await journalOf({
        wait: failed('test-failed', 'The test failed: <script>alert(1)</script>', {
          advice: ['<b>x</b>'],
          facts: { syncedAt: 5_000, timeline: [], last: null, notFoundSeen: false }
        })
      })
    )
    const html = renderSummary(report, 70_000)
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).not.toContain('<script>')
    expect(html).not.toContain('<b>x</b>')
    expect(html).toContain('<tr><td>test</td><td>failed</td>')
    expect(html).toContain('What stays behind')
    expect(html).toContain('docs/troubleshooting.md#test-failed')
  })
  it('escapeHtml cuts long text and blank lines', () => {
    expect(escapeHtml('x'.repeat(10), 4)).toBe('xxxx…')
    expect(escapeHtml('a\n\n# heading\r\n* item')).toBe('a # heading * item')
  })
})

describe('the pull-request comment and the log epilogue', () => {
  it('neutralises Markdown, mentions and links from other systems', () => {
    expect(escapeMarkdown('[x](https://evil) @org/team `code` <img>')).not.toMatch(/[[\]()@`<>]/)
    const report = {
      ...emptyReport(0),
      outcome: 'failed' as const,
      failure: { error: 'ping @everyone [here](https://evil)', problems: [], advice: [] }
    }
    const body = renderComment(report)
    expect(body).not.toContain('@everyone')
    expect(body).not.toContain('](https://evil)')
  })
  it('the epilogue lists the error, the advice and what stays behind', () => {
    const report = {
      ...emptyReport(0),
      outcome: 'failed' as const,
      failure: { error: 'E', problems: [], advice: ['A'] },
      leftBehind: ['L']
    }
    expect(epilogueLines(report)).toEqual(expect.arrayContaining(['E', '  - A', '  - L']))
  })
})

const syncedFacts = (last: { phase: string; reason: string; message: string } | null) => ({
  syncedAt: 5_000,
  timeline: [{ at: 5_000, ...(last ?? { phase: '', reason: '', message: '' }) }],
  last,
  notFoundSeen: false,
  workspace: { name: 'ktt-0123', ownerId: 'tester-id', deleted: 'True/Deleted' }
})
const unsynced = { syncedAt: null, timeline: [], last: null, notFoundSeen: true, workspace: null }
const failedLast = { phase: 'Failed', reason: 'AgentStartError', message: 'exit 1' }
const passedLast = { phase: 'Succeeded', reason: 'Succeeded', message: 'ok' }

/** One journal per failure kind: the step it stops at, and what stays behind. */
const FAILURES: [string, Outcomes, string, RegExp][] = [
  [
    'invalid-input',
    { inputs: failed('invalid-input', '1 input is invalid', { problems: ['Input "x"'] }) },
    '',
    /^Nothing: the run changed nothing/
  ],
  [
    'preflight',
    { preflight: failed('preflight', 'checks failed', { problems: ['p'] }) },
    'preflight',
    /^Nothing: the run changed nothing/
  ],
  [
    'push',
    { push: failed('push', 'the import failed: terraform error') },
    'push',
    /may hold a version named v2 whose import failed/
  ],
  [
    'commit',
    { commit: failed('commit', 'the branch is protected') },
    'commit',
    /Nothing was committed to acme\/gitops@main/
  ],
  [
    'sync-timeout',
    { wait: failed('sync-timeout', 'no test', { status: 'timed out', facts: unsynced }) },
    'sync',
    /No test coder-tests\/docker-v2 appeared in the cluster yet/
  ],
  [
    'test-failed',
    {
      wait: failed(
        'test-failed',
        'The test failed: AgentStartError: exit 1. Nothing was promoted.',
        { facts: syncedFacts(failedLast) }
      )
    },
    'test',
    /Argo CD shows the application Degraded/
  ],
  [
    'wait-timeout',
    {
      wait: failed('wait-timeout', 'not final within 2 s', {
        status: 'timed out',
        facts: syncedFacts(null)
      })
    },
    'test',
    /its workspace ktt-0123 is deleted/
  ],
  [
    'wait-failed',
    { wait: failed('wait-failed', 'Watching failed: ECONNRESET', { facts: syncedFacts(null) }) },
    'test',
    /stays in the cluster while its manifest is in Git/
  ],
  [
    'integrity',
    {
      wait: failed('integrity', 'does not prove version v2', {
        problems: ['spec.parameters'],
        facts: syncedFacts(passedLast)
      })
    },
    'test',
    /Version v2 \(new-id\) stays in Coder, inactive/
  ],
  [
    'refused',
    {
      promote: failed('refused', 'would roll back', {
        status: 'refused',
        facts: { requestSent: false }
      })
    },
    'promote',
    /The manifest tests\/docker-v2.yaml stays in acme\/gitops@main; remove it/
  ],
  [
    'promote-failed',
    { promote: failed('promote-failed', '403 Forbidden', { facts: { requestSent: true } }) },
    'promote',
    /coder templates versions archive docker v2 -O acme --yes/
  ],
  [
    'cancelled',
    {
      wait: cancelled(
        'The run was cancelled. Nothing was promoted.',
        syncedFacts({ phase: 'Running', reason: 'WaitingForBuild', message: '' })
      )
    },
    'test',
    /stays in the cluster/
  ]
]

describe('the failure report, for every failure kind', () => {
  const old = { id: 'old-id', name: 'v1', createdAt: '' }
  it.each(FAILURES)('%s', async (kind, results, row, stays) => {
    const report = build(await journalOf(results), old)
    expect(report.failure?.kind).toBe(kind)
    expect(report.failure?.troubleshooting?.ref).toBe(`docs/troubleshooting.md#${kind}`)
    // The step that failed or was cut has a detail of its own.
    if (row) {
      const failedRow = report.rows.find((r) => r.name === row)!
      expect(failedRow.result).not.toMatch(/succeeded|not run/)
      expect(failedRow.detail).not.toBe('')
      expect(failedRow.detail).not.toMatch(/Nothing was promoted/)
    }
    expect(report.leftBehind.join('\n')).toMatch(stays)
    const html = renderSummary(report, 70_000)
    expect(html).toContain('What stays behind')
    expect(html).not.toContain('>this run<')
    expect(html).toContain('href="https://github.com/acme/t/actions/runs/1/attempts/2"')
    const log = epilogueLines(report)
    expect(log).toContain(`Workflow run: https://github.com/acme/t/actions/runs/1/attempts/2`)
    expect(log).toEqual(expect.arrayContaining(report.leftBehind.map((line) => `  - ${line}`)))
    if (report.test.exists) {
      expect(html).toContain(
        '<code>kubectl get codertemplatetest -n coder-tests docker-v2 -o yaml</code>'
      )
      expect(log).toContain(
        'Inspect the test: kubectl get codertemplatetest -n coder-tests docker-v2 -o yaml'
      )
    }
    if (kind !== 'invalid-input' && kind !== 'preflight') {
      expect(log).toContain(
        'Previous active version: v1 (old-id) https://coder.example.com/templates/acme/docker/versions/v1'
      )
    }
  })

  it('names the tested, previous and active versions beside their IDs, with links to Coder', async () => {
    const report = build(await journalOf(FAILURES[5]![1]), old)
    const html = renderSummary(report, 70_000)
    expect(html).toContain(
      '<code>v2</code> (<code>new-id</code>), <a href="https://coder.example.com/templates/acme/docker/versions/v2">in Coder</a>'
    )
    expect(html).toContain('<code>v1</code> (<code>old-id</code>)')
    expect(html).toContain('unchanged')
    expect(html).toContain('<code>ktt-0123</code>, owner <code>tester-id</code>')
    expect(html).toContain(
      '<a href="https://github.com/acme/gitops/commit/abc"><code>abcdef012345</code></a> on <code>main</code>'
    )
  })

  it('a version that was not pushed is no tested version, and no test is there to inspect', async () => {
    const html = renderSummary(build(await journalOf(FAILURES[2]![1]), old), 70_000)
    expect(html).toContain('<tr><td>Version</td><td><code>v2</code></td></tr>')
    expect(html).not.toContain('Tested version')
    expect(html).not.toContain('kubectl')
  })

  it('says that a failed test keeps Argo CD or Flux degraded until its manifest is removed', async () => {
    const report = build(await journalOf(FAILURES[5]![1]), old)
    expect(report.leftBehind.join('\n')).toContain(
      'The manifest tests/docker-v2.yaml stays in acme/gitops@main, and with it the failed test: Argo CD shows the application Degraded'
    )
    expect(report.leftBehind.join('\n')).toContain('set keep-tests')
  })

  it('a cut wait says how far it got', async () => {
    const report = build(await journalOf(FAILURES[11]![1]), old)
    expect(report.rows.find((r) => r.name === 'test')?.detail).toBe(
      'cancelled while the test ran (last: Running / WaitingForBuild); the test goes on in the cluster'
    )
  })

  it('the run link comes from the environment when the inputs were invalid', async () => {
    const journal = await journalOf(FAILURES[0]![1])
    const report = buildReport(journal, {
      startedAt: 0,
      observed: null,
      serverUrl: 'https://ghe.example/',
      repository: 'acme/t',
      runId: '77',
      runAttempt: '1'
    })
    expect(report.run.url).toBe('https://ghe.example/acme/t/actions/runs/77/attempts/1')
    expect(buildReport(journal, { startedAt: 0, observed: null }).run.url).toBeUndefined()
  })
})

describe('links', () => {
  it.each([
    [
      'https://coder.example.com/',
      'acme',
      'docker',
      'v1.0.0',
      'https://coder.example.com/templates/acme/docker/versions/v1.0.0'
    ],
    [
      'https://x.example/coder',
      'a b',
      'd/e',
      '"><img>',
      'https://x.example/coder/templates/a%20b/d%2Fe/versions/%22%3E%3Cimg%3E'
    ],
    ['https://user:pw@coder.example.com', 'acme', 'docker', 'v1', ''],
    ['javascript:alert(1)', 'acme', 'docker', 'v1', ''],
    ['https://coder.example.com', 'acme', 'docker', '', '']
  ])('coderVersionUrl(%s, %s, %s, %s)', (url, org, template, version, expected) => {
    expect(coderVersionUrl(url, org, template, version)).toBe(expected)
  })

  it.each([
    [
      { serverUrl: 'https://github.com', repository: 'acme/t', runId: '9', runAttempt: '3' },
      'https://github.com/acme/t/actions/runs/9/attempts/3'
    ],
    [
      { serverUrl: 'https://github.com', repository: 'acme/t', runId: '9', runAttempt: '' },
      'https://github.com/acme/t/actions/runs/9'
    ],
    [{ serverUrl: 'https://github.com', repository: 'acme/t', runId: '', runAttempt: '1' }, ''],
    [{ serverUrl: 'https://github.com', repository: 'acme', runId: '9', runAttempt: '1' }, ''],
    [{ serverUrl: 'https://github.com', repository: 'acme/t', runId: '9;x', runAttempt: '1' }, '']
  ])('runUrlOf(%j)', (run, expected) => {
    expect(runUrlOf(run)).toBe(expected)
  })

  it('commit links need a hex SHA; troubleshooting links encode the ref by segment', () => {
    expect(commitUrlOf('https://github.com', 'acme', 'gitops', 'abc1234')).toBe(
      'https://github.com/acme/gitops/commit/abc1234'
    )
    expect(commitUrlOf('https://github.com', 'acme', 'gitops', 'main')).toBe('')
    expect(
      troubleshootingUrlOf('test-failed', { repository: 'acme/gate', ref: 'release/v1' })
    ).toBe('https://github.com/acme/gate/blob/release/v1/docs/troubleshooting.md#test-failed')
  })

  it('richText makes commands code and http(s) URLs links, and escapes everything else', () => {
    expect(richText('Run `a <b>` at https://x.example/p?q=1&r=2.')).toBe(
      'Run <code>a &lt;b&gt;</code> at <a href="https://x.example/p?q=1&amp;r=2">https://x.example/p?q=1&amp;r=2</a>.'
    )
    expect(richText('javascript:alert(1) "x"')).toBe('javascript:alert(1) &quot;x&quot;')
  })
})

describe('pull-request mode', () => {
  const opened = {
    number: 7,
    url: 'https://github.com/acme/gitops/pull/7',
    nodeId: 'n',
    merged: false,
    reused: false
  }

  /** A journal of pull-request mode up to the merge, then the given steps. */
  async function pullRequestJournal(
    rest: [StepName, StepResult<unknown, unknown>][]
  ): Promise<Journal> {
    let clock = 1_000
    const journal = new Journal({
      signal: new AbortController().signal,
      log: silent,
      now: () => (clock += 1_000)
    })
    const prSettings = { ...settings, gitops: { ...settings.gitops, delivery: 'pull-request' } }
    const steps: [StepName, StepResult<unknown, unknown>][] = [
      ['inputs', succeeded({ settings: prSettings, context: runContext }, 'x')],
      ['preflight', succeeded(values.preflight, 'x')],
      ['push', succeeded(values.push, 'x')],
      [
        'commit',
        succeeded({ ...values.commit, branch: 'coder-template-gate/docker-v2', onBase: false }, 'x')
      ],
      ['pull-request', succeeded(opened, 'opened')],
      ...rest
    ]
    try {
      for (const [name, result] of steps) await journal.run(name, async () => result as never)
    } catch (error) {
      journal.stopped(error)
    }
    return journal
  }

  it('a merge that timed out leaves the pull request open, and says how to finish or close it', async () => {
    const journal = await pullRequestJournal([
      [
        'merge',
        failed('pull-request', 'not merged within 1 s', {
          status: 'timed out',
          facts: { pullRequest: opened }
        })
      ]
    ])
    const report = build(journal, { id: 'old-id', name: 'v1', createdAt: '' })
    expect(report.rows.find((r) => r.name === 'merge')).toMatchObject({
      result: 'timed out',
      detail: 'not merged within 1 s'
    })
    expect(report.leftBehind.join('\n')).toContain(
      'Pull request #7 stays open: https://github.com/acme/gitops/pull/7. Merge it and run the job again, or close it and delete the branch coder-template-gate/docker-v2'
    )
    expect(renderSummary(report, 10_000)).toContain(
      '<a href="https://github.com/acme/gitops/pull/7">#7</a>'
    )
  })

  it('after the merge, the GitOps commit is the merge commit on gitops-branch', async () => {
    const journal = await pullRequestJournal([
      ['merge', succeeded({ mergeCommitSha: 'fedcba9876543210' }, 'merged')],
      [
        'wait',
        failed('test-failed', 'The test failed: AgentStartError: exit 1.', {
          facts: syncedFacts(failedLast)
        })
      ]
    ])
    const report = build(journal, { id: 'old-id', name: 'v1', createdAt: '' })
    expect(report.gitops.landed?.url).toBe('https://github.com/acme/gitops/commit/fedcba9876543210')
    expect(report.gitops.landed?.branch).toBe('main')
    expect(report.leftBehind.join('\n')).toContain(
      'The manifest tests/docker-v2.yaml stays in acme/gitops@main, and with it the failed test'
    )
  })
})

describe('the summary as text (npm run demo, npm run local)', () => {
  it('keeps link targets, aligns tables, and decodes each entity once', async () => {
    const report = build(await journalOf(FAILURES[5]![1]), {
      id: 'old-id',
      name: 'v1',
      createdAt: ''
    })
    const text = summaryAsText(renderSummary(report, 70_000))
    expect(text).toContain(
      'Tested version                    v2 (new-id), in Coder (https://coder.example.com/templates/acme/docker/versions/v2)'
    )
    expect(text).toMatch(
      /\n {2}test +failed +\d+\.\d s +The test failed: AgentStartError: exit 1\n/
    )
    expect(text).toContain("Flux's health check fails")
    expect(text).not.toMatch(/<[a-z]+[ >]|&(amp|lt|gt|quot|#39);/)
    expect(summaryAsText('<p>&amp;lt;b&amp;gt;</p>')).toBe('&lt;b&gt;')
  })
})
