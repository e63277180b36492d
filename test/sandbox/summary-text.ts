// The job summary is HTML (GITHUB_STEP_SUMMARY receives what core.summary wrote): this shows it as
// text a terminal can read, for `npm run demo` and `npm run local`. Links keep their URL, tables
// are aligned, lists are indented.

const ENTITIES: Record<string, string> = {
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&amp;': '&'
}

function decode(text: string): string {
  return text.replace(/&(?:lt|gt|quot|#39|amp);/g, (entity) => ENTITIES[entity] ?? entity)
}

/** Inline HTML as text: a link as `text (url)`, every other tag dropped. */
function inline(html: string): string {
  return decode(
    html
      .replace(/<a href="([^"]*)">(.*?)<\/a>/g, (_, url: string, text: string) => {
        const shown = text.replace(/<[^>]+>/g, '')
        return shown === url ? url : `${shown} (${url})`
      })
      .replace(/<[^>]+>/g, '')
  )
}

/** One table, its columns padded to the widest cell (the last column is not padded). */
function tableAsText(html: string): string {
  const rows = [...html.matchAll(/<tr>(.*?)<\/tr>/gs)].map(([, row]) =>
    [...(row ?? '').matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/gs)].map(([, cell]) => inline(cell ?? ''))
  )
  const widths: number[] = []
  for (const row of rows)
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  const lines = rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  )
  return `\n${lines.map((line) => `  ${line}`).join('\n')}\n`
}

export function summaryAsText(html: string): string {
  // Tables become text first; placeholders keep them from being decoded twice.
  const tables: string[] = []
  const text = html
    .replace(
      /<table>(.*?)<\/table>/gs,
      (table: string) => `\uE000${tables.push(tableAsText(table)) - 1}\uE000`
    )
    .replace(/<h\d>(.*?)<\/h\d>/g, '\n== $1 ==\n')
    .replace(/<summary>(.*?)<\/summary>/g, '\n-- $1 --\n')
    .replace(/<li>/g, '\n  - ')
    .replace(/<\/ul>|<\/pre>/g, '\n')
    .replace(/<br\s*\/?>|<\/p>/g, '\n')
  return inline(text)
    .replace(/\uE000(\d+)\uE000/g, (_, i: string) => tables[Number(i)] ?? '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}
