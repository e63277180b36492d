// gitops-refresh as an input (interface.md): the targets it names, and the errors that name the
// input and the rule.
import { describe, it, expect } from '@jest/globals'
import { type Inputs, parseWith as parse, refusalsIn } from './settings-fixture.js'

describe('gitops-refresh', () => {
  it.each<[Inputs, unknown[]]>([
    [{}, []],
    [{ 'gitops-refresh': '  \n ' }, []],
    [
      { 'gitops-refresh': 'argocd:argocd/coder-tests' },
      [{ engine: 'argocd', namespace: 'argocd', name: 'coder-tests' }]
    ],
    [
      { 'gitops-refresh': ' flux:flux-system/coder.tests \r\n\nargocd:argo/app ' },
      [
        { engine: 'flux', namespace: 'flux-system', name: 'coder.tests' },
        { engine: 'argocd', namespace: 'argo', name: 'app' }
      ]
    ]
  ])('%j', (inputs, targets) => {
    const result = parse(inputs)
    expect(result.ok && result.settings.gitops.refresh).toEqual(targets)
  })

  it.each<[string, string]>([
    [
      'argocd:app',
      'must be "argocd:<namespace>/<application>" or "flux:<namespace>/<kustomization>"'
    ],
    ['argocd:ns/app/extra', 'must be "argocd:<namespace>/<application>"'],
    ['ns/app', 'must be "argocd:<namespace>/<application>"'],
    ['argocd:ns/app x', 'must be "argocd:<namespace>/<application>"'],
    ['fluxcd:ns/app', 'names the engine "fluxcd"; it must be "argocd" or "flux"'],
    ['argocd:/app', 'the namespace must be at least 1 character'],
    ['argocd:Argo/app', 'the namespace must be a DNS-1123 label'],
    ['flux:ns/', 'the name must be at least 1 character'],
    ['flux:ns/App_1', 'the name must be a DNS-1123 subdomain'],
    ['argocd:ns/app\nargocd:ns/app', '"argocd:ns/app" is given twice'],
    [
      Array.from({ length: 21 }, (_, i) => `flux:ns/k${i}`).join('\n'),
      'at most 20 entries (got 21)'
    ]
  ])('%j is refused', (value, rule) => {
    const refusals = refusalsIn('gitops-refresh', parse({ 'gitops-refresh': value }))
    expect(refusals.some((r) => r.startsWith('Input "gitops-refresh"') && r.includes(rule))).toBe(
      true
    )
  })
})
