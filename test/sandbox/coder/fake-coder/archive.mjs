// The template archive of the fake `coder` CLI: the files pushed as a ustar.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { Buffer } from 'node:buffer'
import { CliError } from './common.mjs'

const ARCHIVE_LIMIT = 1 << 20 // TemplateArchiveLimit of coder/coder provisionersdk/archive.go

// Skip dot components (except .terraform.lock.hcl), state and tfvars files.
function skipped(relPath) {
  const parts = relPath.split(/[\\/]/)
  const base = parts[parts.length - 1]
  if (parts.some((p) => p.startsWith('.') && p !== '.terraform.lock.hcl')) return true
  if (relPath.includes('.tfstate')) return true
  return (
    base === 'terraform.tfvars' ||
    base === 'terraform.tfvars.json' ||
    /\.auto\.tfvars(\.json)?$/.test(base)
  )
}

export function listFiles(root, dir = root) {
  const found = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    const rel = relative(root, full).split('\\').join('/')
    if (skipped(rel)) continue
    if (entry.isDirectory()) found.push(...listFiles(root, full))
    else if (entry.isFile()) found.push(rel) // symlinks are left out by the fake
  }
  return found.sort()
}

// A minimal ustar archive: one 512-byte header per regular file, two zero blocks at the end.
function tarHeader(name, size, mtime) {
  const header = Buffer.alloc(512)
  const put = (text, offset, length) => header.write(text, offset, length, 'utf8')
  const octal = (value, length) => value.toString(8).padStart(length - 1, '0') + '\0'
  put(name, 0, 100)
  put(octal(0o644, 8), 100, 8)
  put(octal(0, 8), 108, 8)
  put(octal(0, 8), 116, 8)
  put(octal(size, 12), 124, 12)
  put(octal(mtime, 12), 136, 12)
  put('        ', 148, 8)
  put('0', 156, 1)
  put('ustar\0', 257, 6)
  put('00', 263, 2)
  let sum = 0
  for (const byte of header) sum += byte
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8)
  return header
}

export function tarDirectory(dir) {
  const files = listFiles(dir)
  if (!files.some((f) => f.endsWith('.tf') || f.endsWith('.tf.json'))) {
    throw new CliError(`${dir} is not a valid template since it has no [.tf .tf.json] files`)
  }
  const blocks = []
  for (const rel of files) {
    if (Buffer.byteLength(rel) > 100)
      throw new CliError(`fake coder: path too long for ustar: ${rel}`)
    const content = readFileSync(join(dir, rel))
    const mtime = Math.floor(statSync(join(dir, rel)).mtimeMs / 1000)
    blocks.push(tarHeader(rel, content.length, mtime), content)
    const pad = (512 - (content.length % 512)) % 512
    if (pad) blocks.push(Buffer.alloc(pad))
  }
  blocks.push(Buffer.alloc(1024))
  const archive = Buffer.concat(blocks)
  if (archive.length > ARCHIVE_LIMIT) {
    throw new CliError(`Archive too big. Must be <= ${ARCHIVE_LIMIT} bytes`)
  }
  return { archive, files }
}
