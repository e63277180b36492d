// deployment-environment: which deployments a run records, from its journal.
import { describe, expect, it } from '@jest/globals'
import { failed, succeeded } from '../../../src/steps/step.js'
import { plannedRecords } from '../../../src/steps/record.js'
import { journalOf, type Steps } from '../report/report-scenarios.js'

const A = { id: 'aaaaaaaa-0000-4000-8000-000000000001', name: 'v1' }
const B = { id: 'bbbbbbbb-0000-4000-8000-000000000002', name: 'v2' }
const inputs = (mode: string) =>
  succeeded({ settings: { mode, test: { name: 'docker-t' }, coder: {}, gitops: {} } }, '')
const preflight = succeeded(
  { organization: 'acme', template: 'docker', startingActive: { ...A, createdAt: '' } },
  ''
)
const pushed = { template: 'docker', versionId: B.id, versionName: B.name }
const push = succeeded(pushed, '')
const verified = (result: string, rollback?: object) => ({
  result,
  ran: A,
  starting: A,
  ending: A,
  ...(rollback ? { rollback } : {})
})

describe('plannedRecords', () => {
  it.each<[string, Steps, object[]]>([
    [
      'a promotion with test-presets: the name of every preset test',
      [
        ['inputs', inputs('gate')],
        ['preflight', preflight],
        ['push', push],
        [
          'commit',
          succeeded({ tests: [{ name: 'docker-t-small' }, { name: 'docker-t-gpu' }] }, '')
        ],
        ['promote', succeeded({ result: 'Promoted' }, '')]
      ],
      [{ kind: 'promotion', testNames: ['docker-t-small', 'docker-t-gpu'] }]
    ],
    [
      'a promote job with test-presets: the located tests',
      [
        ['inputs', inputs('promote')],
        ['preflight', preflight],
        [
          'locate',
          succeeded(
            { ...pushed, tests: [{ name: 'docker-t-small' }, { name: 'docker-t-gpu' }] },
            ''
          )
        ],
        ['promote', succeeded({ result: 'Promoted' }, '')]
      ],
      [{ kind: 'promotion', versionId: B.id, testNames: ['docker-t-small', 'docker-t-gpu'] }]
    ],
    [
      'a promotion',
      [
        ['inputs', inputs('gate')],
        ['preflight', preflight],
        ['push', push],
        ['promote', succeeded({ result: 'Promoted' }, '')]
      ],
      [
        {
          kind: 'promotion',
          versionId: B.id,
          versionName: 'v2',
          previousVersionId: A.id,
          testNames: ['docker-t'],
          state: 'success'
        }
      ]
    ],
    [
      'already active: nothing',
      [
        ['inputs', inputs('gate')],
        ['preflight', preflight],
        ['push', push],
        ['promote', succeeded({ result: 'AlreadyActive' }, '')]
      ],
      []
    ],
    [
      'a preview: nothing',
      [
        ['inputs', inputs('gate')],
        ['preflight', preflight],
        ['push', push],
        ['promote', succeeded({ result: 'WouldPromote' }, '')]
      ],
      []
    ],
    [
      'a refusal: nothing',
      [
        ['inputs', inputs('gate')],
        ['preflight', preflight],
        ['push', push],
        ['promote', failed('refused', 'no')]
      ],
      []
    ],
    [
      'verify Passed: success',
      [
        ['inputs', inputs('verify')],
        ['preflight', preflight],
        ['verify', succeeded(verified('Passed'), '')]
      ],
      [{ kind: 'verification', versionId: A.id, state: 'success' }]
    ],
    [
      'verify Inconclusive: inactive',
      [
        ['inputs', inputs('verify')],
        ['preflight', preflight],
        ['verify', succeeded(verified('Inconclusive'), '')]
      ],
      [{ kind: 'verification', state: 'inactive' }]
    ],
    [
      'verify Failed: failure',
      [
        ['inputs', inputs('verify')],
        ['preflight', preflight],
        ['verify', failed('test-failed', 'x', { facts: verified('Failed') })]
      ],
      [{ kind: 'verification', state: 'failure' }]
    ],
    [
      'verify RolledBack: the failure, then the rollback',
      [
        ['inputs', inputs('verify')],
        ['preflight', preflight],
        [
          'verify',
          failed('test-failed', 'x', {
            facts: verified('RolledBack', { outcome: 'applied', target: B, detail: '' })
          })
        ]
      ],
      [
        { kind: 'verification', versionId: A.id, state: 'failure' },
        { kind: 'rollback', versionId: B.id, previousVersionId: A.id, state: 'success' }
      ]
    ],
    [
      'verify Inconclusive, the rollback target made active by another writer: no rollback record',
      [
        ['inputs', inputs('verify')],
        ['preflight', preflight],
        [
          'verify',
          succeeded(
            verified('Inconclusive', { outcome: 'already-active', target: B, detail: '' }),
            'x'
          )
        ]
      ],
      [{ kind: 'verification', state: 'inactive' }]
    ],
    [
      'no preflight: nothing',
      [
        ['inputs', inputs('gate')],
        ['preflight', failed('preflight', 'x')]
      ],
      []
    ]
  ])('%s', async (_name, steps, records) => {
    const planned = plannedRecords(await journalOf(steps, false))
    expect(planned).toHaveLength(records.length)
    records.forEach((record, i) => expect(planned[i]).toMatchObject(record))
  })
})
