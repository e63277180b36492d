// Every manifest the gate can write satisfies the real CoderTemplateTest CRD: its OpenAPI schema and
// its CEL rules (read from ../shared/reference/data, third-party data that is never copied here).
import { existsSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import { buildTestManifest, type ManifestParams } from '../../../src/objects/manifest.js'
import { testNameFor } from '../../../src/settings/naming.js'
import { defaultCrdPath, loadTestSchema, validateSpec } from '../../sandbox/kube/validation.js'

const hasCrd = existsSync(defaultCrdPath)
if (!hasCrd)
  console.warn(`${defaultCrdPath} is absent: the manifest is checked against the CRD in CI only`)

const BASE: ManifestParams = {
  testName: 'docker-v2',
  namespace: 'coder-tests',
  controlPlane: 'coder',
  organization: 'acme',
  template: 'docker',
  version: 'v2',
  parameters: [],
  timeoutSeconds: 900
}

;(hasCrd ? describe : describe.skip)('manifests against the real CRD', () => {
  const schema = loadTestSchema(defaultCrdPath)

  it.each<[string, Partial<ManifestParams>]>([
    ['the plain case', {}],
    [
      'a version with uppercase and "_"',
      { version: 'V2.0_rc1', testName: testNameFor('docker', 'V2.0_rc1') }
    ],
    ['a 64-character version', { version: 'v'.repeat(64) }],
    ['32-character names', { organization: 'o'.repeat(32), template: 't'.repeat(32) }],
    [
      'names that only start with a reserved word',
      { organization: 'newco', template: 'create-env' }
    ],
    ['a control plane that is a DNS subdomain', { controlPlane: 'coder.prod-1' }],
    [
      '64 parameters at their limits',
      {
        parameters: Array.from({ length: 64 }, (_, i) => ({
          name: `p${i}`.padEnd(128, 'x'),
          value: 'v'.repeat(4096)
        }))
      }
    ],
    ['an empty parameter value', { parameters: [{ name: 'optional', value: '' }] }],
    ['the shortest timeout', { timeoutSeconds: 60 }],
    ['the longest timeout', { timeoutSeconds: 7200 }]
  ])('accepts %s', (_, change) => {
    const manifest = buildTestManifest({ ...BASE, ...change })
    expect(validateSpec(schema, manifest.spec)).toEqual([])
  })

  it('is checked for real: the CRD refuses what the gate never writes', () => {
    const spec = buildTestManifest(BASE).spec
    expect(validateSpec(schema, { ...spec, version: { name: 'v2', active: true } })).not.toEqual([])
    expect(validateSpec(schema, { ...spec, template: 'default.new' })).not.toEqual([])
    expect(validateSpec(schema, { ...spec, timeoutSeconds: 59 })).not.toEqual([])
  })
})
