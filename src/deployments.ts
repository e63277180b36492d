// deployment-environment, the writes: each record of the run (src/steps/record.ts) as a GitHub
// deployment of the workflow's commit on the workflow's repository, through github-token. A failed
// record is a warning, never a failure, and is said once: the records after it are not tried.
import { githubClient } from './clients.js'
import {
  deploymentAccessProblem,
  recordDeployment,
  recordedVersion
} from './workflow-repository/deployments.js'
import type { GitHubCall } from './gitops/github/client/call.js'
import type { Settings } from './settings/settings.js'
import type { Journal } from './steps/journal.js'
import { plannedRecords } from './steps/record.js'
import { messageOf, type StepLog } from './steps/step.js'

type Env = Record<string, string | undefined>

const RECORD_LIMIT_MS = 20_000

function callOf(settings: Settings, env: Env, log: StepLog, signal: AbortSignal): GitHubCall {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  return {
    octokit: githubClient(settings.githubToken, env.GITHUB_API_URL ?? '', log),
    owner,
    repo,
    signal,
    deadline: Date.now() + RECORD_LIMIT_MS,
    requestTimeoutMs: 10_000
  }
}

/** Records the run's deployments; the ID of the last one, or undefined. Never throws. */
export async function recordDeployments(
  journal: Journal,
  settings: Settings | null,
  env: Env,
  log: StepLog
): Promise<{ id: string; environment: string } | undefined> {
  const environment = settings?.live.deploymentEnvironment ?? ''
  if (!settings || !environment || journal.context.signal.aborted) return undefined
  const records = plannedRecords(journal)
  const preflight = journal.value('preflight')
  // The preflight already said why no record can be written: said once.
  if (records.length === 0 || preflight?.deploymentsOff) return undefined
  const call = callOf(settings, env, log, AbortSignal.timeout(RECORD_LIMIT_MS))
  let last: string | undefined
  for (const record of records) {
    try {
      const id = await recordDeployment(call, {
        environment,
        sha: env.GITHUB_SHA ?? '',
        description: record.description,
        payload: {
          template: preflight?.template ?? '',
          organization: preflight?.organization ?? '',
          versionId: record.versionId,
          versionName: record.versionName,
          previousVersionId: record.previousVersionId,
          testNames: record.testNames
        },
        state: record.state,
        logUrl: settings.runUrl
      })
      last = String(id)
      log.info(`Recorded the ${record.kind} as deployment ${id} of environment ${environment}.`)
    } catch (error) {
      log.warning(
        `Could not record the ${record.kind} as a GitHub deployment of environment ${environment}: ${messageOf(error)}. The run's result stands.`
      )
      break
    }
  }
  return last === undefined ? undefined : { id: last, environment }
}

/**
 * rollback-to: previous: a reader of the newest success the gate recorded for this template (the
 * organization and template as the preflight resolved them, as the payload names them) naming
 * another version.
 */
export function previousReader(
  settings: Settings,
  release: { template: string; organization: string },
  env: Env,
  log: StepLog,
  signal: AbortSignal
): ((failedId: string) => Promise<string>) | undefined {
  const environment = settings.live.deploymentEnvironment
  if (settings.live.rollbackTo !== 'previous' || !environment) return undefined
  // One bound for the whole read (a list, then one status read per candidate), as for the records.
  return (failedId) =>
    recordedVersion(
      callOf(settings, env, log, AbortSignal.any([signal, AbortSignal.timeout(RECORD_LIMIT_MS)])),
      environment,
      {
        ...release,
        except: failedId
      }
    )
}

/** The preflight's read-only look at github-token's access, when deployment-environment is set. */
export function deploymentAccessReader(
  settings: Settings,
  env: Env,
  log: StepLog,
  signal: AbortSignal
): (() => Promise<string | null>) | undefined {
  if (!settings.live.deploymentEnvironment) return undefined
  return () => deploymentAccessProblem(callOf(settings, env, log, signal))
}
