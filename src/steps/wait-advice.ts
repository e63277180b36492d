// One line of advice per known failure reason of a CoderTemplateTest.
// The reasons are exact; the advice follows the glosses of coder-k8s-api.md §1.6.
const FAILURE_ADVICE: Record<string, string> = {
  DeadlineExceeded:
    'The test ran out of time; the message names the last wait. Raise test-timeout-seconds, or look at why that step is slow (build, agent startup, delete).',
  TemplateDeprecated:
    'The template is deprecated in Coder; undeprecate it before testing new versions.',
  TemplateVersionArchived: 'The version is archived in Coder; unarchive it or push a new version.',
  TemplateVersionImportFailed:
    'The version import failed in Coder; fix the template source and push a new version name.',
  TemplateVersionMismatch: 'spec.version.id belongs to another template; check the test manifest.',
  CreateRejected:
    'Coder refused to create the workspace, often because of a missing or invalid parameter; check test-parameters against the template.',
  CreateOutcomeUnknown:
    'The controller could not confirm whether the workspace was created; check Coder for a leftover workspace and run a new test.',
  WorkspaceNameConflict:
    "A workspace with the test's name exists in Coder but is not this test's; delete it or use a new test name.",
  BuildFailed: 'The workspace build failed; read the build log of the test workspace in Coder.',
  BuildCanceled: 'The workspace build was canceled; run the test again with a new version name.',
  NoAgents:
    'The template has no top-level agent; a test needs at least one agent to prove the workspace works.',
  AgentConnectionTimeout:
    'An agent never connected; check the agent init script, networking from the workspace to Coder, and the image.',
  AgentStartError: "An agent's startup script failed; read the agent's startup log in Coder.",
  AgentStartTimeout:
    "An agent's startup script took too long; speed it up or raise its startup timeout.",
  AgentStopped: 'An agent stopped during the test; check the workspace for crashes or evictions.',
  WorkspaceChangedExternally: 'Someone changed the test workspace during the test; run a new test.',
  WorkspaceDeletedExternally: 'Someone deleted the test workspace during the test; run a new test.',
  DeleteBuildFailed:
    'Agents were ready but the delete build failed; the controller keeps retrying the delete. Check the delete build log.',
  ControlPlaneGone: 'The CoderControlPlane disappeared (for example its namespace was deleted).'
}

/** Advice for waits that ended at our own deadline, from the last wait reason. */
const WAIT_ADVICE: Record<string, string> = {
  '': 'The controller never wrote a status: check that the coder-k8s controller runs and reconciles CoderTemplateTests.',
  Initializing: 'The controller started the test but made no progress; check its logs.',
  ControlPlaneNotReady: 'The CoderControlPlane is not ready (no status.url); check control-plane.',
  OperatorAccessNotReady:
    "The control plane's operator access is not ready; check its token Secret.",
  OwnerNotConfigured:
    'spec.templateTests.ownerUserID of the CoderControlPlane is missing or not a UUID.',
  OwnerNotEligible:
    'The tester user fails the eligibility rules (active, member role only, member of the organization).',
  TemplateNotFound:
    'The controller does not find the template in Coder; check organization and template.',
  TemplateVersionNotFound:
    'The controller does not find the version in Coder; check the version name.',
  TemplateVersionImporting: 'The version import is still running in Coder; check the provisioners.',
  CoderUnavailable: 'The controller cannot reach Coder or is rate-limited.'
}

export function adviceForFailure(reason: string): string {
  return FAILURE_ADVICE[reason] ?? ''
}

export function adviceForWait(lastReason: string): string {
  return WAIT_ADVICE[lastReason] ?? ''
}
