// Every relative link of the README, CONTRIBUTING, SECURITY, CHANGELOG and docs/ reaches a file
// that exists, and its #anchor a heading of that page, as GitHub renders it.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { anchorsOf, linksOf } from './markdown.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

function markdownFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name)
    if (entry.isDirectory()) return markdownFiles(relative)
    return entry.name.endsWith('.md') ? [relative] : []
  })
}

const PAGES = [
  ...['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'CHANGELOG.md'].filter((file) =>
    existsSync(path.join(ROOT, file))
  ),
  ...markdownFiles('docs')
]

interface Pages {
  read: (file: string) => string | null
}

/** The links of one page that reach no file, or no anchor of the page they name. */
function brokenLinks(file: string, pages: Pages): string[] {
  const text = pages.read(file) ?? ''
  return linksOf(text).filter((link) => {
    if (/^[a-z][a-z+.-]*:/i.test(link)) return false // https:, mailto: and the like
    const [target, anchor] = link.split('#', 2)
    const resolved =
      target === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), target))
    const page = pages.read(resolved)
    if (page === null) return true
    if (anchor === undefined || !resolved.endsWith('.md')) return false
    return !anchorsOf(page).has(decodeURIComponent(anchor))
  })
}

const disk: Pages = {
  read: (file) => {
    const full = path.join(ROOT, file)
    if (!existsSync(full)) return null
    try {
      return readFileSync(full, 'utf8')
    } catch {
      return '' // a folder: it exists, and has no anchors
    }
  }
}

describe('the links of the docs', () => {
  it('finds the pages', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/troubleshooting.md']))
  })

  it.each(PAGES)('%s: every relative link and anchor resolves', (file) => {
    expect(brokenLinks(file, disk)).toEqual([])
  })
})

describe('the link check', () => {
  const pages: Record<string, string> = {
    'README.md': [
      '# Title',
      '## Use it',
      '## Use it',
      '[a](docs/a.md#one) [b](docs/a.md#two) [c](#use-it-1) [d](#nope) [e](https://x.y/z#q)',
      '[f](docs/missing.md) `[g](docs/missing.md)`',
      '```',
      '[h](docs/missing.md)',
      '```'
    ].join('\n'),
    'docs/a.md': '# One\n[back](../README.md#use-it)\n[`code` title](../README.md#title)\n'
  }
  const fake: Pages = { read: (file) => pages[file] ?? null }

  it('names a missing file and a missing anchor, and nothing in code or on the web', () => {
    expect(brokenLinks('README.md', fake)).toEqual(['docs/a.md#two', '#nope', 'docs/missing.md'])
  })

  it('follows a link relative to its page', () => {
    expect(brokenLinks('docs/a.md', fake)).toEqual([])
  })
})
