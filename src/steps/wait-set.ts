// The wait step for several tests (test-presets): ONE watch for all of them (kube/wait-tests.ts),
// then each test judged from its own last read, and one combined verdict (verdict/combined.ts). A
// test deleted before it was final ends its own wait at once and is judged deleted; the others go on.
// The run's top-level wait facts are those of the gravest test that did not pass (else the first
// test), so the summary's test section speaks of the test that decided; test-results has them all.
import { type SetOutcome, waitForTests } from '../kube/wait-tests.js'
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import { combineVerdicts, judgeTest, type JudgedTest } from '../verdict/combined.js'
import { specDifferences } from '../objects/manifest.js'
import { verdictOf } from '../verdict/verdict.js'
import { ADVICE_AFTER_DELETION } from '../verdict/wait-advice.js'
import {
  cancelled,
  clockOf,
  failed,
  messageOf,
  type StepContext,
  type StepResult,
  succeeded
} from './step.js'
import { record, sightOf } from './wait-record.js'
import type { TestFacts, Tested, WaitFacts, TestWaitInput } from './wait-types.js'

interface Watched {
  name: string
  preset: string
  manifest: CoderTemplateTest
  facts: WaitFacts
  /** status.templateVersionID of the last read (absent when none): the test-results entry. */
  versionId?: string
}

export async function waitForTestSet(
  input: TestWaitInput,
  context: StepContext
): Promise<StepResult<Tested, WaitFacts>> {
  const watched: Watched[] = (input.committed.tests ?? []).map((t) => ({
    name: t.name,
    preset: t.preset,
    manifest: t.manifest,
    facts: { syncedAt: null, timeline: [], last: null, notFoundSeen: false, workspace: null }
  }))
  const names = watched.map((w) => w.name)
  let outcomes: SetOutcome[]
  try {
    outcomes = await watchAll(input, watched, context)
  } catch (error) {
    const facts = setFacts(watched, [])
    if (context.signal.aborted)
      return cancelled('The run was cancelled. Nothing was promoted.', facts)
    const message = `Watching the tests ${names.join(', ')} failed: ${messageOf(error)}`
    return failed('wait-failed', message, {
      facts,
      advice: [
        'Check that the kubeconfig reaches the cluster, then run the job again: the tests stay and are reused.'
      ]
    })
  }
  return judgeAll(input, watched, outcomes, context)
}

/** The one watch of all the tests, recording what each read shows. */
function watchAll(
  input: TestWaitInput,
  watched: Watched[],
  context: StepContext
): Promise<SetOutcome[]> {
  const { test: settings } = input
  const byName = new Map(watched.map((w) => [w.name, w]))
  const names = watched.map((w) => w.name)
  context.log.info(
    `Waiting up to ${settings.syncTimeoutSeconds} s for Argo CD or Flux to create the ${names.length} tests ${names.join(', ')} in ${settings.namespace}, then up to ${settings.waitTimeoutSeconds} s for each result, with one watch.`
  )
  return waitForTests({
    kc: input.kc,
    namespace: settings.namespace,
    names,
    signal: context.signal,
    syncDeadline: input.syncFrom + settings.syncTimeoutSeconds * 1000,
    waitTimeoutMs: settings.waitTimeoutSeconds * 1000,
    ...clockOf(context),
    // A spec that differs will never prove our version: that test is final at once.
    isFinal: (seen) => {
      const committed = byName.get(seen.metadata?.name ?? '')?.manifest
      if (!committed) return false
      const differs = specDifferences(committed.spec, seen.spec).length > 0
      return verdictOf(seen).state !== 'waiting' || differs
    },
    onObserved: (name, seen) => {
      const w = byName.get(name)
      if (!w) return
      record(w.facts, seen, input, prefixed(context, `${w.preset || name}: `))
      if (seen) w.versionId = sightOf(w.facts, seen).versionId
    }
  })
}

/** Each test judged from its own last read, then the combined verdict. */
function judgeAll(
  input: TestWaitInput,
  watched: Watched[],
  outcomes: SetOutcome[],
  context: StepContext
): StepResult<Tested, WaitFacts> {
  const pushed = { id: input.pushed.versionId, name: input.pushed.versionName }
  const judged = outcomes.map((outcome) => {
    const w = watched.find((x) => x.name === outcome.name) as Watched
    if (outcome.last) {
      const sight = sightOf(w.facts, outcome.last)
      w.facts.last = sight.last
      w.versionId = sight.versionId
    }
    const test = { name: w.name, preset: w.preset, spec: w.manifest.spec }
    return judgeTest(test, outcome.ending, outcome.last, pushed)
  })
  for (const j of judged)
    context.log.info(`${j.preset || j.name}: ${j.judgment === 'passed' ? 'passed' : j.detail}`)
  const facts = setFacts(watched, judged)
  const combined = combineVerdicts(judged)
  if (!combined.ok) {
    return failed(combined.kind, combined.message, {
      status: combined.status,
      facts,
      problems: combined.failing.flatMap((f) => f.problems.map((p) => `${f.name}: ${p}`)),
      advice: adviceOf(combined.failing)
    })
  }
  // Every test proved the pushed version from its own read: that version is the one to promote.
  const first = outcomes[0]?.last as CoderTemplateTest
  const versionId = first.status?.templateVersionID ?? ''
  const detail = `all ${judged.length} tests passed: ${judged.map((j) => j.preset || j.name).join(', ')}`
  return succeeded({ ...facts, test: first, versionId }, detail)
}

/** The run's facts: every test's entry, and the top-level facts of the one that decided. */
function setFacts(watched: Watched[], judged: JudgedTest[]): WaitFacts {
  const tests: TestFacts[] = watched.map((w) => ({
    name: w.name,
    preset: w.preset,
    syncedAt: w.facts.syncedAt,
    timeline: w.facts.timeline,
    last: w.facts.last,
    versionId: w.versionId
  }))
  const deciding =
    watched.find((w) => judged.find((j) => j.name === w.name)?.judgment === 'integrity') ??
    watched.find((w) => judged.some((j) => j.name === w.name && j.judgment !== 'passed')) ??
    watched[0]
  const seen = watched.map((w) => w.facts.syncedAt).filter((at): at is number => at !== null)
  return {
    ...(deciding?.facts ?? { timeline: [], last: null, workspace: null }),
    // Seen when every test was: the latest first sight; else not all synced.
    syncedAt: seen.length === watched.length && seen.length > 0 ? Math.max(...seen) : null,
    notFoundSeen: watched.some((w) => w.facts.notFoundSeen),
    tests,
    testName: deciding?.name
  }
}

function adviceOf(failing: JudgedTest[]): string[] {
  const advice: string[] = []
  if (failing.some((f) => f.judgment === 'integrity'))
    advice.push(
      'Another object may hold a test name (created first with another spec): delete the foreign test, or set test-name.'
    )
  if (failing.some((f) => f.judgment === 'failed'))
    advice.push(
      'Look at the failed tests with kubectl get codertemplatetest -o yaml: their status names the build that failed; fix the template for those presets and push a new version.'
    )
  if (failing.some((f) => f.judgment === 'deleted')) advice.push(ADVICE_AFTER_DELETION)
  if (failing.some((f) => f.judgment.endsWith('timeout')))
    advice.push(
      'The tests stay in the cluster and the controller may still finish them: run the job again later, and a re-run promotes at once if all passed meanwhile.'
    )
  return advice
}

/** The context with each log line of one test prefixed by its preset (or name). */
function prefixed(context: StepContext, prefix: string): StepContext {
  const { log } = context
  return {
    signal: context.signal,
    now: () => context.now(),
    log: {
      info: (text) => log.info(`${prefix}${text}`),
      warning: (text) => log.warning(`${prefix}${text}`),
      debug: (text) => log.debug(`${prefix}${text}`),
      group: (title, body) => log.group(title, body)
    }
  }
}
