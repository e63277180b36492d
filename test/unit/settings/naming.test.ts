import { describe, expect, it } from '@jest/globals'
import {
  coderNameProblem,
  deriveVersion,
  dnsLabelProblem,
  dnsSubdomainProblem,
  sanitiseVersion,
  stableHash,
  testNameFor,
  versionNameProblem
} from '../../../src/settings/naming.js'

const SHA = '0123456789abcdef0123456789abcdef01234567'

describe('coderNameProblem', () => {
  it.each([
    ['docker', null],
    ['my-template-2', null],
    ['A1', null],
    ['x'.repeat(32), null],
    ['x'.repeat(33), 'at most 32'],
    ['', 'at least 1'],
    ['-docker', 'hyphens'],
    ['docker-', 'hyphens'],
    ['dock--er', 'hyphens'],
    ['dock_er', 'hyphens'],
    ['new', 'reserved'],
    ['create', 'reserved'],
    ['newco', null]
  ])('%j -> %j', (name, problem) => {
    const result = coderNameProblem(name)
    if (problem === null) expect(result).toBeNull()
    else expect(result).toContain(problem)
  })
})

describe('versionNameProblem', () => {
  it.each([
    ['v1.2.3', null],
    ['1.0.0-rc.1', null],
    ['V2.0_rc1', null],
    ['main-42', null],
    ['a'.repeat(64), null],
    ['a'.repeat(65), 'at most 64'],
    ['feature/x', 'letters and digits'],
    ['v1+build', 'letters and digits'],
    ['a..b', 'letters and digits'],
    ['a--b', 'letters and digits'],
    ['-a', 'letters and digits'],
    ['a_', 'letters and digits'],
    ['', 'at least 1']
  ])('%j -> %j', (name, problem) => {
    const result = versionNameProblem(name)
    if (problem === null) expect(result).toBeNull()
    else expect(result).toContain(problem)
  })
})

describe('deriveVersion', () => {
  it.each([
    [{ eventName: 'push', ref: 'refs/tags/v1.2.3', sha: SHA }, 'v1.2.3', 'tag'],
    [{ eventName: 'push', ref: 'refs/tags/release/v1', sha: SHA }, 'release-v1', 'tag'],
    [{ eventName: 'push', ref: 'refs/heads/main', sha: SHA }, 'main-0123456', 'branch'],
    [
      { eventName: 'push', ref: 'refs/heads/feature/New_UI', sha: SHA },
      'feature-New_UI-0123456',
      'branch'
    ],
    [
      { eventName: 'workflow_dispatch', ref: 'refs/heads/main', sha: SHA },
      'main-0123456',
      'branch'
    ],
    [{ eventName: 'push', ref: 'refs/heads/fünf-äpfel', sha: SHA }, 'funf-apfel-0123456', 'branch'],
    [{ eventName: 'push', ref: 'refs/heads/日本語', sha: SHA }, '0123456', 'branch'],
    [{ eventName: 'schedule', ref: '', sha: SHA }, '0123456', 'commit'],
    [
      {
        eventName: 'pull_request',
        ref: 'refs/pull/42/merge',
        sha: 'ffffffffffffffffffffffffffffffffffffffff',
        pullRequest: { number: 42, headSha: SHA }
      },
      'pr-42-0123456',
      'pull_request'
    ],
    [
      {
        eventName: 'pull_request_target',
        ref: 'refs/heads/main',
        sha: 'ffffffffffffffffffffffffffffffffffffffff',
        pullRequest: { number: 42, headSha: SHA }
      },
      'pr-42-0123456',
      'pull_request'
    ],
    // A payload with a pull request in another event (e.g. a push): the ref decides.
    [
      {
        eventName: 'push',
        ref: 'refs/heads/main',
        sha: SHA,
        pullRequest: { number: 42, headSha: 'ffffffffffffffffffffffffffffffffffffffff' }
      },
      'main-0123456',
      'branch'
    ]
  ])('%j -> %s', (context, name, source) => {
    const derived = deriveVersion(context)
    expect(derived.name).toBe(name)
    expect(derived.source).toBe(source)
    expect(versionNameProblem(derived.name)).toBeNull()
  })

  it('keeps the sha whole when a long branch name is cut', () => {
    const derived = deriveVersion({
      eventName: 'push',
      ref: `refs/heads/${'b'.repeat(100)}`,
      sha: SHA
    })
    expect(derived.name.length).toBeLessThanOrEqual(64)
    expect(derived.name.endsWith('-0123456')).toBe(true)
    expect(versionNameProblem(derived.name)).toBeNull()
  })
})

describe('sanitiseVersion', () => {
  it.each([
    ['v1.2.3', 'v1.2.3'],
    ['feature/x', 'feature-x'],
    ['a..b', 'a.b'],
    ['--a__b--', 'a_b'],
    ['v1+build.7', 'v1-build.7'],
    ['日本', '']
  ])('%j -> %j', (raw, name) => {
    expect(sanitiseVersion(raw)).toBe(name)
  })

  it('cuts a long name with a stable hash, so that two long names stay distinct', () => {
    const a = sanitiseVersion(`${'x'.repeat(70)}-a`)
    const b = sanitiseVersion(`${'x'.repeat(70)}-b`)
    expect(a).toHaveLength(64)
    expect(a).not.toBe(b)
    expect(a).toBe(sanitiseVersion(`${'x'.repeat(70)}-a`))
    expect(versionNameProblem(a)).toBeNull()
  })
})

describe('testNameFor', () => {
  it.each([
    ['docker', 'V2.0_rc1', 'docker-v2-0-rc1'],
    ['docker', 'v2', 'docker-v2'],
    ['Docker', 'v2', 'docker-v2'],
    ['docker', 'a_.b', 'docker-a-b'],
    ['docker', 'main-0123456', 'docker-main-0123456']
  ])('%s + %s -> %s', (template, version, name) => {
    expect(testNameFor(template, version)).toBe(name)
    expect(dnsLabelProblem(testNameFor(template, version))).toBeNull()
  })

  it('keeps a name of exactly 63 characters whole', () => {
    const version = 'v'.repeat(63 - 'docker-'.length)
    expect(testNameFor('docker', version)).toBe(`docker-${version}`)
  })

  it('cuts a 64-character version to 63 characters with a stable hash suffix', () => {
    const version = 'v'.repeat(64)
    const name = testNameFor('docker', version)
    expect(name).toHaveLength(63)
    expect(name.endsWith(`-${stableHash(`docker-${version}`)}`)).toBe(true)
    expect(dnsLabelProblem(name)).toBeNull()
    expect(testNameFor('docker', 'v'.repeat(63) + 'w')).not.toBe(name)
  })

  it('maps different versions to one name: the spec comparison must catch it later', () => {
    expect(testNameFor('docker', 'V2.0_rc1')).toBe(testNameFor('docker', 'v2-0-rc1'))
  })

  it('never ends the cut part with a hyphen', () => {
    const name = testNameFor('docker', `${'a'.repeat(44)}-${'b'.repeat(19)}`)
    expect(dnsLabelProblem(name)).toBeNull()
  })
})

describe('dnsLabelProblem', () => {
  it.each([
    ['coder-tests', null],
    ['a', null],
    ['0abc', null],
    ['x'.repeat(63), null],
    ['x'.repeat(64), 'at most 63'],
    ['', 'at least 1'],
    ['Coder', 'DNS-1123 label'],
    ['-a', 'DNS-1123 label'],
    ['a-', 'DNS-1123 label'],
    ['a.b', 'DNS-1123 label'],
    ['a_b', 'DNS-1123 label']
  ])('%j -> %j', (name, problem) => {
    const result = dnsLabelProblem(name)
    if (problem === null) expect(result).toBeNull()
    else expect(result).toContain(problem)
  })
})

describe('dnsSubdomainProblem', () => {
  const long = (n: number) => `${'a'.repeat(60)}.`.repeat(5).slice(0, n - 1) + 'z'
  it.each([
    ['coder', null],
    ['coder.prod-1', null],
    ['a.b.c', null],
    [long(253), null],
    [long(254), 'at most 253'],
    ['', 'at least 1'],
    ['Coder', 'DNS-1123 subdomain'],
    ['a..b', 'DNS-1123 subdomain'],
    ['.a', 'DNS-1123 subdomain'],
    ['a.', 'DNS-1123 subdomain'],
    ['a.-b', 'DNS-1123 subdomain'],
    ['a_b', 'DNS-1123 subdomain']
  ])('%j -> %j', (name, problem) => {
    const result = dnsSubdomainProblem(name)
    if (problem === null) expect(result).toBeNull()
    else expect(result).toContain(problem)
  })
})
