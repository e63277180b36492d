// What the report says becomes of the test workspace, for each WorkspaceDeleted reason of
// the coder-k8s controller, and which status fields may name it at all (foreign text).
import { describe, expect, it } from '@jest/globals'
import {
  leftBehind,
  type LeftBehindFacts,
  NOTHING_LEFT,
  workspaceClause
} from '../../../src/report/left-behind.js'
import { emptyReport } from '../../../src/report/report.js'
import { workspaceOf } from '../../../src/steps/wait.js'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'

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
    expect(workspace).toEqual({ name: NAME, ownerId: undefined, deleted: 'True' })
  })
})

/** A report as build.ts assembles it, by hand: leftBehind reads nothing else. */
function reportWith(parts: Partial<LeftBehindFacts>): LeftBehindFacts {
  return {
    ...emptyReport(0),
    template: {
      name: 'docker',
      organization: 'acme',
      version: { origin: 'pushed', name: 'v2', id: 'new-id' }
    },
    ...parts
  }
}

const committed = {
  state: 'committed',
  manifestPath: 'tests/docker-v2.yaml',
  branch: 'coder-template-gate/docker-v2',
  onBase: false
} as const
const pullRequestMode = {
  ...emptyReport(0).gitops,
  repository: 'acme/gitops',
  base: 'main',
  delivery: 'pull-request',
  autoMerge: true,
  commit: committed,
  pullRequest: { number: '7', url: 'https://github.com/acme/gitops/pull/7' }
} as const

describe('leftBehind reads the report only', () => {
  it.each<[string, Partial<LeftBehindFacts>, string[]]>([
    ['a promoted run leaves nothing to say', { outcome: 'promoted' }, []],
    [
      'a run that changed nothing says so',
      { template: { version: { origin: 'named', name: 'v2' } } },
      [NOTHING_LEFT]
    ],
    [
      'a pushed version stays, inactive',
      {},
      [
        'Version v2 (new-id) stays in Coder, inactive; a re-run of this commit reuses it. When it is not needed: `coder templates versions archive docker v2 -O acme --yes`.'
      ]
    ],
    [
      'the located version of a promote job is the test job’s to tell',
      { template: { version: { origin: 'located', name: 'v2', id: 'new-id' } } },
      [NOTHING_LEFT]
    ],
    [
      'a failed import may keep its name',
      { template: { name: 'docker', version: { origin: 'import-failed', name: 'v2' } } },
      [
        'Coder may hold a version named v2 whose import failed or was cancelled: Coder keeps such versions, inactive, and their name stays taken. Push under a new version name; list them with `coder templates versions list docker --include-archived`.'
      ]
    ],
    [
      'an open pull request whose auto-merge the gate turned off',
      {
        template: { version: { origin: 'named' } },
        gitops: {
          ...pullRequestMode,
          merge: { state: 'not merged', status: 'timed out', autoMergeOff: true }
        }
      },
      [
        'Pull request #7 stays open: https://github.com/acme/gitops/pull/7. The gate turned its auto-merge off: nothing merges while no run watches. Merge it and run the job again, or close it and delete the branch coder-template-gate/docker-v2 when the version is not needed.'
      ]
    ],
    [
      'a cancel before the gate asked for auto-merge: nothing said of auto-merge',
      {
        template: { version: { origin: 'named' } },
        gitops: {
          ...pullRequestMode,
          merge: { state: 'not merged', status: 'cancelled', autoMergeAsked: false }
        }
      },
      [
        'Pull request #7 stays open: https://github.com/acme/gitops/pull/7. Merge it and run the job again, or close it and delete the branch coder-template-gate/docker-v2 when the version is not needed.'
      ]
    ],
    [
      'a cancel that cut turning auto-merge off: still on, with the command',
      {
        template: { version: { origin: 'named' } },
        gitops: {
          ...pullRequestMode,
          merge: {
            state: 'not merged',
            status: 'cancelled',
            autoMergeAsked: true,
            autoMergeOff: false
          }
        }
      },
      [
        'Pull request #7 stays open: https://github.com/acme/gitops/pull/7. Its auto-merge is still on: the gate could not turn it off, so a later push merges with no run watching. Turn it off with `gh pr merge 7 --repo acme/gitops --disable-auto`. Merge it and run the job again, or close it and delete the branch coder-template-gate/docker-v2 when the version is not needed.'
      ]
    ],
    [
      'a cancelled commit may have landed',
      {
        template: { version: { origin: 'named' } },
        gitops: { ...pullRequestMode, commit: { state: 'cancelled' } }
      },
      [
        'The commit to acme/gitops@main may have landed before the cancel: check the branch; a re-run finds its own manifest and does not commit it twice.'
      ]
    ],
    [
      'archive-failed: how to bring the version back, after the rest',
      {
        template: { name: 'docker', version: { origin: 'named', name: 'v2' } },
        tidy: { archived: ['v2'], wouldArchive: [], notes: [], oursArchived: true }
      },
      [
        NOTHING_LEFT,
        'Version v2 was archived because its test failed (archive-failed): nobody can promote or pick it by mistake. Bring it back with `coder templates versions unarchive docker v2`.'
      ]
    ]
  ])('%s', (_, parts, expected) => {
    expect(leftBehind(reportWith(parts))).toEqual(expected)
  })
})
