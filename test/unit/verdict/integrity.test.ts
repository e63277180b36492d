// integrityProblems over a table of object variants: the live object proves our version only with
// our whole spec and our version in its status (coder-k8s docs/how-to/gitops.md). Phase, conditions and
// generations are the verdict's business (verdict.test.ts): they never make an object prove more.
import { describe, expect, it } from '@jest/globals'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import { integrityProblems, type PushedVersion } from '../../../src/verdict/integrity.js'
import { buildTestManifest } from '../../../src/objects/manifest.js'

const OUR_ID = '11111111-1111-4111-8111-111111111111'
const OTHER_ID = '22222222-2222-4222-8222-222222222222'
const pushed: PushedVersion = { id: OUR_ID, name: 'V2.0_rc1' }

const committed = buildTestManifest({
  testName: 'docker-v2-0-rc1',
  namespace: 'coder-tests',
  controlPlane: 'coder',
  organization: 'acme',
  template: 'docker',
  version: 'V2.0_rc1',
  parameters: [
    { name: 'cpu', value: '2' },
    { name: 'region', value: 'eu' }
  ],
  timeoutSeconds: 600
})

/** The object the controller shows for our test, passed and ours; `change` edits a copy. */
function live(
  change: (o: CoderTemplateTest & { spec: Record<string, unknown> }) => void = () => {}
) {
  const object = structuredClone({
    ...committed,
    metadata: { ...committed.metadata, generation: 1, uid: 'u1', resourceVersion: '7' },
    status: {
      observedGeneration: 1,
      phase: 'Succeeded',
      reason: 'Succeeded',
      templateVersionID: OUR_ID,
      templateVersionName: 'V2.0_rc1',
      conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1 }]
    }
  }) as CoderTemplateTest & { spec: Record<string, unknown> }
  change(object)
  return object
}
const status = (o: CoderTemplateTest) => o.status as Record<string, unknown>

type Row = [string, CoderTemplateTest, string[], PushedVersion?]

describe('integrityProblems', () => {
  it.each<Row>([
    ['our object', live(), []],
    // The spec, field by field: anyone who may create tests may create our name first.
    [
      'another control plane',
      live((o) => (o.spec.controlPlaneRef = { name: 'other' })),
      ['spec.controlPlaneRef.name: committed "coder", found "other"']
    ],
    [
      'another template',
      live((o) => (o.spec.template = 'acme.other')),
      ['spec.template: committed "acme.docker", found "acme.other"']
    ],
    [
      'another version name',
      live((o) => (o.spec.version = { name: 'v3' })),
      ['spec.version.name: committed "V2.0_rc1", found "v3"']
    ],
    [
      'a version ID beside the name',
      live((o) => (o.spec.version = { name: 'V2.0_rc1', id: OTHER_ID })),
      [`spec.version.id: committed nothing, found "${OTHER_ID}"`]
    ],
    [
      'another parameter value',
      live(
        (o) =>
          (o.spec.parameters = [
            { name: 'cpu', value: '64' },
            { name: 'region', value: 'eu' }
          ])
      ),
      ['spec.parameters[cpu].value: committed "2", found "64"']
    ],
    [
      'a parameter more',
      live((o) => (o.spec.parameters as unknown[]).push({ name: 'disk', value: '1' })),
      ['spec.parameters[disk]: committed nothing, found']
    ],
    [
      'a parameter less',
      live((o) => (o.spec.parameters = [{ name: 'cpu', value: '2' }])),
      ['spec.parameters[region]: committed "eu", found nothing']
    ],
    [
      'the parameters in another order',
      live((o) => (o.spec.parameters = [...(o.spec.parameters ?? [])].reverse())),
      []
    ],
    [
      'another timeout',
      live((o) => (o.spec.timeoutSeconds = 7200)),
      ['spec.timeoutSeconds: committed 600, found 7200']
    ],
    [
      'no timeout: the server default (900) is not ours',
      live((o) => delete o.spec.timeoutSeconds),
      ['spec.timeoutSeconds: committed 600, found 900']
    ],
    [
      'a TTL after finishing',
      live((o) => (o.spec.ttlSecondsAfterFinished = 60)),
      ['spec.ttlSecondsAfterFinished: committed nothing, found 60']
    ],
    // The status: the version the controller resolved must be the one pushed.
    [
      'another version ID in the status',
      live((o) => (status(o).templateVersionID = OTHER_ID)),
      [`status.templateVersionID: pushed "${OUR_ID}", found "${OTHER_ID}"`]
    ],
    [
      'no version ID in the status',
      live((o) => delete status(o).templateVersionID),
      [`status.templateVersionID: pushed "${OUR_ID}", found null`]
    ],
    [
      'another version name in the status',
      live((o) => (status(o).templateVersionName = 'v2.0_rc1')),
      ['status.templateVersionName: pushed "V2.0_rc1", found "v2.0_rc1"']
    ],
    [
      'no version name in the status',
      live((o) => delete status(o).templateVersionName),
      ['status.templateVersionName: pushed "V2.0_rc1", found null']
    ],
    [
      'no status',
      live((o) => delete o.status),
      ['status.templateVersionID: pushed', 'status.templateVersionName: pushed']
    ],
    [
      'status null',
      live((o) => (o.status = null)),
      ['status.templateVersionID: pushed', 'status.templateVersionName: pushed']
    ],
    // What we pushed must be known, or nothing proves it (an empty status would match an empty push).
    [
      'the pushed version unknown',
      live((o) => (o.status = { templateVersionID: '', templateVersionName: '' })),
      ['the pushed version is unknown'],
      { id: '', name: '' }
    ],
    [
      'the pushed ID unknown',
      live((o) => (status(o).templateVersionID = '')),
      ['the pushed version is unknown'],
      { id: '', name: 'V2.0_rc1' }
    ],
    [
      'the pushed name unknown',
      live((o) => (status(o).templateVersionName = '')),
      ['the pushed version is unknown'],
      { id: OUR_ID, name: '' }
    ],
    // Not integrity: the verdict waits or fails on these, the object still is ours.
    ['Failed', live((o) => (status(o).phase = 'Failed')), []],
    ['Running', live((o) => (status(o).phase = 'Running')), []],
    ['no phase', live((o) => delete status(o).phase), []],
    ['a stale observedGeneration', live((o) => (status(o).observedGeneration = 0)), []],
    ['a newer generation', live((o) => (o.metadata.generation = 2)), []],
    ['Ready=False', live((o) => (status(o).conditions = [{ type: 'Ready', status: 'False' }])), []],
    ['no conditions', live((o) => delete status(o).conditions), []],
    ['being deleted', live((o) => (o.metadata.deletionTimestamp = '2026-12-02T10:00:00Z')), []],
    [
      'several at once, spec first',
      live((o) => {
        o.spec.template = 'acme.other'
        status(o).templateVersionID = OTHER_ID
        status(o).templateVersionName = 'v3'
      }),
      ['spec.template', 'status.templateVersionID', 'status.templateVersionName']
    ]
  ])('%s', (_, object, expected, ours = pushed) => {
    const problems = integrityProblems(object, committed.spec, ours)
    expect(problems).toHaveLength(expected.length)
    problems.forEach((problem, i) => expect(problem).toContain(expected[i]))
  })

  it('leaves the objects it reads as they were', () => {
    const object = live((o) => (o.spec.template = 'acme.other'))
    const before = JSON.stringify([object, committed])
    integrityProblems(object, committed.spec, pushed)
    expect(JSON.stringify([object, committed])).toBe(before)
  })
})
