// `npm run mutate [-- --tests-from <git-rev>] [--only <name,...>] [--keep] [--check]`: proves that
// each table can fail. A scratch copy of the repository (src/, test/, config/, package.json, tsconfig.json;
// node_modules linked) gets one mutation of test/mutation/mutations.ts at a time, and jest runs
// only that module's table tests: failing tests = caught, passing tests = survived.
// --tests-from <rev> takes the table tests as they were at <rev> (git show), to measure "before".
// A mutation whose text is no longer in its function (locate.ts) is "not found", with the module and
// function that hold the text now; --check only lists those, without running jest.
// Exit code 0 only when every mutation was caught. Slow (one jest run per mutation): not npm test.
import { spawnSync } from 'node:child_process'
import {
  cpSync,
  readdirSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { applyAt, listProblems, locate, type SourceFiles } from './check.js'
import { MUTATED_MODULES, type MutatedModule, type Mutation } from './mutations.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const JEST_TIMEOUT_MS = 180_000

interface Options {
  testsFrom: string | null
  only: string[] | null
  keep: boolean
  check: boolean
}

type Outcome =
  | 'caught'
  | 'survived'
  | 'caught (suite broke)'
  | 'caught (timeout)'
  | 'no table'
  | `not found${string}`

interface Result {
  module: string
  mutation: Mutation
  outcome: Outcome
}

function parseArgs(argv: string[]): Options {
  const options: Options = { testsFrom: null, only: null, keep: false, check: false }
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]
    if (arg === '--tests-from') options.testsFrom = argv[++i] ?? ''
    else if (arg === '--only') options.only = (argv[++i] ?? '').split(',').map((s) => s.trim())
    else if (arg === '--keep') options.keep = true
    else if (arg === '--check') options.check = true
    else throw new Error(`unknown argument ${arg}`)
  }
  if (options.testsFrom === '') throw new Error('--tests-from needs a git revision')
  return options
}

function readRepoFile(path: string): string | null {
  try {
    return readFileSync(join(ROOT, path), 'utf8')
  } catch {
    return null
  }
}

/** src/**\/*.ts, where a lost mutation text is looked for. */
function sourcePaths(dir = 'src'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourcePaths(`${dir}/${entry.name}`)
      : entry.name.endsWith('.ts')
        ? [`${dir}/${entry.name}`]
        : []
  )
}

const SOURCES: SourceFiles = { read: readRepoFile, list: () => sourcePaths() }

const notFound = (problem: string): Outcome =>
  problem.startsWith('not found') ? (problem as Outcome) : `not found: ${problem}`

/** The mutations that do not find their text, each with what to write instead. */
function lostMutations(modules: MutatedModule[]): Result[] {
  return modules.flatMap((module) =>
    module.mutations.flatMap((mutation): Result[] => {
      const located = locate(mutation, SOURCES)
      return located.found
        ? []
        : [{ module: module.name, mutation, outcome: notFound(located.problem) }]
    })
  )
}

/** The copy the mutants run in; node_modules is linked, not copied. */
function makeScratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mutate-'))
  for (const entry of ['src', 'test', 'config'])
    if (existsSync(join(ROOT, entry)))
      cpSync(join(ROOT, entry), join(dir, entry), { recursive: true })
  for (const file of ['package.json', 'tsconfig.json']) cpSync(join(ROOT, file), join(dir, file))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  return dir
}

/** Puts the table tests of `rev` in place; a test that did not exist then is removed. */
function useTestsFrom(dir: string, rev: string, tests: string[]): void {
  // A mistyped revision would otherwise read as "no table" everywhere.
  const known = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], {
    cwd: ROOT
  })
  if (known.status !== 0) throw new Error(`--tests-from: ${rev} is not a commit`)
  for (const test of tests) {
    const shown = spawnSync('git', ['show', `${rev}:${test}`], { cwd: ROOT, encoding: 'utf8' })
    if (shown.status === 0) writeFileSync(join(dir, test), shown.stdout)
    else rmSync(join(dir, test), { force: true })
  }
}

interface JestRun {
  passed: boolean
  /** A suite that did not run at all (syntax error, import failure): not a table's doing. */
  broke: boolean
  timedOut: boolean
  detail: string
}

function runJest(dir: string, tests: string[]): JestRun {
  const out = join(dir, 'jest-result.json')
  rmSync(out, { force: true })
  const run = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/jest/bin/jest.js'),
      '--maxWorkers=1',
      '--ci',
      '--silent',
      '--json',
      `--outputFile=${out}`,
      '--runTestsByPath',
      ...tests
    ],
    {
      cwd: dir,
      encoding: 'utf8',
      timeout: JEST_TIMEOUT_MS,
      env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules' }
    }
  )
  const timedOut = run.error !== undefined && (run.error as { code?: string }).code === 'ETIMEDOUT'
  const detail = `${run.stderr ?? ''}`.split('\n').slice(-30).join('\n')
  return { passed: run.status === 0, broke: suiteBroke(out, timedOut), timedOut, detail }
}

/** Whether a suite failed to run (no report, an exec error, or no test in it). */
function suiteBroke(reportPath: string, timedOut: boolean): boolean {
  if (!existsSync(reportPath)) return !timedOut
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as {
    testResults: { testExecError?: unknown; assertionResults: unknown[] }[]
  }
  return report.testResults.some((r) => r.testExecError || r.assertionResults.length === 0)
}

function present(dir: string, tests: string[]): string[] {
  return tests.filter((test) => existsSync(join(dir, test)))
}

/** `pastTests`: the tests come from --tests-from, where a test that did not exist yet is no table. */
function mutateModule(dir: string, module: MutatedModule, pastTests: boolean): Result[] {
  const tests = present(dir, module.tests)
  const results: Result[] = []
  const record = (mutation: Mutation, outcome: Outcome) =>
    results.push({ module: module.name, mutation, outcome })
  const missing = module.tests.filter((test) => !tests.includes(test))
  if (tests.length === 0 || (missing.length > 0 && !pastTests)) {
    const outcome: Outcome = pastTests ? 'no table' : `not found: no test ${missing.join(', ')}`
    module.mutations.forEach((m) => record(m, outcome))
    return results
  }
  const baseline = runJest(dir, tests)
  if (!baseline.passed)
    throw new Error(
      `${module.name}: the unmutated tests fail (${tests.join(' ')}):\n${baseline.detail}`
    )
  for (const mutation of module.mutations) {
    const located = locate(mutation, SOURCES)
    if (!located.found) continue // reported by lostMutations
    const path = join(dir, mutation.module)
    const original = readFileSync(path, 'utf8')
    writeFileSync(path, applyAt(original, located.at, mutation.find, mutation.replace))
    try {
      const run = runJest(dir, tests)
      record(
        mutation,
        run.timedOut
          ? 'caught (timeout)'
          : run.passed
            ? 'survived'
            : run.broke
              ? 'caught (suite broke)'
              : 'caught'
      )
    } finally {
      writeFileSync(path, original)
    }
    process.stderr.write(`${module.name}: ${results.at(-1)!.outcome}: ${mutation.why}\n`)
  }
  return results
}

function oneLine(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

function report(results: Result[], options: Options): string {
  const lines = [
    `Mutation run, table tests from ${options.testsFrom ?? 'the working tree'}`,
    '',
    '| module | mutation | what it gets wrong | result |',
    '| --- | --- | --- | --- |',
    ...results.map(
      (r) =>
        `| ${r.module} | \`${oneLine(r.mutation.find, 40)}\` → \`${oneLine(r.mutation.replace, 40)}\` | ${r.mutation.why} | ${r.outcome} |`
    ),
    '',
    '| module | caught | of |',
    '| --- | --- | --- |'
  ]
  const names = [...new Set(results.map((r) => r.module))]
  for (const name of names) {
    const mine = results.filter((r) => r.module === name)
    lines.push(
      `| ${name} | ${mine.filter((r) => r.outcome.startsWith('caught')).length} | ${mine.length} |`
    )
  }
  const caught = results.filter((r) => r.outcome.startsWith('caught')).length
  lines.push(`| all | ${caught} | ${results.length} |`)
  return lines.join('\n')
}

function main(): number {
  const options = parseArgs(process.argv.slice(2))
  const problems = listProblems(MUTATED_MODULES)
  if (problems.length > 0) {
    process.stderr.write(`The mutation list is not well formed:\n${problems.join('\n')}\n`)
    return 1
  }
  const modules = MUTATED_MODULES.filter((m) => !options.only || options.only.includes(m.name))
  if (options.only && modules.length !== options.only.length)
    throw new Error(`--only: known modules are ${MUTATED_MODULES.map((m) => m.name).join(', ')}`)
  const lost = lostMutations(modules)
  if (options.check) {
    process.stdout.write(
      lost.length === 0 ? 'Every mutation finds its text.\n' : `${report(lost, options)}\n`
    )
    return lost.length === 0 ? 0 : 1
  }
  const dir = makeScratch()
  try {
    if (options.testsFrom)
      useTestsFrom(dir, options.testsFrom, [...new Set(modules.flatMap((m) => m.tests))])
    const results = [
      ...lost,
      ...modules.flatMap((module) => mutateModule(dir, module, options.testsFrom !== null))
    ]
    process.stdout.write(`${report(results, options)}\n`)
    return results.every((r) => r.outcome.startsWith('caught')) ? 0 : 1
  } finally {
    if (options.keep) process.stderr.write(`scratch kept in ${dir}\n`)
    else rmSync(dir, { recursive: true, force: true })
  }
}

process.exitCode = main()
