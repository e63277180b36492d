// Git object identities as GitHub reports them.
import { createHash, randomBytes } from 'node:crypto'

/** The git blob SHA-1 of a file: sha1("blob <byte length>\0" + bytes), what `git hash-object` prints. */
export function gitBlobSha(content: string | Buffer): string {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}

/**
 * A commit SHA that looks like git's (40 lowercase hex). It hashes the parent, the changes and a
 * random salt; it is not the real hash of a git commit object (there are no real trees here).
 */
export function fakeCommitSha(
  parent: string | null,
  message: string,
  changedPaths: string[]
): string {
  return createHash('sha1')
    .update(`commit\0${parent ?? ''}\0${message}\0${changedPaths.join('\0')}\0`)
    .update(randomBytes(16))
    .digest('hex')
}

/** Base64 as the contents API sends it: wrapped with a newline every 60 characters. */
export function githubBase64(content: string): string {
  const flat = Buffer.from(content, 'utf8').toString('base64')
  const lines: string[] = []
  for (let i = 0; i < flat.length; i += 60) lines.push(flat.slice(i, i + 60))
  return lines.map((line) => `${line}\n`).join('')
}
