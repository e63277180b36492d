// What the report says becomes of the test workspace, for each WorkspaceDeleted reason of
// coder-k8s-api.md §1.5, and which status fields may name it at all (foreign text).
import { describe, expect, it } from '@jest/globals'
import { workspaceClause } from '../../../src/report/left-behind.js'
import { workspaceOf } from '../../../src/steps/wait.js'
import type { CoderTemplateTest } from '../../../src/kube/objects.js'

const NAME = 'ktt-0960bc9a604447878009ec08ef05'

describe('workspaceClause', () => {
  it.each([
    ['True/Deleted', 'is deleted'],
    ['True/DeletedExternally', 'was deleted outside the controller'],
    ['True/NotCreated', `no workspace ${NAME} was created`],
    ['False/Retained', 'delete it in Coder when done'],
    ['Unknown/ControlPlaneGone', 'nobody deletes it'],
    ['Unknown/CreateOutcomeUnknown', 'check Coder'],
    ['Unknown/OwnershipUnknown', 'check Coder'],
    ['False/CoderAnswerMismatch', 'check Coder'],
    ['False/CleanupPending', 'and the controller deletes it'],
    ['False/DeleteRetrying', 'and the controller deletes it'],
    ['', 'while the test runs'],
    ['constructor', 'and the controller deletes it']
  ])('%s -> %s', (deleted, words) => {
    const clause = workspaceClause(NAME, deleted)
    expect(clause).toContain(words)
    expect(clause).toContain(NAME)
  })

  it('says nothing without a name', () => {
    expect(workspaceClause('', 'True/Deleted')).toBe('')
  })

  it('never calls a workspace deleted that was never created, or one nobody deletes', () => {
    expect(workspaceClause(NAME, 'True/NotCreated')).not.toContain('is deleted')
    expect(workspaceClause(NAME, 'Unknown/ControlPlaneGone')).not.toContain('controller deletes')
  })
})

function testWith(status: Record<string, unknown>): CoderTemplateTest {
  return { status } as unknown as CoderTemplateTest
}

const OWNER = '86b3e101-043c-410a-91af-99fb50684ab6'
const deletedCondition = { type: 'WorkspaceDeleted', status: 'True', reason: 'Deleted' }

describe('workspaceOf keeps only fields of the documented shape', () => {
  it.each([
    ['a controller name', NAME, NAME],
    ['a 32-character name', 'a'.repeat(32), 'a'.repeat(32)],
    ['a 33-character name', 'a'.repeat(33), null],
    ['a URL', 'https://evil.example/x', null],
    ['markup', '<img src=x>', null],
    ['a code span', '`rm -rf`', null],
    ['a workflow command', '::warning::x', null],
    ['a leading hyphen', '-ktt', null],
    ['empty', '', null],
    ['not a string', 42, null]
  ])('%s', (_, workspaceName, expected) => {
    const workspace = workspaceOf(
      testWith({ workspaceName, ownerID: OWNER, conditions: [deletedCondition] })
    )
    expect(workspace?.name ?? null).toBe(expected)
    if (expected)
      expect(workspace).toEqual({ name: expected, ownerId: OWNER, deleted: 'True/Deleted' })
  })

  it('drops an owner that is not a UUID, and condition words that are not words', () => {
    const workspace = workspaceOf(
      testWith({
        workspaceName: NAME,
        ownerID: 'https://evil.example',
        conditions: [{ type: 'WorkspaceDeleted', status: 'True', reason: 'See <b>this</b>' }]
      })
    )
    expect(workspace).toEqual({ name: NAME, ownerId: '', deleted: 'True' })
  })
})
