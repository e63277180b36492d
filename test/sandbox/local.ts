// npm run local [-- <env-file>]: the bundle (dist/index.js) against real systems, with the
// variables of a .env file (Node's --env-file, as the runner passes INPUT_<NAME>). The job
// summary goes to a fresh temp file and is printed at the end as text: GITHUB_STEP_SUMMARY
// receives HTML, which GitHub renders and a terminal does not.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseGitHubOutput, REPO_ROOT } from './action-runner.js'
import { summaryAsText } from './summary-text.js'

const envFile = path.resolve(process.argv[2] ?? '.env')
const bundle = path.join(REPO_ROOT, 'dist/index.js')
if (!existsSync(envFile)) {
  console.error(`${envFile} does not exist: write one as docs/how-to/run-locally.md shows.`)
  process.exit(2)
}

const temp = mkdtempSync(path.join(tmpdir(), 'gate-local-'))
const summaryFile = path.join(temp, 'summary.html')
const outputFile = path.join(temp, 'output.txt')
writeFileSync(summaryFile, '')
writeFileSync(outputFile, '')
mkdirSync(path.join(temp, 'runner-temp'))
mkdirSync(path.join(temp, 'tool-cache'))

// Node gives the environment precedence over --env-file: these win over the file's values, the
// others fall back to a temp folder only when neither sets them.
const env: Record<string, string | undefined> = {
  ...process.env,
  GITHUB_STEP_SUMMARY: summaryFile,
  GITHUB_OUTPUT: outputFile
}
const fileText = readFileSync(envFile, 'utf8')
const fileSets = (name: string): boolean =>
  new RegExp(`^\\s*(export\\s+)?${name}=`, 'm').test(fileText)
for (const [name, folder] of [
  ['RUNNER_TEMP', 'runner-temp'],
  ['RUNNER_TOOL_CACHE', 'tool-cache']
] as const) {
  if (!env[name] && !fileSets(name)) env[name] = path.join(temp, folder)
}

const child = spawn(process.execPath, [`--env-file=${envFile}`, bundle], {
  env,
  stdio: 'inherit'
})
const exitCode = await new Promise<number>((resolve) =>
  child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)))
)

const summary = readFileSync(summaryFile, 'utf8')
console.log(`\n${'='.repeat(80)}\nThe job summary (GITHUB_STEP_SUMMARY receives it as HTML):\n`)
console.log(summary.trim() ? summaryAsText(summary) : '(the run wrote no job summary)')
const outputs = Object.entries(parseGitHubOutput(readFileSync(outputFile, 'utf8'))).filter(
  ([, value]) => value !== ''
)
if (outputs.length > 0) {
  console.log('\nOutputs (the empty ones left out):')
  for (const [name, value] of outputs) console.log(`  ${name.padEnd(28)} ${value}`)
}
rmSync(temp, { recursive: true, force: true })
process.exit(exitCode)
