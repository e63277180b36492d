// The e2e project's globalSetup: the scenarios run the bundle built from the current src/, never a
// stale dist/. It builds with the same ncc command as `npm run package` (minified, as shipped) to a
// temporary folder named by a hash of everything the build reads, so an unchanged tree is built
// once, and sets GATE_BUNDLE for the test workers (forked after this runs). A GATE_BUNDLE given by
// the caller wins: CI's dist check, or a bundle built elsewhere.
import { createHash } from 'node:crypto'
import { spawn, spawnSync } from 'node:child_process'
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const BUILD_INPUTS = ['src', 'package.json', 'package-lock.json', 'tsconfig.json']

/** Every file under `entry`, sorted, so that the hash does not depend on the directory order. */
function filesUnder(entry: string): string[] {
  const full = path.join(ROOT, entry)
  if (!existsSync(full)) return []
  if (!statSync(full).isDirectory()) return [entry]
  return readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(path.join(entry, name)))
}

function sourceHash(): string {
  const hash = createHash('sha256')
  for (const file of BUILD_INPUTS.flatMap(filesUnder)) {
    hash.update(`${file}\0`)
    hash.update(readFileSync(path.join(ROOT, file)))
  }
  return hash.digest('hex').slice(0, 16)
}

function build(outDir: string): void {
  const partial = `${outDir}.${process.pid}`
  const started = Date.now()
  const run = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/@vercel/ncc/dist/ncc/cli.js'),
      'build',
      'src/index.ts',
      '-o',
      partial,
      '--minify',
      '--quiet'
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } }
  )
  if (run.status !== 0) {
    rmSync(partial, { recursive: true, force: true })
    throw new Error(
      `e2e: building the bundle from src/ failed (${run.error?.message ?? `exit ${run.status}`}):\n${run.stderr}`
    )
  }
  // Renamed into place whole, so a concurrent run never reads a half-written bundle.
  rmSync(outDir, { recursive: true, force: true })
  renameSync(partial, outDir)
  process.stderr.write(`e2e: built the bundle from src/ in ${Date.now() - started} ms: ${outDir}\n`)
}

/** Whether the build that `lock` names is still running (its process alive). */
function buildRunning(lock: string): boolean {
  try {
    process.kill(Number(readFileSync(lock, 'utf8')), 0)
    return true
  } catch {
    return false
  }
}

/** Waits for a build that `npm test` started before the unit tests; deadline 10 minutes. */
async function awaitBuild(lock: string, bundle: string): Promise<void> {
  const deadline = Date.now() + 600_000
  while (!existsSync(bundle) && buildRunning(lock) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 200))
}

function bundlePaths() {
  const outDir = path.join(tmpdir(), `coder-template-gate-bundle-${sourceHash()}`)
  return { outDir, bundle: path.join(outDir, 'index.js'), lock: `${outDir}.lock` }
}

export default async function bundleSetup(): Promise<void> {
  const given = process.env.GATE_BUNDLE
  if (given) {
    if (!existsSync(given)) throw new Error(`e2e: GATE_BUNDLE=${given} does not exist`)
    return
  }
  const { outDir, bundle, lock } = bundlePaths()
  await awaitBuild(lock, bundle)
  if (!existsSync(bundle)) build(outDir)
  process.env.GATE_BUNDLE = bundle
}

// `tsx test/e2e/bundle-setup.ts --background`: `npm test` starts the build here, so that it runs
// beside the unit and adapter projects (which mostly wait on I/O); the globalSetup above then
// waits for it instead of building again.
const mode = process.argv[1] === fileURLToPath(import.meta.url) ? process.argv[2] : undefined
if (mode === '--background') {
  const { bundle, lock } = bundlePaths()
  if (!existsSync(bundle) && !(existsSync(lock) && buildRunning(lock))) {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, '--build'], {
      detached: true,
      stdio: 'ignore'
    })
    writeFileSync(lock, String(child.pid))
    child.unref()
  }
} else if (mode === '--build') {
  const { outDir, bundle, lock } = bundlePaths()
  try {
    if (!existsSync(bundle)) build(outDir)
  } finally {
    rmSync(lock, { force: true })
  }
}
