// Step 3b, presets (test-presets set): read the pushed version's presets from Coder and plan one
// test per chosen preset, before anything is committed. A named preset the version lacks fails
// here, naming it and the presets the version has. Read-only, so safe to run twice.
import type { CoderClient } from '../coder/client.js'
import {
  choosePresets,
  missingPresetsText,
  type PlannedTest,
  planTests
} from '../settings/preset-selection.js'
import { versionPresets } from '../coder/presets.js'
import type { TestSettings } from '../settings/settings.js'
import type { Pushed } from './push.js'
import { failed, messageOf, type StepContext, type StepResult, succeeded } from './step.js'

export interface TestPlan {
  tests: PlannedTest[]
  /** Said in the log and the summary, e.g. that `all` found no presets; '' when nothing to say. */
  note: string
}

export interface PresetsInput {
  test: Pick<TestSettings, 'name' | 'parameters' | 'presets'>
  pushed: Pick<Pushed, 'versionId' | 'versionName'>
  client: Pick<CoderClient, 'request'>
}

/** The plan without a read: test-presets '' is the one default test. */
export function defaultPlan(test: Pick<TestSettings, 'name' | 'parameters'>): TestPlan {
  return { tests: [{ name: test.name, preset: '', parameters: test.parameters }], note: '' }
}

export async function planPresetTests(
  input: PresetsInput,
  context: StepContext
): Promise<StepResult<TestPlan>> {
  const { test, pushed } = input
  if (test.presets.kind === 'none') return succeeded(defaultPlan(test), 'one default test')
  let read
  try {
    read = await versionPresets(input.client, pushed.versionId)
  } catch (error) {
    if (context.signal.aborted) throw error
    return failed(
      'presets',
      `Reading the presets of version ${pushed.versionName} failed: ${messageOf(error)}`,
      {
        advice: ['Check that coder-url reaches Coder and that the token may read the template.']
      }
    )
  }
  for (const name of read.duplicates)
    context.log.warning(
      `Version ${pushed.versionName} has two presets named ${JSON.stringify(name)}: the first one is tested.`
    )
  const choice = choosePresets(test.presets, read.presets, test.parameters)
  if (!choice.ok) {
    return failed(
      'presets',
      missingPresetsText(choice.missing, choice.available, pushed.versionName),
      {
        advice: [
          'Name presets of this version in test-presets (the names are case-sensitive), or set it to `all`. Nothing was committed.'
        ]
      }
    )
  }
  if (choice.note) context.log.warning(choice.note)
  const tests = planTests(test.name, choice.tests)
  const detail =
    choice.note ||
    `${tests.length} preset tests: ${tests.map((t) => `${t.preset} (${t.name})`).join(', ')}`
  return succeeded({ tests, note: choice.note }, detail)
}
