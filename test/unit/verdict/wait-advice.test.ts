// The advice for each reason of coder-k8s docs/how-to/test-templates.md: every failure reason, every wait reason
// that can hold a test up, the progress reasons (no advice: the test was moving), unknown reasons.
import { describe, expect, it } from '@jest/globals'
import { adviceForFailure, adviceForWait } from '../../../src/verdict/wait-advice.js'

const WORKSPACE = 'docker-v2-abc123'

// [reason, words the advice must hold, whether it names the test workspace]
const FAILURES: [string, string, boolean][] = [
  ['DeadlineExceeded', 'Raise test-timeout-seconds', false],
  ['TemplateDeprecated', 'undeprecate it', false],
  ['TemplateVersionArchived', 'unarchive it or push a new version', false],
  ['TemplateVersionImportFailed', 'fix the template source', false],
  ['TemplateVersionMismatch', 'belongs to another template', false],
  ['CreateRejected', 'check test-parameters against the template', false],
  ['CreateOutcomeUnknown', 'leftover workspace', true],
  ['WorkspaceNameConflict', 'delete it or use a new test name', true],
  ['BuildFailed', 'read the build log', true],
  ['BuildCanceled', 'was canceled', false],
  ['NoAgents', 'at least one agent', false],
  ['AgentConnectionTimeout', 'never connected', true],
  ['AgentStartError', 'startup log', true],
  ['AgentStartTimeout', 'took too long', true],
  ['AgentStopped', 'crashes or evictions', true],
  ['WorkspaceChangedExternally', 'changed', true],
  ['WorkspaceDeletedExternally', 'deleted', true],
  ['DeleteBuildFailed', 'delete build log', true],
  ['ControlPlaneGone', 'CoderControlPlane disappeared', false]
]

describe('adviceForFailure', () => {
  it.each(FAILURES)('%s -> %j', (reason, words, namesWorkspace) => {
    const named = adviceForFailure(reason, WORKSPACE)
    const unnamed = adviceForFailure(reason)
    expect(named).toContain(words)
    expect(unnamed).toContain(words)
    expect(named).not.toContain('{workspace}')
    expect(unnamed).not.toContain('{workspace}')
    expect(named.includes(`the test workspace ${WORKSPACE}`)).toBe(namesWorkspace)
    // Without a name from the status, the advice still says which workspace, in general words.
    expect(unnamed.includes('the test workspace')).toBe(namesWorkspace)
    expect(unnamed).not.toContain(WORKSPACE)
  })

  it('gives each failure reason its own advice', () => {
    const advice = FAILURES.map(([reason]) => adviceForFailure(reason))
    expect(new Set(advice).size).toBe(FAILURES.length)
  })

  it.each([
    ['an unknown reason', 'SomethingNew'],
    ['no reason', ''],
    ['a reason in another case', 'buildfailed'],
    ['a wait reason', 'TemplateNotFound'],
    ['the success reason', 'Succeeded']
  ])('%s gets no advice', (_, reason) => {
    expect(adviceForFailure(reason, WORKSPACE)).toBe('')
  })
})

describe('adviceForWait', () => {
  it.each([
    ['', 'never wrote a status'],
    ['Initializing', 'made no progress'],
    ['ControlPlaneNotReady', 'no status.url'],
    ['OperatorAccessNotReady', 'token Secret'],
    ['OwnerNotConfigured', 'ownerUserID'],
    ['OwnerNotEligible', 'eligibility rules'],
    ['TemplateNotFound', 'check organization and template'],
    ['TemplateVersionNotFound', 'check the version name'],
    ['TemplateVersionImporting', 'check the provisioners'],
    ['CoderUnavailable', 'cannot reach Coder']
  ])('%j -> %j', (reason, words) => {
    expect(adviceForWait(reason)).toContain(words)
  })

  // The test was moving when our deadline came: the caller says it still runs, nothing to fix.
  it.each([
    'CreatingWorkspace',
    'CreateRetrying',
    'ConfirmingCreate',
    'WaitingForBuild',
    'WaitingForAgents',
    'AgentsReady',
    'DeletingWorkspace',
    'CoderAnswerMismatch',
    'SomethingNew',
    'DeadlineExceeded',
    'BuildFailed'
  ])('%s gets no advice', (reason) => {
    expect(adviceForWait(reason)).toBe('')
  })
})

// The reason is another system's text: one that names a property of Object.prototype must not find
// it (it made adviceForFailure throw, and adviceForWait return a function).
describe('reasons that name a property of Object.prototype', () => {
  it.each(['constructor', 'toString', '__proto__'])('%s gets no advice', (reason) => {
    expect([adviceForFailure(reason, WORKSPACE), adviceForWait(reason)]).toEqual(['', ''])
  })

  it('keeps $& and $1 in a workspace name literal', () => {
    expect(adviceForFailure('AgentStartError', 'ws-$&-$1')).toContain('the test workspace ws-$&-$1')
  })
})
