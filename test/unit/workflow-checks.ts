// Pure checks of workflow files that the schema validator and actionlint do not make: the gate's
// own inputs and outputs, pinned actions, and `run:` lines that YAML would cut at a ` #`.
import { parseDocument } from 'yaml'
import type { ValidationError } from '@action-validator/core'

/** A `uses:` of this action, wherever it is published. */
const GATE_USES = /(^|\/)coder-template-gate@[^/\s]+$/

/** Major-version tags (`@v5`) or full commit SHAs; local actions (`./`) need none. */
const PINNED_USES = /^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@(v\d+|[0-9a-f]{40})$/

type Mapping = Record<string, unknown>

export interface ActionInterface {
  inputs: string[]
  required: string[]
  outputs: string[]
}

export interface GateStep {
  job: string
  id: string
  with: Mapping
}

function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The YAML as data; any YAML error or warning (a duplicate key, say) is thrown. */
export function loadYaml(text: string): Mapping {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true })
  const problems = [...document.errors, ...document.warnings]
  if (problems.length > 0) throw new Error(problems.map((p) => p.message).join('\n'))
  const value: unknown = document.toJS()
  if (!isMapping(value)) throw new Error('the YAML is not a mapping')
  return value
}

export function actionInterfaceOf(actionYaml: string): ActionInterface {
  const action = loadYaml(actionYaml)
  const inputs = isMapping(action.inputs) ? action.inputs : {}
  const outputs = isMapping(action.outputs) ? action.outputs : {}
  return {
    inputs: Object.keys(inputs),
    required: Object.entries(inputs)
      .filter(([, input]) => isMapping(input) && input.required === true)
      .map(([name]) => name),
    outputs: Object.keys(outputs)
  }
}

/** Every step of every job, with its job's name. */
function stepsOf(workflow: Mapping): { job: string; step: Mapping }[] {
  const jobs = isMapping(workflow.jobs) ? workflow.jobs : {}
  return Object.entries(jobs).flatMap(([job, body]) => {
    const steps = isMapping(body) && Array.isArray(body.steps) ? body.steps : []
    return steps.filter(isMapping).map((step) => ({ job, step }))
  })
}

export function gateStepsOf(workflow: Mapping): GateStep[] {
  return stepsOf(workflow)
    .filter(({ step }) => typeof step.uses === 'string' && GATE_USES.test(step.uses))
    .map(({ job, step }) => ({
      job,
      id: typeof step.id === 'string' ? step.id : '',
      with: isMapping(step.with) ? step.with : {}
    }))
}

/** `steps.<id>.outputs.<name>` references in the text, expressions and scripts alike. */
export function outputReferences(text: string): { id: string; name: string }[] {
  return [...text.matchAll(/\bsteps\.([\w-]+)\.outputs\.([\w-]+)/g)].map((match) => ({
    id: match[1],
    name: match[2]
  }))
}

/** What a workflow gets wrong about the gate's interface; empty when nothing. */
export function gateUsageProblems(
  text: string,
  workflow: Mapping,
  action: ActionInterface
): string[] {
  const problems: string[] = []
  const steps = gateStepsOf(workflow)
  for (const step of steps) {
    const where = `job ${step.job}, step ${step.id || '(no id)'}`
    for (const key of Object.keys(step.with))
      if (!action.inputs.includes(key)) problems.push(`${where}: with.${key} is no input`)
    for (const name of action.required)
      if (!(name in step.with)) problems.push(`${where}: the required input ${name} is missing`)
  }
  const gateIds = new Set(steps.map((step) => step.id).filter((id) => id !== ''))
  for (const { id, name } of outputReferences(text))
    if (gateIds.has(id) && !action.outputs.includes(name))
      problems.push(`steps.${id}.outputs.${name} is no output`)
  return problems
}

/** `uses:` values that are neither a major tag, a full SHA, nor a local action. */
export function unpinnedUses(workflow: Mapping): string[] {
  return stepsOf(workflow)
    .map(({ step }) => step.uses)
    .filter((uses): uses is string => typeof uses === 'string')
    .filter((uses) => !uses.startsWith('./') && !PINNED_USES.test(uses))
}

/** Plain-scalar `run:` lines with ` #`: YAML reads the rest of the line as a comment. */
export function runLinesCutByComment(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /^\s*(-\s+)?run:\s+[^|>'"\s]/.test(line) && / #/.test(line))
}

/** Schema errors as one line each, nested `oneOf` states included. */
export function schemaErrorLines(errors: ValidationError[]): string[] {
  return errors.flatMap((error) => {
    const at = 'path' in error ? error.path : `line ${error.location?.line ?? '?'}`
    const own = `${at}: ${error.title}${error.detail ? ` (${error.detail})` : ''}`
    const nested =
      'states' in error ? (error.states ?? []).flatMap((s) => schemaErrorLines(s.errors)) : []
    return [own, ...nested]
  })
}

/** The bodies of the ```yaml blocks of a Markdown text. */
export function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)].map((match) => match[1])
}
