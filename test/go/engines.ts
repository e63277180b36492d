// Builds test/go/engines (gopher-lua and go-yaml v2, the engines of Argo CD and kubectl) once per
// source hash into os.tmpdir(), and runs it. Without the Go toolchain and the two Debian source
// packages, Go-based tests skip outside CI and fail in CI (describeWithGo).
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, it } from '@jest/globals'

export const GO_PACKAGES = 'golang-go golang-github-yuin-gopher-lua-dev golang-gopkg-yaml.v2-dev'
const SOURCE_DIR = fileURLToPath(new URL('./engines/', import.meta.url))
// Debian's source packages install under /usr/share/gocode (GOPATH mode, no module download).
const DEBIAN_GOPATH = '/usr/share/gocode'
const GO_LIBRARIES = ['github.com/yuin/gopher-lua', 'gopkg.in/yaml.v2']

export interface GoHealth {
  status?: string
  message?: string
}

/** One YAML text as kubectl reads it: its JSON and the Go type of each scalar by path. */
export interface GoYamlReading {
  json?: unknown
  types?: Record<string, string>
  error?: string
}

export interface GoEngines {
  goVersion: string
  runLua(requests: { script: string; obj: unknown }[]): GoHealth[]
  readYaml(texts: string[]): GoYamlReading[]
}

type Availability = { available: true; engines: GoEngines } | { available: false; reason: string }

let availability: Availability | undefined

/** The built engines, or why they cannot be built here. Builds at most once per process. */
export function goEngines(): Availability {
  availability ??= locate()
  return availability
}

function locate(): Availability {
  // A GOPATH set by the runner (setup-go) may not hold the Debian sources: take the first that does.
  const holdsLibraries = (path: string) =>
    GO_LIBRARIES.every((lib) => existsSync(join(path, 'src', lib)))
  const candidates = [...(process.env.GOPATH ?? '').split(':').filter(Boolean), DEBIAN_GOPATH]
  const gopath = candidates.find(holdsLibraries) ?? DEBIAN_GOPATH
  const missing = GO_LIBRARIES.filter((lib) => !existsSync(join(gopath, 'src', lib)))
  const go = spawnSync('go', ['version'], { encoding: 'utf8' })
  if (go.error || go.status !== 0) return { available: false, reason: 'no go command on PATH' }
  if (missing.length > 0) {
    return { available: false, reason: `${missing.join(' and ')} not in GOPATH ${gopath}` }
  }
  const binary = build(gopath, go.stdout)
  const engines: GoEngines = {
    goVersion: call(binary, { lua: [], yaml: [] }).goVersion,
    runLua: (requests) => call(binary, { lua: requests, yaml: [] }).lua,
    readYaml: (texts) => call(binary, { lua: [], yaml: texts }).yaml
  }
  return { available: true, engines }
}

function build(gopath: string, goVersion: string): string {
  const hash = createHash('sha256').update(goVersion).update(gopath)
  for (const file of readdirSync(SOURCE_DIR).sort()) {
    hash.update(file).update(readFileSync(join(SOURCE_DIR, file)))
  }
  const dir = join(tmpdir(), 'coder-template-gate-go')
  const binary = join(dir, `engines-${hash.digest('hex').slice(0, 16)}`)
  if (existsSync(binary)) return binary
  mkdirSync(dir, { recursive: true })
  // Build beside the target and rename, so that parallel jest workers never run half a file.
  const partial = `${binary}.${process.pid}.partial`
  const result = spawnSync('go', ['build', '-o', partial, '.'], {
    cwd: SOURCE_DIR,
    encoding: 'utf8',
    env: {
      ...process.env,
      GO111MODULE: 'off',
      GOPATH: gopath,
      GOFLAGS: '',
      GOPROXY: 'off',
      GOTOOLCHAIN: 'local',
      GOCACHE: process.env.GOCACHE || join(dir, 'cache')
    }
  })
  if (result.status !== 0) throw new Error(`go build of test/go/engines failed:\n${result.stderr}`)
  renameSync(partial, binary)
  return binary
}

interface Answer {
  goVersion: string
  lua: GoHealth[]
  yaml: GoYamlReading[]
}

function call(binary: string, request: { lua: unknown[]; yaml: string[] }): Answer {
  const result = spawnSync(binary, [], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024
  })
  if (result.status !== 0) throw new Error(`test/go/engines failed: ${result.stderr}`)
  return JSON.parse(result.stdout) as Answer
}

/**
 * Prints the reason once per jest run, not once per test file: the files share a marker named after
 * the jest process (the parent of a worker, or the process itself when run in band).
 */
function noteSkipOnce(reason: string): void {
  const runner = process.send === undefined ? process.pid : process.ppid
  const dir = join(tmpdir(), 'coder-template-gate-go')
  const marker = join(dir, `skip-noted-${runner}`)
  try {
    mkdirSync(dir, { recursive: true })
    // A marker left by an earlier process with the same pid is stale after a while.
    if (existsSync(marker) && Date.now() - statSync(marker).mtimeMs > STALE_MARKER_MS)
      rmSync(marker)
    writeFileSync(marker, reason, { flag: 'wx' })
  } catch {
    return // another test file of this run has printed it
  }
  process.stderr.write(`${reason}\n`)
}

const STALE_MARKER_MS = 30 * 60 * 1000

function inCI(): boolean {
  const value = (process.env.CI ?? '').toLowerCase()
  return value !== '' && value !== 'false' && value !== '0'
}

/**
 * A describe block that needs the Go engines. Outside CI, without them, it is skipped with one
 * line naming the packages; in CI (CI=true) their absence fails the run.
 */
export function describeWithGo(name: string, body: (engines: GoEngines) => void): void {
  const found = goEngines()
  if (found.available) {
    describe(name, () => body(found.engines))
  } else if (inCI()) {
    describe(name, () => {
      it('has the Go engines (required when CI is set)', () => {
        throw new Error(`CI is set, but ${found.reason}: apt-get install ${GO_PACKAGES}`)
      })
    })
  } else {
    noteSkipOnce(`Go engine tests skipped (${found.reason}): apt-get install ${GO_PACKAGES}`)
    describe.skip(name, () => {
      it('needs the Go engines', () => undefined)
    })
  }
}
