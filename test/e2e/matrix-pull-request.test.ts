// End to end: ten gates of ten templates at once against one world (one Coder, one API
// server, one GitOps repository and branch, one GitHub token) with GitHub's secondary limits
// enforced at GitHub's numbers. A correctness test: every gate promotes its own tested version; no
// timings are asserted. Both modes: in commit mode the ten gates race on one branch, and the
// time-bounded, jittered commit retry (src/gitops/github/commit/change.ts) must carry every one of them; in
// pull-request mode each gate writes its own branch and GitHub merges. Timings are measured by
// `npm run bench -- --matrix N`.
import { describe } from '@jest/globals'
import { matrixCase } from './matrix-case.js'

describe('a matrix release: ten gates at once on one branch', () => matrixCase('pull-request'))
