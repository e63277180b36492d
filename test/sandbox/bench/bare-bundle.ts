// Builds bare-entry.ts with the repository's own ncc (the one `npm run package` uses), minified as
// dist/ is, into a temporary directory; returns the bundle's path.
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { REPO_ROOT } from '../action-runner.js'

export function buildBareBundle(): string {
  const out = mkdtempSync(path.join(os.tmpdir(), 'gate-bench-bare-'))
  const ncc = path.join(REPO_ROOT, 'node_modules/.bin/ncc')
  const entry = path.join(REPO_ROOT, 'test/sandbox/bench/bare-entry.ts')
  execFileSync(ncc, ['build', entry, '-o', out, '--minify', '--quiet'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit']
  })
  return path.join(out, 'index.js')
}
