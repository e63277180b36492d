// accessNeeds and config/rbac/gate-role.yaml stay equal: every need names a rule of the shipped Role
// that grants it, and every rule of the Role is named by a need. The Role is parsed here with the
// `yaml` package, independently of the sandbox's loader.
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { parseAllDocuments } from 'yaml'
import {
  PROMOTE_RULE,
  READ_RULE,
  TEST_RULE,
  accessNeeds,
  describeNeed
} from '../../../src/kube/access.js'
import type { AccessNeed } from '../../../src/kube/access.js'

interface Rule {
  apiGroups: string[]
  resources: string[]
  verbs: string[]
  resourceNames?: string[]
}

const rolePath = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../config/rbac/gate-role.yaml'
)

function loadRules(): Rule[] {
  const docs = parseAllDocuments(readFileSync(rolePath, 'utf8')).map((d) => d.toJS())
  const role = docs.find((d) => d?.kind === 'Role')
  if (!role) throw new Error(`no Role in ${rolePath}`)
  return role.rules as Rule[]
}

const same = (a: string[], b: string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

const named = (rule: Rule, need: AccessNeed): boolean =>
  same(rule.apiGroups, need.rule.apiGroups) && same(rule.resources, need.rule.resources)

/** What is wrong between the needs and the rules; [] when they are equal. */
function mismatches(needs: AccessNeed[], rules: Rule[]): string[] {
  const problems: string[] = []
  for (const need of needs) {
    const what = describeNeed(need, 'ns')
    const matching = rules.filter((rule) => named(rule, need))
    if (matching.length !== 1) {
      problems.push(`${what}: ${matching.length} rules match its rule`)
      continue
    }
    const rule = matching[0]!
    const resource = need.subresource ? `${need.resource}/${need.subresource}` : need.resource
    if (!rule.apiGroups.includes(need.group)) problems.push(`${what}: group not in the rule`)
    if (!rule.resources.includes(resource)) problems.push(`${what}: ${resource} not in the rule`)
    if (!rule.verbs.includes(need.verb)) problems.push(`${what}: verb not in the rule`)
    if (rule.resourceNames && !(need.name && rule.resourceNames.includes(need.name)))
      problems.push(`${what}: name not in the rule's resourceNames`)
  }
  for (const rule of rules)
    if (!needs.some((need) => named(rule, need)))
      problems.push(`rule for ${rule.resources.join(', ')} is named by no need`)
  return problems
}

describe('accessNeeds and config/rbac/gate-role.yaml', () => {
  const rules = loadRules()

  it('grants every need of a promoting run, and names every rule of the Role', () => {
    const needs = accessNeeds('acme.docker', true)
    expect(needs).toHaveLength(5)
    expect(mismatches(needs, rules)).toEqual([])
    // The exported rules are the Role's (apiGroups and resources), one each.
    for (const exported of [TEST_RULE, READ_RULE, PROMOTE_RULE])
      expect(
        rules.filter(
          (r) => same(r.apiGroups, exported.apiGroups) && same(r.resources, exported.resources)
        )
      ).toHaveLength(1)
  })

  it('the check fails when the Role and the needs drift apart', () => {
    const needs = accessNeeds('acme.docker', true)
    const withoutWatch = rules.map((r) =>
      r.resources.includes('codertemplatetests') ? { ...r, verbs: ['get', 'list'] } : r
    )
    expect(mismatches(needs, withoutWatch)).toEqual([
      'watch codertemplatetests.coder.com in namespace ns: verb not in the rule'
    ])
    expect(mismatches(accessNeeds('acme.other', true), rules)).toEqual([
      'create codertemplates/promote.aggregation.coder.com "acme.other" in namespace ns: name not in the rule\'s resourceNames'
    ])
    const extra = [...rules, { apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]
    expect(mismatches(needs, extra)).toEqual(['rule for secrets is named by no need'])
    expect(mismatches(needs, rules.slice(1))).toContain(
      'get codertemplatetests.coder.com in namespace ns: 0 rules match its rule'
    )
  })

  it('asks for the exact verbs of the issue, promote and the template read only when promoting', () => {
    const key = (n: AccessNeed) =>
      [n.verb, n.group, n.resource, n.subresource ?? '', n.name ?? ''].join(' ')
    expect(accessNeeds('acme.docker', true).map(key)).toEqual([
      'get coder.com codertemplatetests  ',
      'list coder.com codertemplatetests  ',
      'watch coder.com codertemplatetests  ',
      'get aggregation.coder.com codertemplates  acme.docker',
      'create aggregation.coder.com codertemplates promote acme.docker'
    ])
    const quiet = accessNeeds('acme.docker', false)
    expect(quiet.some((n) => n.subresource === 'promote')).toBe(false)
    expect(quiet.some((n) => n.group === 'aggregation.coder.com')).toBe(false)
    expect(quiet.map(key)).toEqual(accessNeeds('acme.docker', true).slice(0, 3).map(key))
    expect(mismatches(quiet, rules)).toEqual([
      'rule for codertemplates/promote is named by no need',
      'rule for codertemplates, codertemplateversions is named by no need'
    ])
  })

  it('describeNeed names the verb, resource/subresource, group, name and namespace', () => {
    const [get, , , read, promote] = accessNeeds('acme.docker', true)
    expect(describeNeed(get!, 'coder-tests')).toBe(
      'get codertemplatetests.coder.com in namespace coder-tests'
    )
    expect(describeNeed(read!, 'ci')).toBe(
      'get codertemplates.aggregation.coder.com "acme.docker" in namespace ci'
    )
    expect(describeNeed(promote!, 'ci')).toBe(
      'create codertemplates/promote.aggregation.coder.com "acme.docker" in namespace ci'
    )
  })
})
