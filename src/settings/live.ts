// The inputs of mode: verify (action.yml: `mode`, `rollback-to`, `deployment-environment`): the
// live test's name, the rollback target as written, and the GitHub environment. Pure.
import type { InputReader } from './rules.js'
import { testNameFor, versionNameProblem } from './naming.js'
import type { InputName, LiveSettings, RunContext, Mode } from './settings.js'
import { isUuid } from '../coder/version-identity.js'

/** GitHub: an environment name is at most 255 characters (docs.github.com, "Managing environments for deployment"). */
const ENVIRONMENT_MAX = 255

/**
 * `<template>-live-<GITHUB_RUN_ID>-<GITHUB_RUN_ATTEMPT>` as a DNS-1123 label: every verification is a
 * new object, so that an old result is never reused; a re-run attempt is a new verification.
 */
export function liveTestName(template: string, runId: string, runAttempt: string): string {
  return testNameFor(template, `live-${runId}-${runAttempt || '1'}`)
}

/** The run ID and attempt of a live test's name; null for any other name. */
export function liveRunOf(testName: string): { runId: number; attempt: number } | null {
  const match = /-live-(\d+)-(\d+)$/.exec(testName)
  return match ? { runId: Number(match[1]), attempt: Number(match[2]) } : null
}

export function parseLive(
  reader: InputReader<InputName>,
  mode: Mode,
  context: Pick<RunContext, 'runId'>
): LiveSettings {
  const rollbackTo = reader.raw('rollback-to')
  const deploymentEnvironment = reader.raw('deployment-environment')
  if (rollbackTo && mode !== 'verify') {
    reader.errors.push({
      input: 'rollback-to',
      message: `Input "rollback-to" is for mode: verify only (this run's mode is ${mode}): remove it, or set mode: verify.`
    })
  } else if (rollbackTo && rollbackTo !== 'previous' && !isUuid(rollbackTo)) {
    const problem = versionNameProblem(rollbackTo)
    if (problem)
      reader.fail(
        'rollback-to',
        `it takes "previous", a version ID, or a version name, and as a name it ${problem}`
      )
  }
  if (rollbackTo === 'previous' && !deploymentEnvironment) {
    reader.errors.push({
      input: 'rollback-to',
      message:
        'Input "rollback-to" "previous" reads its target from the deployments of input "deployment-environment", which is empty: set deployment-environment, or name the version.'
    })
  }
  if (deploymentEnvironment.length > ENVIRONMENT_MAX || /[\p{Cc}]/u.test(deploymentEnvironment))
    reader.fail(
      'deployment-environment',
      `a GitHub environment name of at most ${ENVIRONMENT_MAX} characters, on one line`
    )
  if (deploymentEnvironment && !reader.raw('github-token'))
    reader.required('github-token', 'when deployment-environment is set')
  if (mode === 'verify' && !/^\d+$/.test(context.runId))
    reader.errors.push({
      input: 'mode',
      message:
        'Input "mode" "verify" names its test after GITHUB_RUN_ID, which the runner did not give: run it as a workflow step.'
    })
  if (mode === 'verify' && reader.raw('test-name'))
    reader.errors.push({
      input: 'test-name',
      message:
        'Input "test-name" and input "mode" "verify" contradict each other: a live test is named per run (<template>-live-<run ID>-<attempt>). Remove test-name.'
    })
  return { rollbackTo, deploymentEnvironment }
}
