// Reading Markdown as GitHub renders it, for the docs tests: headings and their anchors, links and
// table rows, outside fenced code blocks.

/** The lines outside fenced code blocks: a `#` comment in a shell block is no heading. */
export function proseLines(text: string): string[] {
  const lines: string[] = []
  let fence: string | null = null
  for (const line of text.split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fence === null && opening) fence = opening[1]
    else if (fence !== null && line.trim() === fence) fence = null
    else if (fence === null) lines.push(line)
  }
  return lines
}

/** GitHub's anchor of a heading: lower case, punctuation other than - and _ dropped, spaces to -. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** Every anchor of a page: its headings (a repeated one gets -1, -2, ...) and HTML ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading) {
      const base = anchorOf(heading[1])
      const count = seen.get(base) ?? 0
      anchors.add(count === 0 ? base : `${base}-${count}`)
      seen.set(base, count + 1)
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1])
  }
  return anchors
}

/** The targets of the inline links and images of a page, outside code. */
export function linksOf(text: string): string[] {
  return proseLines(text).flatMap((line) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map(
      (match) => match[1]
    )
  )
}

/** The first cell of each body row of the tables whose header's first cell is `header`. */
export function firstCells(text: string, header: string): string[] {
  const cells: string[] = []
  let inTable = false
  for (const line of proseLines(text)) {
    const cell = /^\|\s*([^|]*?)\s*\|/.exec(line)
    if (!cell) inTable = false
    else if (cell[1] === header) inTable = true
    else if (inTable && !/^:?-+:?$/.test(cell[1])) cells.push(cell[1])
  }
  return cells
}
