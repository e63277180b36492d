// The promote job's decisions about what the test job left (src/verdict/locate-rules.ts): this commit's
// version, and the manifest of exactly that version.
import { describe, expect, it } from '@jest/globals'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import type { CoderTemplateVersion } from '../../../src/coder/types.js'
import {
  expectedVersionProblem,
  manifestProblem,
  versionProblem,
  type WantedManifest,
  type WantedVersion
} from '../../../src/verdict/locate-rules.js'
import { withVersionMarker } from '../../../src/coder/version-identity.js'

const SHA = '0123456789abcdef0123456789abcdef01234567'
const RUN = 'https://github.com/acme/t/actions/runs/1'
const WANT: WantedVersion = { organization: 'acme', template: 'docker', name: 'v1', commitSha: SHA }

function version(overrides: Partial<CoderTemplateVersion> = {}): CoderTemplateVersion {
  return {
    id: 'id-1',
    template_id: 't',
    organization_id: 'o',
    name: 'v1',
    message: withVersionMarker('Add Go', SHA, RUN),
    job: { status: 'succeeded' } as CoderTemplateVersion['job'],
    archived: false,
    ...overrides
  }
}

describe('versionProblem', () => {
  it.each<[string, CoderTemplateVersion | null, typeof WANT, string | null]>([
    ['this commit’s, imported', version(), WANT, null],
    ['none', null, WANT, 'Coder holds no version "v1" of acme.docker: no test job has pushed it.'],
    [
      'pushed by hand',
      version({ message: 'hotfix', created_by: { username: 'ana' } }),
      WANT,
      'Version v1 (id-1, created by ana) of acme.docker was not pushed for commit 0123456789ab: its message is "hotfix".'
    ],
    [
      'another commit’s',
      version({ message: withVersionMarker('Add Go', 'f'.repeat(40), RUN) }),
      WANT,
      'was not pushed for commit 0123456789ab'
    ],
    [
      'no commit from the runner',
      version(),
      { ...WANT, commitSha: undefined },
      'cannot be matched to this commit: the runner gave no commit (GITHUB_SHA).'
    ],
    [
      'import failed',
      version({ job: { status: 'failed' } as CoderTemplateVersion['job'] }),
      WANT,
      "is this commit's, but its import is failed."
    ],
    ['archived', version({ archived: true }), WANT, "is this commit's, but it is archived."]
  ])('%s', (_, found, want, expected) => {
    const problem = versionProblem(found, want)
    if (expected === null) expect(problem).toBeNull()
    else expect(problem).toContain(expected)
  })

  it('cuts a long foreign message', () => {
    const problem = versionProblem(version({ message: 'x'.repeat(500) }), WANT) ?? ''
    expect(problem).toContain(`"${'x'.repeat(200)}…"`)
    expect(problem).not.toContain('x'.repeat(201))
  })
})

const WHERE: WantedManifest = {
  where: 'acme/gitops@main:tests/docker-v1.yaml',
  namespace: 'coder-tests',
  testName: 'docker-v1',
  template: 'acme.docker',
  versionName: 'v1'
}

function manifest(name = 'docker-v1', template = 'acme.docker', v = 'v1'): CoderTemplateTest {
  return {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTest',
    metadata: { name, namespace: 'coder-tests' },
    spec: { controlPlaneRef: { name: 'coder' }, template, version: { name: v } }
  }
}

describe('manifestProblem', () => {
  it.each<[string, string | null, CoderTemplateTest | null, string | null]>([
    ['the test of our version', 'text', manifest(), null],
    [
      'no file',
      null,
      null,
      'acme/gitops@main:tests/docker-v1.yaml does not exist: no test job has committed it.'
    ],
    ['not a test', 'a: 1', null, 'is not a CoderTemplateTest manifest.'],
    [
      'another test name',
      'text',
      manifest('other'),
      'declares the test coder-tests/other, not coder-tests/docker-v1.'
    ],
    [
      'another version',
      'text',
      manifest('docker-v1', 'acme.docker', 'v2'),
      'tests acme.docker version v2, not acme.docker version v1.'
    ],
    [
      'another template',
      'text',
      manifest('docker-v1', 'acme.k8s', 'v1'),
      'tests acme.k8s version v1, not acme.docker version v1.'
    ]
  ])('%s', (_, text, parsed, expected) => {
    const problem = manifestProblem(text, parsed, WHERE)
    if (expected === null) expect(problem).toBeNull()
    else expect(problem).toContain(expected)
  })
})

describe('expectedVersionProblem', () => {
  const ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'
  it.each<[string, CoderTemplateVersion | null, string | null]>([
    ['a version of this template', version({ id: ID, template_id: 't' }), null],
    [
      'no such version',
      null,
      `Input "expected-active-version-id" names version ${ID}, which Coder does not hold: pass the previous-active-version-id output of the test job of acme.docker.`
    ],
    [
      'a version of another template',
      version({ id: ID, name: 'v0.1', template_id: 'other' }),
      `Input "expected-active-version-id" names version v0.1 (${ID}), which is not a version of acme.docker: pass the previous-active-version-id output of the test job of acme.docker.`
    ]
  ])('%s', (_, expected, problem) => {
    expect(expectedVersionProblem(ID, expected, 't', 'acme.docker')).toBe(problem)
  })
})
