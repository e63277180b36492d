// The merge patch of gitops-refresh per engine object: only its annotation, nothing else.
import { describe, expect, it } from '@jest/globals'
import {
  APPLICATION,
  describeObject,
  GIT_REPOSITORY,
  KUSTOMIZATION,
  refreshPatch
} from '../../../src/kube/refresh.js'

const at = new Date('2026-12-04T18:00:00.123Z')

describe('refreshPatch', () => {
  it.each([
    [APPLICATION, { 'argocd.argoproj.io/refresh': 'normal' }],
    [KUSTOMIZATION, { 'reconcile.fluxcd.io/requestedAt': '2026-12-04T18:00:00.123Z' }],
    [GIT_REPOSITORY, { 'reconcile.fluxcd.io/requestedAt': '2026-12-04T18:00:00.123Z' }]
  ])('%j', (resource, annotations) => {
    const object = { ...resource, namespace: 'ns', name: 'x' }
    expect(refreshPatch(object, at)).toEqual({ metadata: { annotations } })
  })

  it('names the object with its resource and group', () => {
    expect(describeObject({ ...GIT_REPOSITORY, namespace: 'flux-system', name: 'gitops' })).toBe(
      'GitRepository flux-system/gitops (gitrepositories.source.toolkit.fluxcd.io)'
    )
  })
})
