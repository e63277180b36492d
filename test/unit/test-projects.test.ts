// Every test file belongs to exactly one jest project (unit, adapter, e2e): a file that no project
// matches would never run, and one that two match would run twice.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'

const root = path.resolve(new URL('../..', import.meta.url).pathname)
const config = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).jest as {
  projects: { displayName: string; testMatch: string[] }[]
}

function testFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(relative)
    return entry.name.endsWith('.test.ts') ? [relative] : []
  })
}

/** The subset of glob syntax the projects use: `**`, `*` and `{a,b}`. */
function globToRegExp(glob: string): RegExp {
  let pattern = ''
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]
    if (glob.startsWith('**/', i)) {
      pattern += '(?:.*/)?'
      i += 2
    } else if (char === '*') pattern += '[^/]*'
    else if (char === '{') pattern += '(?:'
    else if (char === '}') pattern += ')'
    else if (char === ',') pattern += '|'
    else pattern += char.replace(/[.+?^$()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${pattern}$`)
}

describe('jest projects', () => {
  const projects = config.projects.map((project) => ({
    name: project.displayName,
    patterns: project.testMatch.map((glob) => globToRegExp(glob.replace('<rootDir>/', '')))
  }))

  it('the glob reader reads the patterns as jest does', () => {
    expect(globToRegExp('test/{a,b}/**/*.test.ts').test('test/b/x/y.test.ts')).toBe(true)
    expect(globToRegExp('test/{a,b}/**/*.test.ts').test('test/b/y.test.ts')).toBe(true)
    expect(globToRegExp('test/{a,b}/**/*.test.ts').test('test/c/y.test.ts')).toBe(false)
  })

  it.each(testFiles('test'))('%s runs in exactly one project', (file) => {
    const owners = projects.filter((p) => p.patterns.some((re) => re.test(file))).map((p) => p.name)
    expect(owners).toHaveLength(1)
  })
})

/** The file names that more than one folder uses, each with its paths. */
function duplicateNames(files: string[]): Record<string, string[]> {
  const byName = new Map<string, string[]>()
  for (const file of files)
    byName.set(path.posix.basename(file), [...(byName.get(path.posix.basename(file)) ?? []), file])
  return Object.fromEntries([...byName].filter(([, paths]) => paths.length > 1))
}

// A name finds one file: `jest x.test.ts`, a failure in a log and a link all point at one place.
describe('test file names', () => {
  it('no test file name is used in two folders', () => {
    expect(duplicateNames(testFiles('test'))).toEqual({})
  })

  it('the check names both paths of a duplicate', () => {
    expect(duplicateNames(['test/a/x.test.ts', 'test/b/x.test.ts', 'test/b/y.test.ts'])).toEqual({
      'x.test.ts': ['test/a/x.test.ts', 'test/b/x.test.ts']
    })
  })
})

// The tests of the sandbox's fakes (test/sandbox/) live in one folder, test/sandbox-tests/, in the
// sandbox's own sub-folders; no other folder holds a test of the sandbox itself.
describe('the tests of the sandbox', () => {
  it('are in test/sandbox-tests/, whose folders are those of test/sandbox/ or contracts', () => {
    const sandbox = readdirSync(path.join(root, 'test/sandbox'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    const tested = readdirSync(path.join(root, 'test/sandbox-tests'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    expect(tested.filter((folder) => ![...sandbox, 'contracts'].includes(folder))).toEqual([])
  })

  it('no test outside test/sandbox-tests/ is named for the sandbox', () => {
    const outside = testFiles('test').filter(
      (file) => !file.startsWith('test/sandbox-tests/') && /sandbox-(?!rules)|fake-coder/.test(file)
    )
    expect(outside).toEqual([])
  })
})

// The tests of a module live where its source lives: test/unit/<folder>/ for src/<folder>/, the
// adapter tests in test/<system>/ for src/<system>/, and the health-rule tests in test/config/gitops/.
describe('the test folders mirror the source folders', () => {
  const folders = (dir: string): string[] =>
    readdirSync(path.join(root, dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== '__snapshots__')
      .map((entry) => entry.name)
  const sourceFolders = folders('src')

  it.each(folders('test/unit'))('test/unit/%s is a folder of src/', (folder) => {
    expect(sourceFolders).toContain(folder)
  })

  it.each(['coder', 'gitops', 'kube'])('the adapters of src/%s are tested in test/%s', (folder) => {
    expect(sourceFolders).toContain(folder)
    expect(testFiles(`test/${folder}`).length).toBeGreaterThan(0)
  })

  it('a unit test at the top of test/unit tests the top of src/ or the house rules', () => {
    const top = readdirSync(path.join(root, 'test/unit')).filter((name) =>
      name.endsWith('.test.ts')
    )
    const house = [
      'action',
      'architecture-doc',
      'citations',
      'inputs-table',
      'markdown-links',
      'sandbox-rules',
      'source-rules',
      'test-projects',
      'workflows'
    ]
    const rootModules = readdirSync(path.join(root, 'src'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => name.replace(/\.ts$/, ''))
    for (const file of top)
      expect([...house, ...rootModules]).toContain(file.replace(/\.test\.ts$/, ''))
  })
})
