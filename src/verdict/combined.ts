// The verdict of a run with several tests (test-presets): each test judged from its own object
// read, with the same checks as one test (integrity.ts, verdict.ts), then one combined verdict. The
// run passes only when every test passed; otherwise it fails with the gravest kind among them and
// names every test that did not pass. Pure: the table is test/unit/verdict/combined.test.ts.
import type { CoderTemplateTest, CoderTemplateTestSpec } from '../objects/coder-k8s.js'
import { integrityProblems, type PushedVersion } from './integrity.js'
import { verdictOf } from './verdict.js'

/**
 * How one test ended, before it is judged: final (its one read), deleted before it was final (its
 * last read before), or not in time.
 */
export type TestEnding = 'final' | 'deleted' | 'sync-timeout' | 'wait-timeout'

export type TestJudgment =
  'passed' | 'failed' | 'integrity' | 'deleted' | 'sync-timeout' | 'wait-timeout'

export interface JudgedTest {
  name: string
  /** '' for the default test. */
  preset: string
  judgment: TestJudgment
  /** One line: why it did not pass, or the controller's reason and message when it passed. */
  detail: string
  /** Integrity problems of this test's read. */
  problems: string[]
}

/** One test, judged from its own read `last` (null: never seen). */
export function judgeTest(
  test: { name: string; preset: string; spec: CoderTemplateTestSpec },
  ending: TestEnding,
  last: CoderTemplateTest | null,
  pushed: PushedVersion
): JudgedTest {
  const base = { name: test.name, preset: test.preset, problems: [] as string[] }
  if (ending === 'sync-timeout' || last === null)
    return { ...base, judgment: 'sync-timeout', detail: 'did not appear in the cluster in time' }
  const problems = integrityProblems(last, test.spec, pushed)
  if (problems.length > 0)
    return { ...base, judgment: 'integrity', detail: 'does not prove this version', problems }
  const verdict = verdictOf(last)
  const said = `${verdict.phase || 'no phase'}${verdict.reason ? ` / ${verdict.reason}` : ''}`
  // guess: Argo CD prunes only with prune on (https://argo-cd.readthedocs.io/en/stable/user-guide/auto_sync/),
  // Flux with spec.prune (https://fluxcd.io/flux/components/kustomize/kustomizations/#prune).
  if (ending === 'deleted')
    return {
      ...base,
      judgment: 'deleted',
      detail: `was deleted (or is being deleted) before it was final (last: ${said}): most likely its manifest was removed from Git and the GitOps engine pruned the object (Argo CD with prune, Flux's prune), or someone deleted it by hand`
    }
  if (ending === 'wait-timeout' || verdict.state === 'waiting')
    return { ...base, judgment: 'wait-timeout', detail: `not final in time (last: ${said})` }
  if (verdict.state === 'failed')
    return {
      ...base,
      judgment: 'failed',
      detail: `${said}${verdict.message ? `: ${verdict.message.replace(/\.$/, '')}` : ''}`
    }
  return { ...base, judgment: 'passed', detail: said }
}

/** The failure kinds a wait can end with (a subset of src/steps/failure-kinds.ts). */
export type WaitFailureKind =
  'integrity' | 'test-failed' | 'wait-failed' | 'wait-timeout' | 'sync-timeout'

export type CombinedVerdict =
  | { ok: true }
  | {
      ok: false
      kind: WaitFailureKind
      status: 'failed' | 'timed out'
      message: string
      /** The tests that did not pass, in the order given. */
      failing: JudgedTest[]
    }

/** Gravest first: a foreign object beats a failure, a failure a deletion, a deletion a timeout. */
const ORDER: { judgment: TestJudgment; kind: WaitFailureKind }[] = [
  { judgment: 'integrity', kind: 'integrity' },
  { judgment: 'failed', kind: 'test-failed' },
  // As for one test (src/steps/wait.ts): a deleted test ends the wait as wait-failed.
  { judgment: 'deleted', kind: 'wait-failed' },
  { judgment: 'wait-timeout', kind: 'wait-timeout' },
  { judgment: 'sync-timeout', kind: 'sync-timeout' }
]

export function combineVerdicts(tests: readonly JudgedTest[]): CombinedVerdict {
  const failing = tests.filter((t) => t.judgment !== 'passed')
  if (tests.length > 0 && failing.length === 0) return { ok: true }
  if (tests.length === 0)
    return {
      ok: false,
      kind: 'wait-failed',
      status: 'failed',
      message: 'No test to judge.',
      failing
    }
  const gravest = ORDER.find((o) =>
    failing.some((t) => t.judgment === o.judgment)
  ) as (typeof ORDER)[number]
  const onlyTimeouts = failing.every((t) => t.judgment.endsWith('timeout'))
  const each = failing.map(
    (t) => `${t.preset ? `preset ${JSON.stringify(t.preset)}` : 'the test'} (${t.name}) ${t.detail}`
  )
  return {
    ok: false,
    kind: gravest.kind,
    status: onlyTimeouts ? 'timed out' : 'failed',
    message: `${failing.length} of ${tests.length} tests did not pass: ${each.join('; ')}. Nothing was promoted.`,
    failing
  }
}
