// The mutations that `npm run mutate` applies, one at a time, to a scratch copy of src/: each must
// make its module's table test fail. `find` is exact source text that occurs once in the module, so
// that a change of the source breaks the list loudly (test/mutation/mutations.test.ts) instead of
// leaving a mutation that no longer mutates anything.
import type { MutatedModule } from './mutation-types.js'
import { FOREIGN_TEXT_MODULES } from './mutations-foreign-text.js'
import { GATE_MODULES } from './mutations-gate.js'
import { GITOPS_KUBE_MODULES } from './mutations-gitops-kube.js'
import { PRESET_MODULES } from './mutations-presets.js'
import { LIVE_MODULES } from './mutations-live.js'
import { STEP_MODULES } from './mutations-steps.js'
import { TIMING_MODULES } from './mutations-timing.js'

export type { MutatedModule, Mutation } from './mutation-types.js'

export const MUTATED_MODULES: MutatedModule[] = [
  ...GATE_MODULES,
  ...GITOPS_KUBE_MODULES,
  ...LIVE_MODULES,
  ...FOREIGN_TEXT_MODULES,
  ...TIMING_MODULES,
  ...STEP_MODULES,
  ...PRESET_MODULES
]
