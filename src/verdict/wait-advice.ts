// One line of advice per known failure reason of a CoderTemplateTest.
// The reasons are exact (coder-k8s docs/how-to/test-templates.md); the advice is our gloss of them.
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
    'The controller could not confirm whether {workspace} was created; check Coder for a leftover workspace of that name and run a new test.',
  WorkspaceNameConflict:
    "A workspace with the test's name ({workspace}) exists in Coder but is not this test's; delete it or use a new test name.",
  BuildFailed: 'The workspace build failed; read the build log of {workspace} in Coder.',
  BuildCanceled: 'The workspace build was canceled; run the test again with a new version name.',
  NoAgents:
    'The template has no top-level agent; a test needs at least one agent to prove the workspace works.',
  AgentConnectionTimeout:
    'An agent of {workspace} never connected; check the agent init script, networking from the workspace to Coder, and the image.',
  AgentStartError:
    "An agent's startup script failed; read the agent's startup log of {workspace} in Coder.",
  AgentStartTimeout:
    "An agent's startup script in {workspace} took too long; speed it up or raise its startup timeout.",
  AgentStopped:
    'An agent of {workspace} stopped during the test; check it for crashes or evictions.',
  WorkspaceChangedExternally: 'Someone changed {workspace} during the test; run a new test.',
  WorkspaceDeletedExternally: 'Someone deleted {workspace} during the test; run a new test.',
  DeleteBuildFailed:
    'Agents were ready but the delete build of {workspace} failed; the controller keeps retrying the delete. Check the delete build log.',
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

/** The advice for a failure reason, naming the test workspace when the status gave its name. */
export function adviceForFailure(reason: string, workspaceName = ''): string {
  const where = workspaceName ? `the test workspace ${workspaceName}` : 'the test workspace'
  // The reason is foreign text: only own keys (not `constructor`), and a replacer function so that
  // `$&` in a workspace name stays literal.
  const advice = Object.hasOwn(FAILURE_ADVICE, reason) ? FAILURE_ADVICE[reason]! : ''
  return advice.replace('{workspace}', () => where)
}

export function adviceForWait(lastReason: string): string {
  return Object.hasOwn(WAIT_ADVICE, lastReason) ? WAIT_ADVICE[lastReason]! : ''
}

/** A test deleted during the wait (src/kube/wait.ts TestDeletedError). */
export const ADVICE_AFTER_DELETION =
  'Look at the history of the GitOps path: a removed manifest (keep-tests of another run, or a hand edit) makes Argo CD (with prune) or Flux (prune: true) delete the test. Run the job again to commit the manifest again; nothing was promoted.'
