// mode: verify's decisions (docs/how-to/live.md, and `rollback-to`): the
// result from the version that ran and the active version at the start and at the end, and the
// rollback target.
import { describe, expect, it } from '@jest/globals'
import {
  chooseRollbackTarget,
  decideLive,
  type ListedDeployment,
  type LiveDecision,
  type LiveFacts,
  recordedCandidates,
  recordedVersionOf,
  type RollbackCandidate
} from '../../../src/verdict/live.js'

const A = { id: 'aaaaaaaa-0000-4000-8000-000000000001', name: 'v1' }
const B = { id: 'bbbbbbbb-0000-4000-8000-000000000002', name: 'v2' }
const C = { id: 'cccccccc-0000-4000-8000-000000000003', name: 'k8s-0123456789abcdef0123' }

describe('the live result', () => {
  it.each<[string, LiveFacts, LiveDecision]>([
    [
      'passed, active throughout',
      { passed: true, ran: A, starting: A, ending: A },
      { result: 'Passed' }
    ],
    [
      'failed, still active: a rollback may apply',
      { passed: false, ran: A, starting: A, ending: A },
      { result: 'Failed', rollback: true }
    ],
    [
      'failed on the starting version, and the rollback target is active now (not by this run): never RolledBack',
      { passed: false, ran: A, starting: A, ending: B },
      {
        result: 'Inconclusive',
        why: `the test ran v1 (${A.id}), and v2 (${B.id}) is active now: another writer promoted meanwhile`
      }
    ],
    [
      'failed, another version active now, and the starting version unknown',
      { passed: false, ran: A, ending: B },
      {
        result: 'Inconclusive',
        why: `the test ran v1 (${A.id}), and v2 (${B.id}) is active now: another writer promoted meanwhile`
      }
    ],
    [
      'another writer promoted the target before the test resolved it, and the target failed',
      { passed: false, ran: B, starting: A, ending: B },
      {
        result: 'Inconclusive',
        why: `the test ran v2 (${B.id}), but v1 (${A.id}) was active when the run started: another writer promoted a version before the test resolved it`
      }
    ],
    [
      'failed, and the run started after the rollback of the same attempt: the test ran another version',
      { passed: false, ran: A, starting: B, ending: B },
      {
        result: 'Inconclusive',
        why: `the test ran v1 (${A.id}), but v2 (${B.id}) was active when the run started: another writer promoted a version before the test resolved it`
      }
    ],
    [
      'passed, but another version is active at the end',
      { passed: true, ran: A, starting: A, ending: B },
      {
        result: 'Inconclusive',
        why: `the test ran v1 (${A.id}), and v2 (${B.id}) is active now: another writer promoted meanwhile`
      }
    ],
    [
      'failed, but another version is active at the end: no rollback',
      { passed: false, ran: A, starting: A, ending: C },
      {
        result: 'Inconclusive',
        why: `the test ran v1 (${A.id}), and ${C.name} (${C.id}) is active now: another writer promoted meanwhile`
      }
    ],
    [
      'the test resolved another version than the one active at the start',
      { passed: true, ran: B, starting: A, ending: B },
      {
        result: 'Inconclusive',
        why: `the test ran v2 (${B.id}), but v1 (${A.id}) was active when the run started: another writer promoted a version before the test resolved it`
      }
    ],
    [
      'passed, the final read failed',
      { passed: true, ran: A, starting: A },
      {
        result: 'Inconclusive',
        why: `the test of v1 (${A.id}) passed, but the active version could not be read at the end`
      }
    ],
    [
      'failed, the final read failed: failed without rollback',
      { passed: false, ran: A, starting: A },
      {
        result: 'Failed',
        rollback: false,
        note: 'the active version could not be read at the end, so no rollback was tried'
      }
    ]
  ])('%s', (_name, facts, decision) => {
    expect(decideLive(facts)).toEqual(decision)
  })
})

const TEMPLATE = 'tttttttt-0000-4000-8000-000000000000'
const good: RollbackCandidate = {
  ...B,
  templateId: TEMPLATE,
  archived: false,
  jobStatus: 'succeeded',
  createdAt: '2026-01-01T00:00:00Z'
}

describe('the rollback target', () => {
  it.each<
    [string, Parameters<typeof chooseRollbackTarget>[0], ReturnType<typeof chooseRollbackTarget>]
  >([
    [
      'a good version by name',
      { wanted: 'v2', found: good, templateId: TEMPLATE, failed: A },
      { ok: true, target: good }
    ],
    [
      'previous, recorded',
      { wanted: 'previous', found: good, recordedId: B.id, templateId: TEMPLATE, failed: A },
      { ok: true, target: good }
    ],
    [
      'previous, nothing recorded',
      { wanted: 'previous', found: null, recordedId: '', templateId: TEMPLATE, failed: A },
      {
        ok: false,
        reason: `no successful deployment of the environment names a version other than the failed v1 (${A.id})`
      }
    ],
    [
      'a name Coder does not know',
      { wanted: 'v9', found: null, templateId: TEMPLATE, failed: A },
      { ok: false, reason: '"v9" is not a version of this template in Coder' }
    ],
    [
      'the failed version itself',
      { wanted: 'v1', found: { ...good, ...A }, templateId: TEMPLATE, failed: A },
      { ok: false, reason: `v1 (${A.id}) is the version that failed its live test` }
    ],
    [
      'an archived version',
      { wanted: 'v2', found: { ...good, archived: true }, templateId: TEMPLATE, failed: A },
      { ok: false, reason: `v2 (${B.id}) is archived` }
    ],
    [
      'a failed import',
      { wanted: 'v2', found: { ...good, jobStatus: 'failed' }, templateId: TEMPLATE, failed: A },
      { ok: false, reason: `the import of v2 (${B.id}) did not succeed (failed)` }
    ],
    [
      'an import still running',
      { wanted: 'v2', found: { ...good, jobStatus: 'running' }, templateId: TEMPLATE, failed: A },
      { ok: false, reason: `the import of v2 (${B.id}) did not succeed (running)` }
    ],
    [
      "another template's version (an ID)",
      { wanted: B.id, found: { ...good, templateId: 'other' }, templateId: TEMPLATE, failed: A },
      { ok: false, reason: `v2 (${B.id}) belongs to another template` }
    ]
  ])('%s', (_name, input, choice) => {
    expect(chooseRollbackTarget(input)).toEqual(choice)
  })
})

describe("rollback-to: previous reads only the gate's own records", () => {
  const wanted = { template: 'docker', organization: 'acme', except: A.id }
  const gate = {
    template: 'docker',
    organization: 'acme',
    versionId: B.id,
    versionName: 'v2',
    previousVersionId: A.id,
    testNames: ['docker-v2']
  }
  it.each<[string, unknown, string]>([
    ["the gate's payload of this template", gate, B.id],
    ['the same as a JSON string', JSON.stringify(gate), B.id],
    ['no previous version (the first release)', { ...gate, previousVersionId: '' }, B.id],
    ['the version that failed', { ...gate, versionId: A.id }, ''],
    ['another template', { ...gate, template: 'other' }, ''],
    ['another organization', { ...gate, organization: 'other' }, ''],
    ['a version ID that is no UUID', { ...gate, versionId: 'v2' }, ''],
    ['a previous version ID that is no UUID', { ...gate, previousVersionId: 'v1' }, ''],
    ['only a versionId (another tool)', { versionId: B.id }, ''],
    ['no test names', { ...gate, testNames: [] }, ''],
    ['test names that are not strings', { ...gate, testNames: [1] }, ''],
    ['no version name', { ...gate, versionName: undefined }, ''],
    ['not JSON', 'not json', ''],
    ['an array', [gate], ''],
    ['null', null, '']
  ])('%s', (_name, payload, id) => {
    expect(recordedVersionOf(payload, wanted)).toBe(id)
  })

  it.each<[string, ListedDeployment[], number[]]>([
    [
      'newest first by created_at, whatever the order of the list',
      [
        { id: 1, created_at: '2026-01-01T00:00:00Z', payload: gate },
        { id: 3, created_at: '2026-01-03T00:00:00Z', payload: gate },
        { id: 2, created_at: '2026-01-02T00:00:00Z', payload: gate }
      ],
      [3, 2, 1]
    ],
    [
      'the same second: the higher ID first',
      [
        { id: 7, created_at: '2026-01-01T00:00:00Z', payload: gate },
        { id: 8, created_at: '2026-01-01T00:00:00Z', payload: gate }
      ],
      [8, 7]
    ],
    [
      'foreign payloads and the failed version are left out',
      [
        { id: 5, created_at: '2026-01-05T00:00:00Z', payload: { versionId: C.id } },
        { id: 4, created_at: '2026-01-04T00:00:00Z', payload: { ...gate, versionId: A.id } },
        { id: 1, created_at: '2026-01-01T00:00:00Z', payload: gate }
      ],
      [1]
    ]
  ])('%s', (_name, deployments, ids) => {
    expect(recordedCandidates(deployments, wanted).map((d) => d.id)).toEqual(ids)
  })
})
