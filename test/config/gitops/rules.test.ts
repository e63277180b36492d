// The two GitOps health rules and the gate's own verdict over the fixture table of
// fixtures.ts.
import { describe, it, expect } from '@jest/globals'
import type { CoderTemplateTest } from '../../../src/objects/coder-k8s.js'
import { verdictOf } from '../../../src/verdict/verdict.js'
import { describeWithGo } from '../../go/engines.js'
import {
  argoControllerHealth,
  assertLua51,
  controllerView,
  runArgoHealthScript
} from './argo-lua.js'
import type { ArgoHealth } from './argo-lua.js'
import { BUFBUILD_CEL } from './flux-bufbuild.js'
import { compileFluxHealthCheck, MARCBACHMANN_CEL, readHealthCheckEntries } from './flux-cel.js'
import type { FluxStatus } from './flux-cel.js'
import { HEALTH_CASES } from './fixtures.js'
import { ARGO_SCRIPT_PATH, FLUX_CHECK_PATH, readRepoFile } from './paths.js'

const argoScript = readRepoFile(ARGO_SCRIPT_PATH)
const fluxEntries = readHealthCheckEntries(readRepoFile(FLUX_CHECK_PATH))
const fluxHealth = compileFluxHealthCheck(fluxEntries[0])
const CASE_ROWS = HEALTH_CASES.map((c) => [c.id, c.title, c] as const)

describe('Argo CD health script', () => {
  it('is valid Lua 5.1, the syntax gopher-lua accepts', () => {
    expect(() => assertLua51(argoScript)).not.toThrow()
  })

  it.each(HEALTH_CASES.map((c) => [c.id, c.title, c] as const))(
    'case %s (%s): script result',
    (_id, _title, healthCase) => {
      expect(runArgoHealthScript(argoScript, healthCase.object)).toEqual(healthCase.argoScript)
    }
  )

  it.each(HEALTH_CASES.map((c) => [c.id, c.title, c] as const))(
    'case %s (%s): what the v3.0–v3.5 controller shows',
    (_id, _title, healthCase) => {
      expect(argoControllerHealth(argoScript, healthCase.object)).toEqual(healthCase.argoController)
    }
  )
})

// The engine that Argo CD itself runs; fengari above must agree with it.
describeWithGo('Argo CD health script in gopher-lua', (go) => {
  const results = go.runLua(HEALTH_CASES.map((c) => ({ script: argoScript, obj: c.object })))

  it.each(CASE_ROWS.map((row, index) => [...row, results[index]] as const))(
    'case %s (%s): script result and controller view, equal to fengari',
    (_id, _title, healthCase, goResult) => {
      expect(goResult).toEqual(healthCase.argoScript)
      expect(goResult).toEqual(runArgoHealthScript(argoScript, healthCase.object))
      expect(controllerView(healthCase.object, goResult)).toEqual(healthCase.argoController)
    }
  )
})

describe('Flux health check expressions', () => {
  it('is one entry for coder.com/v1alpha1 CoderTemplateTest with all three expressions', () => {
    expect(fluxEntries).toHaveLength(1)
    expect(fluxEntries[0]).toMatchObject({
      apiVersion: 'coder.com/v1alpha1',
      kind: 'CoderTemplateTest'
    })
    for (const name of ['inProgress', 'failed', 'current'] as const) {
      expect(typeof fluxEntries[0][name]).toBe('string')
    }
  })

  // Both CEL libraries, each on its own, and so also in agreement with each other.
  const fluxHealthOf = {
    [MARCBACHMANN_CEL.name]: fluxHealth,
    [BUFBUILD_CEL.name]: compileFluxHealthCheck(fluxEntries[0], BUFBUILD_CEL)
  }
  it.each(
    Object.keys(fluxHealthOf).flatMap((engine) => CASE_ROWS.map((row) => [engine, ...row] as const))
  )('%s, case %s (%s): kstatus result and the step that decided it', (engine, _id, _t, c) => {
    const { status, decidedBy } = fluxHealthOf[engine](c.object)
    expect({ status, decidedBy }).toEqual(c.flux)
  })

  it.each(Object.keys(fluxHealthOf))(
    '%s reaches Unknown only through the evaluation errors that Flux also has (cases a and g)',
    (engine) => {
      // Some errors happen only in one library; no other case may hit one.
      const check = fluxHealthOf[engine]
      const unknownCases = HEALTH_CASES.filter((c) => check(c.object).status === 'Unknown')
      expect(unknownCases.map((c) => c.id)).toEqual(['a', 'g'])
      for (const healthCase of unknownCases) {
        expect(check(healthCase.object).error).toEqual(expect.any(String))
      }
    }
  )
})

type Expected = 'passed' | 'failed' | 'waiting'

// The gate passes only where both tools pass and fails only where both fail (src/verdict/verdict.ts).
function expectedVerdict(argo: ArgoHealth, flux: FluxStatus): Expected {
  if (argo.status === 'Healthy' && flux === 'Current') return 'passed'
  if (argo.status === 'Degraded' && flux === 'Failed') return 'failed'
  return 'waiting'
}

describe('the gate verdict (src/verdict/verdict.ts)', () => {
  it.each(HEALTH_CASES.map((c) => [c.id, c.title, c] as const))(
    'case %s (%s) agrees with Argo CD and Flux together',
    (_id, _title, healthCase) => {
      const argo = argoControllerHealth(argoScript, healthCase.object)
      const flux = fluxHealth(healthCase.object).status
      const verdict = verdictOf(healthCase.object as unknown as CoderTemplateTest)
      expect(verdict.state).toBe(expectedVerdict(argo, flux))
    }
  )

  it('passes exactly e, k and l and fails exactly h', () => {
    // Pins the table above, so that a wrong expectation cannot turn every case into waiting.
    const states = Object.fromEntries(
      HEALTH_CASES.map((c) => [c.id, verdictOf(c.object as unknown as CoderTemplateTest).state])
    )
    expect(states).toEqual({
      a: 'waiting',
      b: 'waiting',
      c: 'waiting',
      d: 'waiting',
      e: 'passed',
      f: 'waiting',
      g: 'waiting',
      h: 'failed',
      i: 'waiting',
      j: 'waiting',
      k: 'passed',
      l: 'passed',
      m: 'waiting',
      n: 'waiting',
      o: 'waiting',
      p: 'waiting'
    })
  })

  it('keeps the observed reason and message of a failed test', () => {
    const failed = HEALTH_CASES.find((c) => c.id === 'h')!
    expect(verdictOf(failed.object as unknown as CoderTemplateTest)).toMatchObject({
      state: 'failed',
      phase: 'Failed',
      reason: 'BuildFailed',
      message: 'terraform apply exited 1'
    })
  })
})
