// Every Coder REST path the gate calls (the `/api/v2/` literals under src/) is an operation of
// shared/reference/coder-api-subset.json, with the same method where the source says it.
import { describe, it, expect } from '@jest/globals'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
// Third-party reference data beside the repository (never copied into it).
const SUBSET = [
  process.env.CODER_API_SUBSET ?? '',
  resolve(ROOT, '../shared/reference/coder-api-subset.json'),
  resolve(ROOT, '../../shared/reference/coder-api-subset.json')
].find((candidate) => candidate !== '' && existsSync(candidate))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : []
  })
}

interface Call {
  where: string
  method: string
  /** Under basePath, each `${…}` as `{}`. */
  path: string
}

/** `request('GET', '/api/v2/…')` and friends; the method is the nearest literal before the path. */
function gateCalls(): Call[] {
  return sourceFiles(join(ROOT, 'src')).flatMap((file) => {
    const text = readFileSync(file, 'utf8')
    return [
      ...text.matchAll(/(?:'(GET|POST|PATCH|PUT|DELETE)',\s*)?[`'"]\/api\/v2(\/[^`'"?]*)/g)
    ].map((m) => ({
      where: `${file.slice(ROOT.length + 1)}:${text.slice(0, m.index).split('\n').length}`,
      method: (m[1] ?? '').toLowerCase(),
      path: m[2].replace(/\$\{[^}]*\}/g, '{}')
    }))
  })
}

function matches(template: string, path: string): boolean {
  const a = template.split('/')
  const b = path.split('/')
  return a.length === b.length && a.every((part, i) => part === b[i] || /^\{.+\}$/.test(part))
}

const describeWithSubset = SUBSET ? describe : describe.skip
if (!SUBSET)
  console.log('skipped: shared/reference/coder-api-subset.json not found (CODER_API_SUBSET)')

describeWithSubset('the Coder paths the gate calls', () => {
  const subset = JSON.parse(readFileSync(SUBSET ?? '', 'utf8')) as {
    basePath: string
    paths: Record<string, Record<string, unknown>>
  }
  const calls = gateCalls()

  it('finds the calls (the list is not empty by accident)', () => {
    expect(calls.map((c) => c.path)).toEqual(
      expect.arrayContaining([
        '/templates/{}/versions',
        '/templateversions/{}/archive',
        '/buildinfo'
      ])
    )
    expect(subset.basePath).toBe('/api/v2')
  })

  it.each(
    gateCalls().map((call): [string, Call] => [
      `${call.method || 'any'} ${call.path} (${call.where})`,
      call
    ])
  )('%s is in coder-api-subset.json', (_name, call) => {
    const listed = Object.keys(subset.paths).filter((template) => matches(template, call.path))
    expect(listed).not.toEqual([])
    if (call.method) {
      expect(listed.some((template) => call.method in subset.paths[template])).toBe(true)
    }
  })

  it('a path outside the subset would fail', () => {
    expect(
      Object.keys(subset.paths).some((t) => matches(t, '/templates/{}/versions/{}/cancel'))
    ).toBe(false)
  })
})
