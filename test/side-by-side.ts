// `tsx test/side-by-side.ts <npm script>...`: runs the scripts at once, for `npm test`'s adapter and
// e2e projects. Both mostly wait on I/O (the local servers, the bundle's child processes): one after
// the other, they leave about half of two cores idle; side by side, the e2e project starts as soon
// as its bundle is built. The last script prints as it goes; each other one prints whole when it
// ends, so that no two reports interleave. The exit code is the first failing script's. SIGINT and
// SIGTERM go to every script, so that a cancel ends the whole run.
import { spawn } from 'node:child_process'

const scripts = process.argv.slice(2)
if (scripts.length === 0) throw new Error('usage: tsx test/side-by-side.ts <npm script>...')

process.stderr.write(
  `side by side: ${scripts.join(', ')} (each but the last prints when it ends)\n`
)
const children = scripts.map((script, index) =>
  spawn('npm', ['run', script], {
    stdio:
      index === scripts.length - 1 ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe']
  })
)
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => children.forEach((child) => child.kill(signal)))

const codes = await Promise.all(
  children.map((child) => {
    const chunks: Buffer[] = []
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk))
    return new Promise<number>((resolve) =>
      child.on('close', (code) => {
        process.stderr.write(Buffer.concat(chunks))
        resolve(code ?? 1)
      })
    )
  })
)
process.exitCode = codes.find((code) => code !== 0) ?? 0
