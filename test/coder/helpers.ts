// Shared helpers of the Coder adapter tests: template directories and running the fake CLI.
import { execFile } from 'node:child_process'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { StepLog } from '../../src/steps/step.js'

export function makeTempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** A template directory with a main.tf plus files the CLI must leave out of the archive. */
export function makeTemplateDir(root: string, name = 'docker', withTf = true): string {
  const dir = join(root, name)
  mkdirSync(join(dir, '.terraform'), { recursive: true })
  mkdirSync(join(dir, 'modules'), { recursive: true })
  if (withTf) writeFileSync(join(dir, 'main.tf'), 'resource "coder_agent" "main" {}\n')
  writeFileSync(join(dir, 'modules', 'README.md'), '# module\n')
  writeFileSync(join(dir, '.terraform.lock.hcl'), '# lock\n')
  writeFileSync(join(dir, '.terraform', 'cache'), 'skip me\n')
  writeFileSync(join(dir, 'terraform.tfstate'), '{}\n')
  return dir
}

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** Runs an executable with stdin closed, like the adapter does. */
export function runCli(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { env, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
      resolve({ code, stdout, stderr })
    })
    child.stdin?.end()
  })
}

/** A sink for the CLI output shown by runTemplatesPush, so tests stay quiet. */
export function collector(): { stream: Writable; text: () => string } {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'))
      done()
    }
  })
  return { stream, text: () => chunks.join('') }
}

/** Names of the entries of a ustar archive. */
export function tarEntries(archive: Buffer): string[] {
  const names: string[] = []
  for (let offset = 0; offset + 512 <= archive.length;) {
    const header = archive.subarray(offset, offset + 512)
    if (header.every((b) => b === 0)) break
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '')
    const size = parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, ''), 8)
    names.push(name)
    offset += 512 + Math.ceil(size / 512) * 512
  }
  return names
}

/** A StepLog that keeps what the adapter wrote, for assertions; groups run their body. */
export function recordingLog(): {
  log: StepLog
  infos: string[]
  warnings: string[]
  groups: string[]
} {
  const infos: string[] = []
  const warnings: string[] = []
  const groups: string[] = []
  const log: StepLog = {
    info: (text) => void infos.push(text),
    warning: (text) => void warnings.push(text),
    debug: () => {},
    group: (title, body) => {
      groups.push(title)
      return body()
    }
  }
  return { log, infos, warnings, groups }
}
